/**
 * Errors of @dnscore/sip. Each extends the core's DnsError (or InvalidArgumentError for bad
 * input) and has a stable `code`: match on the code, not on the message.
 */
import { DnsError, InvalidArgumentError, escapeText, quoteText } from '@dnscore/core';
import type { SipTransport } from './transport.js';

/** Base of the errors that end a SIP resolution or a failover walk. */
export class SipError extends DnsError {
  override name = 'SipError';
  override readonly code: string = 'SIP_ERR';
  override readonly definite = true;
}

/** Characters of a bad URI shown in its error: more than the parser keeps of one (200). */
const MAX_QUOTED_URI = 256;
/** Characters of its reason shown: a reason may quote a part of the URI. */
const MAX_SHOWN_REASON = 512;

/** The text is not a SIP or SIPS URI of RFC 3261's grammar; `position` is where it breaks. */
export class InvalidSipUriError extends InvalidArgumentError {
  override name = 'InvalidSipUriError';
  override readonly code = 'SIP_ERR_INVALID_URI';
  constructor(
    readonly uri: string,
    readonly reason: string,
    readonly position?: number,
  ) {
    // Both quote the URI, which may come from the network: control characters are escaped.
    const shown = `${quoteText(uri, MAX_QUOTED_URI)}: ${escapeText(reason, MAX_SHOWN_REASON)}`;
    super(`invalid SIP URI ${shown}${position === undefined ? '' : ` (at offset ${position})`}`);
  }
}

/** A sips: URI while the client has no TLS: SIPS needs TLS on every hop (RFC 3261 section 26.2.1). */
export class SipsWithoutTlsError extends SipError {
  override name = 'SipsWithoutTlsError';
  override readonly code = 'SIP_ERR_SIPS_WITHOUT_TLS';
}

/** The URI's transport parameter names a transport the client does not support (or sips with udp). */
export class UnsupportedTransportError extends SipError {
  override name = 'UnsupportedTransportError';
  override readonly code = 'SIP_ERR_UNSUPPORTED_TRANSPORT';
  constructor(
    message: string,
    /** The transport parameter as written, lowercased. */
    readonly transport: string,
  ) {
    super(message);
  }
}

/** The URI's host is an IP literal of a family the client has turned off. */
export class AddressFamilyError extends SipError {
  override name = 'AddressFamilyError';
  override readonly code = 'SIP_ERR_ADDRESS_FAMILY';
}

/**
 * A DNSSEC-bogus answer was needed to build the targets. The resolution fails: no target is
 * made from it, and no other data stands in for that name (that would downgrade DNSSEC).
 */
export class BogusAnswerError extends SipError {
  override name = 'BogusAnswerError';
  override readonly code = 'SIP_ERR_BOGUS';
  constructor(
    readonly qname: string,
    readonly qtype: string,
    readonly whyBogus: string,
  ) {
    super(`the ${qtype} answer for ${qname} is DNSSEC-bogus (${whyBogus}): no targets are made from it`);
  }
}

/**
 * The DNSSEC policy 'require' dropped every target: each rests on an answer DNSSEC did not
 * validate secure. `links` names the first such answer of each dropped target.
 */
export class InsecureTargetsError extends SipError {
  override name = 'InsecureTargetsError';
  override readonly code = 'SIP_ERR_INSECURE';
  constructor(
    message: string,
    readonly links: readonly string[],
  ) {
    super(message);
  }
}

/** Resolution found no target; the message says why and `dnsErrors` holds the failed queries. */
export class NoTargetsError extends SipError {
  override name = 'NoTargetsError';
  override readonly code = 'SIP_ERR_NO_TARGETS';
  constructor(
    message: string,
    /** Queries that obtained no answer at all (timeouts, network errors). */
    readonly dnsErrors: readonly Error[] = [],
    /** Answers that were SERVFAIL, taken as no records: the server failed, rather than said "none". */
    readonly servfails = 0,
  ) {
    super(message);
  }
}

/** Every target was tried and none succeeded. */
export class TargetsExhaustedError extends SipError {
  override name = 'TargetsExhaustedError';
  override readonly code = 'SIP_ERR_TARGETS_EXHAUSTED';
  constructor(
    message: string,
    /** How many targets were tried. */
    readonly tries: number,
  ) {
    super(message);
  }
}

/**
 * The request's transaction bound (Timer B/F, `transactionTimeoutMs`) ran out before a target
 * answered: failover stops there, however many targets are left (RFC 3261 sections 17.1.1.2
 * and 17.1.2.2: the transaction has timed out).
 */
export class TransactionTimeoutError extends SipError {
  override name = 'TransactionTimeoutError';
  override readonly code = 'SIP_ERR_TRANSACTION_TIMEOUT';
  constructor(
    message: string,
    /** How many targets were tried. */
    readonly tries: number,
    /** The bound that ran out, ms. */
    readonly timeoutMs: number,
  ) {
    super(message);
  }
}

/**
 * A request over the UDP size limit while the client cannot use TCP: RFC 3261 section 18.1.1
 * says it MUST go over a congestion-controlled transport, so it is refused rather than sent.
 */
export class RequestTooLargeError extends SipError {
  override name = 'RequestTooLargeError';
  override readonly code = 'SIP_ERR_REQUEST_TOO_LARGE';
  constructor(
    message: string,
    readonly size: number,
    readonly transport: SipTransport,
  ) {
    super(message);
  }
}

/** A question the resolution's DNS budget (queries or time) refused or cut short. */
export class QueryBudgetError extends SipError {
  override name = 'QueryBudgetError';
  override readonly code = 'SIP_ERR_QUERY_BUDGET';
  constructor(
    readonly reason: string,
    readonly qname: string,
  ) {
    super(qname ? `${qname} not asked: ${reason}` : reason);
  }
}
