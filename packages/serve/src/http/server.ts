/**
 * The HTTP server of `dnscore serve` (node:http, no framework): the page's files and the JSON
 * API, behind the limits a hostile client meets first: header size and time (slowloris), body
 * size, request-target length, methods, Host (rebinding), origin, rate, connections, and a
 * deadline on every DNS-backed answer.
 */
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { silentLogger, type DnsCore, type Logger } from '@dnscore/core';
import * as d from '../defaults.js';
import {
  BadRequestError,
  ExpectationFailedError,
  MethodNotAllowedError,
  NotFoundError,
  ServiceUnavailableError,
  UriTooLongError,
} from '../errors.js';
import type { Params } from '../api/question.js';
import { loadAssets, type Asset } from './assets.js';
import { readJson } from './body.js';
import { checkHost, checkSite, checkWrite, RateLimiter } from './guard.js';
import { errorAnswer, SECURITY_HEADERS, send, sendJson } from './respond.js';
import { ROUTES, type RouteContext } from './routes.js';

const JSON_TYPE = 'application/json; charset=utf-8';

export interface ServeOptions {
  /** The backends behind "live DNS" (the CLI's backend flags). Closed by the caller. */
  readonly backend: DnsCore;
  /** What the backend is, for the page ("zone, then system"). */
  readonly description?: string;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 8053; 0 picks a free port. */
  readonly port?: number;
  /** Names accepted in the Host header besides localhost and IP literals. */
  readonly allowedHosts?: readonly string[];
  readonly ratePerSecond?: number;
  readonly rateBurst?: number;
  readonly headersTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly apiTimeoutMs?: number;
  readonly maxBodyBytes?: number;
  /** Connections served at once (default MAX_CONNECTIONS); twice as many are held open to say 503. */
  readonly maxConnections?: number;
  /**
   * Where an internal error (a 500, whose body says only "internal error") is told with its
   * stack, so that the operator sees what the client is not shown. Default: silent.
   */
  readonly logger?: Logger;
}

export interface RunningServer {
  readonly server: Server;
  /** "http://127.0.0.1:8053/" */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** True when bound to something other than loopback. */
  readonly exposed: boolean;
  close(): Promise<void>;
}

