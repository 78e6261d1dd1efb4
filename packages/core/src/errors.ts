/**
 * Every error dnscore throws is a DnsError with a stable `code`; match on the code, not on the
 * message. An error means "no answer was obtained": NXDOMAIN, NODATA and bogus DNSSEC answers
 * are results (DnsResult), never errors.
 */
import { escapeText } from './untrusted-text.js';

export class DnsError extends Error {
  override name = 'DnsError';
  readonly code: string = 'DNS_ERR';
  /**
   * A definite error ends resolution: the registry never asks another resolver after it
   * (bad input, a cancelled call, an answer refused for security). Other errors mean "this
   * backend could not get an answer" and fall through to the next backend.
   */
  readonly definite: boolean = false;
}

/** An option or argument is invalid. */
export class InvalidArgumentError extends DnsError {
  override name = 'InvalidArgumentError';
  override readonly code: string = 'DNS_ERR_INVALID_ARGUMENT';
  override readonly definite = true;
}

/** The question itself is invalid: empty or over-long name or label, type or class out of range. */
export class InvalidQueryError extends InvalidArgumentError {
  override name = 'InvalidQueryError';
  override readonly code: string = 'DNS_ERR_INVALID_QUERY';
}

/** A resolver plugin handed over a result that breaks the core's invariants. */
export class InvalidResultError extends DnsError {
  override name = 'InvalidResultError';
  override readonly code: string = 'DNS_ERR_INVALID_RESULT';
}

/** An answer packet could not be parsed, or answers another question. */
export class MalformedAnswerError extends DnsError {
  override name = 'MalformedAnswerError';
  override readonly code: string = 'DNS_ERR_MALFORMED_ANSWER';
  constructor(
    message: string,
    /** Byte offset in the packet where parsing failed, when known. */
    readonly offset?: number,
  ) {
    super(message);
  }
}

/** A plugin was refused by the registry (duplicate name, missing method, bad priority). */
export class RegistrationError extends DnsError {
  override name = 'RegistrationError';
  override readonly code: string = 'DNS_ERR_REGISTRATION';
  override readonly definite = true;
}

/** No registered resolver is available. */
export class NoResolverError extends DnsError {
  override name = 'NoResolverError';
  override readonly code: string = 'DNS_ERR_NO_RESOLVER';
}

/** No server answered in time. */
export class TimeoutError extends DnsError {
  override name = 'TimeoutError';
  override readonly code: string = 'DNS_ERR_TIMEOUT';
}

/** A transport failure: socket error, connection refused, network unreachable. */
export class NetworkError extends DnsError {
  override name = 'NetworkError';
  override readonly code: string = 'DNS_ERR_NETWORK';
}

/** The zone resolver holds no zone for the name; the next resolver may answer. */
export class NotAuthoritativeError extends DnsError {
  override name = 'NotAuthoritativeError';
  override readonly code: string = 'DNS_ERR_NOT_AUTHORITATIVE';
}

/** A call that the object's state does not allow (adding to a started query set, ...). */
export class StateError extends DnsError {
  override name = 'StateError';
  override readonly code: string = 'DNS_ERR_STATE';
  override readonly definite = true;
}

/** A zone file is broken; the message names the file, the line and what is wrong. */
export class ZoneFileError extends InvalidArgumentError {
  override name = 'ZoneFileError';
  override readonly code: string = 'DNS_ERR_ZONE_FILE';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    // The file name may come from an $INCLUDE line: escaped and bounded like any token.
    super(`${escapeText(file, 256)}:${line}: ${reason}`);
  }
}

/**
 * The one way a cancelled call ends: the promise rejects with an AbortError, and nothing fires
 * for it afterwards. `cause` is the signal's reason.
 */
export class AbortError extends DnsError {
  override name = 'AbortError';
  override readonly code: string = 'ABORT_ERR';
  override readonly definite = true;
  constructor(message = 'The operation was aborted', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** True for an AbortError of ours or of the platform (DOMException named AbortError). */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
