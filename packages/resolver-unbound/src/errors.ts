/**
 * Errors of the libunbound backend. Each has a stable `code`; an error means no answer was
 * obtained (bogus answers are results). Only InsecureAnswerError and the option errors are
 * definite: the registry never asks another backend after them.
 */
import { DnsError, InvalidArgumentError } from '@dnscore/core/plugin';

/** An option is invalid; `option` names it (as in UnboundOptions), with libunbound's words when it refused it. */
export class UnboundOptionError extends InvalidArgumentError {
  override name = 'UnboundOptionError';
  override readonly code = 'DNS_ERR_UNBOUND_OPTION';
  constructor(
    /** The option as the caller wrote it: "trustAnchors[0]", "options[\"val-override-date\"]". */
    readonly option: string,
    readonly reason: string,
    /** libunbound's message ("libunbound: syntax error (-3)"), when libunbound refused it. */
    readonly libunboundMessage?: string,
  ) {
    super(`unbound option ${option}: ${reason}${libunboundMessage ? ` (${libunboundMessage})` : ''}`);
  }
}

/** libunbound returned no result (ub_resolve failed); the message is libunbound's. */
export class UnboundResolveError extends DnsError {
  override name = 'UnboundResolveError';
  override readonly code = 'DNS_ERR_UNBOUND';
  constructor(
    message: string,
    /** libunbound's message, e.g. "libunbound: initialization failure (-7)". */
    readonly libunboundMessage: string,
    /** libunbound's error number (UB_INITFAIL = -7, ...), when the message carries it. */
    readonly libunboundCode: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The `unbound` binding did not load; `reason` says why. Another backend may answer. */
export class UnboundUnavailableError extends DnsError {
  override name = 'UnboundUnavailableError';
  override readonly code = 'DNS_ERR_UNBOUND_UNAVAILABLE';
  constructor(readonly reason: string) {
    super(`libunbound is unavailable: ${reason}`);
  }
}

/**
 * With `requireSecure`, an answer that DNSSEC did not validate (RFC 4035 section 4.3
 * "insecure"). Definite: asking a non-validating backend instead would defeat the option.
 */
export class InsecureAnswerError extends DnsError {
  override name = 'InsecureAnswerError';
  override readonly code = 'DNS_ERR_INSECURE_ANSWER';
  override readonly definite = true;
}
