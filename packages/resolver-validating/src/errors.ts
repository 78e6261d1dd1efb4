/**
 * Errors of the validating backend. An error means no answer was obtained; a bogus answer is a
 * result (bogus, whyBogus, EDE), never an error.
 */
import { DnsError, InvalidArgumentError } from '@dnscore/core/plugin';

/** An option is invalid; `option` names it as the caller wrote it. */
export class ValidatingOptionError extends InvalidArgumentError {
  override name = 'ValidatingOptionError';
  override readonly code = 'DNS_ERR_VALIDATING_OPTION';
  constructor(
    readonly option: string,
    readonly reason: string,
  ) {
    super(`validating resolver option ${option}: ${reason}`);
  }
}

/**
 * The upstream nameservers cannot be used for validation: they strip the DNSSEC records (no
 * RRSIG with the trust anchor's DNSKEY), or do not answer. `reason` says which.
 */
export class UpstreamNotValidatingError extends DnsError {
  override name = 'UpstreamNotValidatingError';
  override readonly code = 'DNS_ERR_UPSTREAM_STRIPS_DNSSEC';
  /** Definite when validation was asked for (trust anchors, requireSecure): no other backend may answer. */
  override readonly definite: boolean;
  constructor(
    readonly reason: string,
    definite = false,
  ) {
    super(`the validating resolver cannot validate: ${reason}`);
    this.definite = definite;
  }
}

/**
 * The chain of trust to a name holds more signed zone cuts below its trust anchor than
 * `maxZoneCuts`: no answer, and definite, so that no unvalidated backend answers in its place.
 * `name` is the zone cut beyond the bound, `anchor` the trust anchor the walk started from.
 */
export class ZoneCutLimitError extends DnsError {
  override name = 'ZoneCutLimitError';
  override readonly code = 'DNS_ERR_ZONE_CUT_LIMIT';
  override readonly definite = true;
  constructor(
    readonly zone: string,
    readonly anchor: string,
    readonly limit: number,
  ) {
    super(
      `the chain of trust to ${zone} has more than ${limit} signed zone cuts below the trust anchor ${anchor} ` +
        '(maxZoneCuts): a tree that deep is hostile or broken, so it is not followed',
    );
  }
}

/**
 * With `requireSecure`, an answer that DNSSEC did not validate (RFC 4035 section 4.3
 * "insecure"). Definite: a non-validating backend asked instead would defeat the option.
 */
export class InsecureAnswerError extends DnsError {
  override name = 'InsecureAnswerError';
  override readonly code = 'DNS_ERR_INSECURE';
  override readonly definite = true;
}