/** Loopback addresses: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? d.DEFAULT_HOST;
  const assets = loadAssets();
  const limiter = new RateLimiter(options.ratePerSecond ?? d.RATE_PER_SECOND, options.rateBurst ?? d.RATE_BURST);
  const maxBody = options.maxBodyBytes ?? d.MAX_BODY_BYTES;
  const apiTimeout = options.apiTimeoutMs ?? d.API_TIMEOUT_MS;
  const logger = options.logger ?? silentLogger;
  const allowed = new Set((options.allowedHosts ?? []).map((h) => h.toLowerCase()));
  const ctx: RouteContext = {
    backend: options.backend,
    description: options.description ?? 'the configured backends',
    limits: {
      maxUriLength: d.MAX_API_URI_LENGTH,
      maxZoneText: d.MAX_ZONE_TEXT,
      maxDraws: d.MAX_DRAWS,
      maxRequests: d.MAX_SIMULATED_REQUESTS,
    },
  };
  let port = 0;
  const server = createServer(
    {
      maxHeaderSize: d.MAX_HEADER_BYTES,
      headersTimeout: options.headersTimeoutMs ?? d.HEADERS_TIMEOUT_MS,
      requestTimeout: options.requestTimeoutMs ?? d.REQUEST_TIMEOUT_MS,
      keepAliveTimeout: d.KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: 250,
      // Node's own 400 for HTTP/1.1 without Host carries no safe header and no JSON: checkHost answers.
      requireHostHeader: false,
    },
    (req, res) => void handle(req, res),
  );
  // Over maxConnections a request gets a 503 that says so; node itself would close the socket without
  // a word, which it still does past twice as many.
  const maxConnections = options.maxConnections ?? d.MAX_CONNECTIONS;
  server.maxConnections = 2 * maxConnections;
  let open = 0;
  const overLimit = new WeakSet<object>();
  server.on('connection', (socket: Duplex) => {
    open += 1;
    if (open > maxConnections) overLimit.add(socket);
    socket.once('close', () => {
      open -= 1;
    });
  });
  // Node's own maxRequestsPerSocket answers the requests past it with a bare 503 (no safe header, no
  // JSON) and leaves the connection open: the last one allowed closes the connection here instead.
  const served = new WeakMap<object, number>();
  /** The response a connection is waiting for, while its handler runs. */
  const answering = new WeakMap<object, ServerResponse>();
  // A socket that errs (a reset mid-request) must never take the server down.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || socket.writableEnded) return void socket.destroy();
    // A request before the broken one is still being answered: that answer goes out first, as the
    // last on the connection; the client would otherwise read the 400 as the answer to it.
    // (A request still arriving is the broken one itself: it gets the error.)
    const pending = answering.get(socket);
    if (pending && !pending.writableFinished && pending.req.complete) {
      if (!pending.headersSent) pending.setHeader('connection', 'close');
      pending.once('close', () => socket.end());
      return;
    }
    socket.end(clientErrorAnswer(error.code, (error as { rawPacket?: Buffer }).rawPacket));
  });
  // CONNECT (a proxy tunnel): node would close the socket without a word.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    if (!socket.writable) return void socket.destroy();
    const error = new MethodNotAllowedError(req.method ?? '', ['GET', 'HEAD', 'POST']);
    socket.end(rawAnswer(405, 'Method Not Allowed', error.code, error.message, error.headers));
  });
  // Expect: 100-continue: the request is checked first; 100 Continue only when its body will be read.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => void handle(req, res, true));
  // An Expect other than 100-continue: node's own 417 would carry no safe header and no JSON.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('connection', 'close');
    const answer = errorAnswer(
      new ExpectationFailedError(`Expect "${String(req.headers.expect).slice(0, 40)}" is not supported`),
      false,
    );
    send(res, answer.status, JSON_TYPE, `${JSON.stringify(answer.body)}\n`, answer.headers, req.method === 'HEAD');
  });

  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue = false): Promise<void> {
    const controller = new AbortController();
    // One signal reaches every question of the answer (a check asks a dozen at once).
    setMaxListeners(256, controller.signal);
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, apiTimeout);
    res.on('close', () => {
      clearTimeout(deadline);
      controller.abort();
    });
    const head = req.method === 'HEAD';
    answering.set(req.socket, res);
    res.once('close', () => {
      if (answering.get(req.socket) === res) answering.delete(req.socket);
    });
    const count = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, count);
    if (count >= d.MAX_REQUESTS_PER_CONNECTION) res.setHeader('connection', 'close');
    try {
      if (overLimit.has(req.socket))
        throw new ServiceUnavailableError(`more than ${maxConnections} connections at once: try again in a second`);
      let target = req.url ?? '';
      if (target.length > d.MAX_REQUEST_TARGET_BYTES)
        throw new UriTooLongError(`the request target is longer than ${d.MAX_REQUEST_TARGET_BYTES} bytes`);
      // The absolute form (http://127.0.0.1:8053/api/info), which a server must take (RFC 9112 section 3.2.2).
      const absolute = /^http:\/\/([^/?#]*)(.*)$/is.exec(target);
      if (absolute) target = absolute[2]!.startsWith('/') ? absolute[2]! : `/${absolute[2]}`;
      const hostHeader = checkHost(req, port, allowed, absolute?.[1]);
      if (!target.startsWith('/') || target.startsWith('//'))
        throw new BadRequestError('the request target must be a path, or http://host:port/ and a path');
      // The URL parser reads "\" as "/" in an http path: "/\evil.example/api/info" would be the host
      // evil.example and the path /api/info.
      if (target.split('?', 1)[0]!.includes('\\'))
        throw new BadRequestError('the request path holds a backslash (write it %5C)');
      const url = new URL(target, 'http://server');
      const api = ROUTES.get(url.pathname);
      if (api) {
        // Before the rate: a request refused here spends no token of the user's own page.
        checkSite(req, hostHeader);
        limiter.take(req.socket.remoteAddress ?? '?');
        // HEAD is GET without the body (RFC 9110 section 9.3.2) wherever GET is taken.
        const allow = api.methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
        if (!allow.includes(req.method ?? '')) throw new MethodNotAllowedError(req.method ?? '', allow);
        let params: Params;
        if (req.method === 'POST') {
          checkWrite(req);
          params = await readJson(req, maxBody, () => expectsContinue && res.writeContinue());
        } else params = queryParams(url);
        const unknown = Object.keys(params).find((name) => !api.params.includes(name));
        if (unknown !== undefined)
          throw new BadRequestError(
            `${url.pathname} takes no parameter ${JSON.stringify(unknown.slice(0, 40))}` +
              (api.params.length > 0 ? `; it takes ${api.params.join(', ')}` : ''),
          );
        const answer = await api.route(params, ctx, controller.signal);
        clearTimeout(deadline);
        return sendJson(res, 200, answer, head);
      }
      const asset: Asset | undefined = assets.get(url.pathname);
      if (!asset) throw new NotFoundError(`nothing at ${url.pathname.slice(0, 100)}`);
      if (req.method !== 'GET' && req.method !== 'HEAD')
        throw new MethodNotAllowedError(req.method ?? '', ['GET', 'HEAD']);
      clearTimeout(deadline);
      return send(res, 200, asset.type, asset.body, {}, head);
    } catch (error) {
      clearTimeout(deadline);
      const answer = errorAnswer(error, timedOut);
      if (answer.status === 500) {
        const what = `${String(req.method).slice(0, 16)} ${String(req.url).slice(0, 200)}`;
        logger.warn(`dnscore serve: internal error answering ${what}: ${(error as Error)?.stack ?? String(error)}`);
      }
      // A body left unread would be taken as the next request: close instead.
      // A connection over the limit is closed too, so that it counts no more.
      if (!req.complete || overLimit.has(req.socket)) res.setHeader('connection', 'close');
      send(res, answer.status, JSON_TYPE, `${JSON.stringify(answer.body)}\n`, answer.headers, head);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: options.port ?? d.DEFAULT_PORT }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const shown = isIP(host) === 6 ? `[${host}]` : host;
  return {
    server,
    url: `http://${shown}:${port}/`,
    host,
    port,
    exposed: !isLoopback(host),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What node's parser refused, as a typed JSON error on a closing connection. */
function clientErrorAnswer(code: string | undefined, packet: Buffer | undefined): string {
  const [status, reason, ours, message] =
    code === 'HPE_HEADER_OVERFLOW' && isLongRequestLine(packet)
      ? [
          414,
          'URI Too Long',
          'SERVE_ERR_URI_TOO_LONG',
          `the request target is longer than ${d.MAX_REQUEST_TARGET_BYTES} bytes`,
        ]
      : code === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            'Request Header Fields Too Large',
            'SERVE_ERR_HEADERS_TOO_LARGE',
            `headers over ${d.MAX_HEADER_BYTES} bytes`,
          ]
        : code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'SERVE_ERR_REQUEST_TIMEOUT', 'the request took too long to arrive']
          : [400, 'Bad Request', 'SERVE_ERR_BAD_REQUEST', 'the request is not valid HTTP/1.1'];
  return rawAnswer(status, reason, ours, message);
}

/**
 * Node's parser counts the request line into its header limit, so a request target over 8 KB is
 * a header overflow to it. The bytes it was parsing say which: a first line that is the request
 * line (a method first, or the version last) and over the target limit.
 */
function isLongRequestLine(packet: Buffer | undefined): boolean {
  if (!packet) return false;
  const end = packet.indexOf('\r\n');
  const line = packet.subarray(0, end < 0 ? packet.length : end).toString('latin1');
  return (
    line.length > d.MAX_REQUEST_TARGET_BYTES && (/^[A-Z]+ [^ ]/.test(line) || (end >= 0 && / HTTP\/\d\.\d$/.test(line)))
  );
}

/**
 * An answer written straight to the socket (node's parser refused the request, or CONNECT), with
 * the same safe headers as every other answer, and a closing connection.
 */
function rawAnswer(
  status: number,
  reason: string,
  code: string,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): string {
  const body = `${JSON.stringify({ error: { code, message } })}\n`;
  const fields = {
    ...SECURITY_HEADERS,
    ...headers,
    connection: 'close',
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(body)),
  };
  const head = Object.entries(fields).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${reason}\r\n${head.join('')}\r\n${body}`;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A query string as parameters: each name at most once, every escape well formed and UTF-8. */
function queryParams(url: URL): Params {
  // URLSearchParams keeps a bad escape as it is and turns bytes that are not UTF-8 into U+FFFD: the
  // question would then be about text the client never sent.
  for (const part of url.search.slice(1).split('&')) {
    if (/%(?![0-9a-fA-F]{2})/.test(part))
      throw new BadRequestError(
        `the query string has a "%" not followed by two hex digits: ${JSON.stringify(part.slice(0, 60))}`,
      );
    try {
      // url.search is ASCII (the URL parser escapes the rest), so each escape is one latin1 byte.
      const bytes = part.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
      UTF8.decode(Buffer.from(bytes, 'latin1'));
    } catch {
      throw new BadRequestError(`the query string is not UTF-8 once decoded: ${JSON.stringify(part.slice(0, 60))}`);
    }
  }
  const params: Record<string, string> = Object.create(null);
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    if (values.length > 1) throw new BadRequestError(`${key.slice(0, 40)} is given ${values.length} times`);
    params[key] = values[0]!;
  }
  return params;
}
