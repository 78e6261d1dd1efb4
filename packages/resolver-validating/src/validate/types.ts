/**
 * The values the validator engine takes and returns. Records are core's RecordBase (owner,
 * type, class, TTL, RDATA); the engine reads the DNSSEC types' RDATA itself.
 */
import type { RecordBase } from '@dnscore/core';
import type { Clock, DnssecStatus } from '@dnscore/core/plugin';

/**
 * One resource record as the engine reads it: core's RecordBase. `rdata` must hold its
 * domain names uncompressed; `uncompressedRecord()` makes such a record from a packet.
 */
export type Rr = RecordBase;

/** A verdict: RFC 4035 section 4.3's states with core's names, the reason and the EDE code. */
export interface Verdict {
  readonly status: DnssecStatus;
  /** Why the data is bogus (bogus only). */
  readonly whyBogus?: string;
  /** Why the data could not be validated (insecure only, when there is more to say than "unsigned"). */
  readonly whyInsecure?: string;
  /** Extended DNS Error INFO-CODE (RFC 8914), core's `Ede` numbers. */
  readonly ede?: number;
}

/** An RRset (same owner, class and type) with the RRSIGs that cover it. */
export interface SignedRrset {
  readonly records: readonly Rr[];
  readonly rrsigs: readonly Rr[];
}

/** Options every check that reads the time takes. */
export interface TimeOptions {
  /** Where "now" comes from (milliseconds since the epoch). */
  readonly clock: Clock;
  /** Seconds a signature may be early or late (clocks disagree); default DEFAULT_CLOCK_SKEW_SECONDS. */
  readonly clockSkewSeconds?: number;
}
