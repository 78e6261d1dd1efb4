/**
 * What a request must pass before any work: a Host header that names this server (DNS
 * rebinding: a page of another site whose name now points at 127.0.0.1 sends its own name),
 * no cross-site writes, and a request rate per client address.
 */
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import {
  BadRequestError,
  ForbiddenHostError,
  ForbiddenOriginError,
  RateLimitedError,
  UnsupportedMediaTypeError,
} from '../errors.js';

/**
 * Host (or the authority of an absolute-form target) must be "localhost", an IP literal, or a name
 * in `allowed`, with the server's port. A
 * rebinding attack needs a name of its own in Host, so an IP literal is safe to accept.
 */
export function checkHost(
  req: IncomingMessage,
  port: number,
  allowed: ReadonlySet<string>,
  authority?: string,
): string {
  // Node keeps the first of several Host lines; a proxy in front may have read another (RFC 9112 section 3.2).
  const lines = req.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length;
  if (lines > 1) throw new BadRequestError(`the Host header is given ${lines} times`);
  // An absolute-form target names the host itself, in place of the Host header (RFC 9112 section 3.2.2).
  const host = authority ?? req.headers.host;
  if (typeof host !== 'string' || host === '') {
    // HTTP/1.1 makes Host mandatory (RFC 9112 section 3.2: 400); HTTP/1.0 does not, but this server does.
    if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1)
      throw new BadRequestError('the Host header is missing or empty (HTTP/1.1 requires it)');
    throw new ForbiddenHostError('the Host header is missing');
  }
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match) throw new ForbiddenHostError('the Host header is malformed');
  const name = match[1]!.toLowerCase();
  const hostPort = match[2] === undefined ? 80 : Number(match[2]);
  const bare = name.startsWith('[') ? name.slice(1, -1) : name;
  const known = name === 'localhost' || isIP(bare) !== 0 || allowed.has(name);
  if (!known || hostPort !== port)
    throw new ForbiddenHostError(
      `Host "${host.slice(0, 100)}" is not this server: open it as http://127.0.0.1:${port}/`,
    );
  return host;
}

/**
 * An API request must not come from another site's page, GET included: it could not read the answer,
 * but it would spend the user's rate (every tab of 127.0.0.1 shares one bucket) and the DNS backend.
 * Browsers say where a request comes from (Sec-Fetch-Site, Origin); other clients send neither.
 */
export function checkSite(req: IncomingMessage, host: string): void {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    throw new ForbiddenOriginError(`cross-origin requests are refused (Origin ${String(origin).slice(0, 100)})`);
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    throw new ForbiddenOriginError(`cross-site requests are refused (Sec-Fetch-Site ${String(site).slice(0, 40)})`);
}

/**
 * A write (POST) must be JSON, which a page of another origin can only send after a CORS preflight
 * this server never grants (its origin is checkSite's).
 */
export function checkWrite(req: IncomingMessage): void {
  // A compressed body would be read as JSON text and refused as "not UTF-8" or "not JSON".
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (coding !== 'identity' && coding !== '')
    throw new UnsupportedMediaTypeError(`the body must not be encoded (Content-Encoding ${coding.slice(0, 40)})`);
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new UnsupportedMediaTypeError('the body must be JSON (Content-Type: application/json)');
}

/** A token bucket per client address: `perSecond` sustained, `burst` at once. */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(address: string): void {
    const now = this.now();
    const bucket = this.#buckets.get(address) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.#buckets.set(address, bucket);
      throw new RateLimitedError(Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)));
    }
    bucket.tokens -= 1;
    this.#buckets.set(address, bucket);
    // Full buckets carry no information: forget them, so the map stays small.
    if (this.#buckets.size > 1_000)
      for (const [key, b] of this.#buckets) if (b.tokens >= this.burst - 1) this.#buckets.delete(key);
  }
}
