/**
 * What a resolver plugin hands the core (Asterisk's ast_dns_resolver_set_result, as a value):
 * flags, rcode, canonical name, the raw answer.
 */
import type { ServerAttempt } from './server-attempts.js';

export interface PluginAnswer {
  readonly rcode: number;
  readonly secure?: boolean;
  readonly bogus?: boolean;
  /** Why validation failed, when bogus. */
  readonly whyBogus?: string;
  /** Extended DNS Error INFO-CODE (RFC 8914) for the failure, when bogus (default 6, DNSSEC Bogus). */
  readonly ede?: number;
  /**
   * A secure answer whose additional-section A and AAAA RRsets were validated too
   * (resolver-validating checks them; libunbound drops the ones that fail while
   * val-clean-additional is on): they may stand in for their own questions. Default false.
   */
  readonly additionalSecure?: boolean;
  /** End of the CNAME chain; derived from the answer packet when left out. */
  readonly canonical?: string;
  /** The raw answer packet (may be empty, e.g. for an NXDOMAIN without one). */
  readonly answer?: Uint8Array;
  /** Seconds the answer spent in a cache: subtracted from every TTL. */
  readonly age?: number;
  /**
   * An expired answer served because the backend failed (RFC 8767): every TTL becomes STALE_TTL.
   * The registry asks the plugins after this one first and uses it only if none of them answers.
   */
  readonly stale?: boolean;
  /** The servers asked, in order; set only while the `dnscore:query` trace has subscribers. */
  readonly servers?: readonly ServerAttempt[];
}
