/**
 * Errors of @dnscore/serve. Every refusal of the HTTP server is a ServeError with a stable
 * `code` and the HTTP status it is answered with; the body is `{"error":{"code","message"}}`.
 */
import { DnsError } from '@dnscore/core';

export class ServeError extends DnsError {
  override name = 'ServeError';
  override readonly code: string = 'SERVE_ERR';
  /** HTTP status of the answer. */
  readonly status: number = 500;
  /** Extra response headers (Allow, Retry-After). */
  readonly headers: Readonly<Record<string, string>> = {};
}

/** The request itself is malformed: a bad query string, JSON body, parameter or URI (400). */
export class BadRequestError extends ServeError {
  override name = 'BadRequestError';
  override readonly code: string = 'SERVE_ERR_BAD_REQUEST';
  override readonly status: number = 400;
}

/** A zone text that does not parse (400); `line` is where, for the page to point at. */
export class ZoneTextError extends BadRequestError {
  override name = 'ZoneTextError';
  override readonly code = 'SERVE_ERR_ZONE';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`zone text line ${line}: ${reason}`);
  }
}

/** No such page or API (404). */
export class NotFoundError extends ServeError {
  override name = 'NotFoundError';
  override readonly code = 'SERVE_ERR_NOT_FOUND';
  override readonly status = 404;
}

/** A method the path does not take (405, with Allow). */
export class MethodNotAllowedError extends ServeError {
  override name = 'MethodNotAllowedError';
  override readonly code = 'SERVE_ERR_METHOD';
  override readonly status = 405;
  override readonly headers: Readonly<Record<string, string>>;
  constructor(method: string, allow: readonly string[]) {
    super(`method ${method.slice(0, 32)} is not allowed here; use ${allow.join(' or ')}`);
    this.headers = { allow: allow.join(', ') };
  }
}

/** A Host header that is not this server's: DNS rebinding, or a proxy in front (421). */
export class ForbiddenHostError extends ServeError {
  override name = 'ForbiddenHostError';
  override readonly code = 'SERVE_ERR_HOST';
  override readonly status = 421;
}

/** A cross-origin write, or a body that is not JSON (403 / 415). */
export class ForbiddenOriginError extends ServeError {
  override name = 'ForbiddenOriginError';
  override readonly code = 'SERVE_ERR_ORIGIN';
  override readonly status = 403;
}

export class UnsupportedMediaTypeError extends ServeError {
  override name = 'UnsupportedMediaTypeError';
  override readonly code = 'SERVE_ERR_MEDIA_TYPE';
  override readonly status = 415;
}

/** A body over the limit (413). */
export class PayloadTooLargeError extends ServeError {
  override name = 'PayloadTooLargeError';
  override readonly code = 'SERVE_ERR_TOO_LARGE';
  override readonly status = 413;
}

/** A URI (request target) over the limit (414). */
export class UriTooLongError extends ServeError {
  override name = 'UriTooLongError';
  override readonly code = 'SERVE_ERR_URI_TOO_LONG';
  override readonly status = 414;
}

/** An Expect header other than 100-continue (417). */
export class ExpectationFailedError extends ServeError {
  override name = 'ExpectationFailedError';
  override readonly code = 'SERVE_ERR_EXPECTATION';
  override readonly status = 417;
}

/** More connections at once than the server serves (503, with Retry-After in seconds). */
export class ServiceUnavailableError extends ServeError {
  override name = 'ServiceUnavailableError';
  override readonly code = 'SERVE_ERR_BUSY';
  override readonly status = 503;
  override readonly headers: Readonly<Record<string, string>> = { 'retry-after': '1' };
}

/** Over the request rate (429, with Retry-After in seconds). */
export class RateLimitedError extends ServeError {
  override name = 'RateLimitedError';
  override readonly code = 'SERVE_ERR_RATE';
  override readonly status = 429;
  override readonly headers: Readonly<Record<string, string>>;
  constructor(retryAfterSeconds: number) {
    super(`too many requests; try again in ${retryAfterSeconds} s`);
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}
