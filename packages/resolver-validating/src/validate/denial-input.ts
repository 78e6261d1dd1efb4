/**
 * What a denial proof works from: the NSEC or NSEC3 RRsets of a response, verified with the
 * zone's keys only when a proof uses them (a proof never stands on an unverified record), and
 * the verdict of the first one that fails to verify.
 */
import { type Labels, parseName } from '@dnscore/core/plugin';
import { isAtOrBelow } from './canonical-name.js';
import { ownerOf } from './owner.js';
import { DnssecType } from './rdata.js';
import { bogus } from './result.js';
import type { SignedRrset, Verdict } from './types.js';
import { type RrsetVerdict, type VerifyOptions, type ZoneKey, verifyRrset } from './verify-rrset.js';

/** RFC 9276 section 3.2: above 100 iterations, validators may treat NSEC3 as insecure. */
export const DEFAULT_MAX_NSEC3_ITERATIONS = 100;

export interface DenialOptions extends VerifyOptions {
  /** NSEC3 iterations above this make a proof insecure (RFC 9276, EDE 27); default 100. */
  readonly maxNsec3Iterations?: number;
  /**
   * verifyRrset, or one that hands back a secure verdict kept from an identical earlier call
   * (same RRset, RRSIGs, keys and zone): an NSEC that denies several questions is checked once.
   */
  readonly verifier?: (
    rrset: SignedRrset,
    keys: readonly ZoneKey[],
    zone: Labels,
    options: VerifyOptions,
  ) => RrsetVerdict;
}

/** A denial proof's verdict, with what a secure one establishes. */
export interface DenialVerdict extends Verdict {
  /** Secure only: the lowest TTL of the verified NSEC/NSEC3 records used (cap a negative answer's lifetime). */
  readonly ttl?: number;
  /**
   * Secure NODATA only, when an NSEC/NSEC3 record owned by (the hash of) the name asked proved
   * it: that record's verified type bitmap. For qtype DS, NS without SOA here means an insecure
   * delegation; no bitmap (an empty non-terminal, a wildcard) or one with SOA means no zone cut.
   */
  readonly types?: ReadonlySet<number>;
}

/** A denial question: what does not exist, in which zone, with which records and keys. */
export interface DenialInput {
  /** The name asked (or, for a wildcard answer, its owner). */
  readonly qname: Labels | string;
  readonly qtype: number;
  /** The zone whose NSEC/NSEC3 records deny it (their RRSIG signer). */
  readonly zone: Labels | string;
  /** The RRsets of the authority section (others than NSEC/NSEC3 are left alone). */
  readonly rrsets: readonly SignedRrset[];
  /** The zone's validated keys (DnskeyVerdict.keys). */
  readonly keys: readonly ZoneKey[];
}

/** An NSEC or NSEC3 RRset of the zone that a proof may use once `verified()` says so. */
export class ProofRecords {
  readonly qname: Labels;
  readonly zone: Labels;
  readonly nsec: SignedRrset[] = [];
  readonly nsec3: SignedRrset[] = [];
  /** The first failed verification of a record a proof needed. */
  failure: Verdict | undefined;
  /** The lowest TTL (RFC 4035 section 5.3.3) of the verified records the proof looked at. */
  ttl: number | undefined;
  /** NODATA: the verified type bitmap of the NSEC/NSEC3 record that matches the name asked. */
  matchedTypes: ReadonlySet<number> | undefined;
  private readonly checked = new Map<SignedRrset, boolean>();

  constructor(
    readonly input: DenialInput,
    readonly options: DenialOptions,
  ) {
    this.qname = typeof input.qname === 'string' ? parseName(input.qname) : input.qname;
    this.zone = typeof input.zone === 'string' ? parseName(input.zone) : input.zone;
    for (const rrset of input.rrsets) {
      const first = rrset.records[0];
      if (!first || !isAtOrBelow(ownerOf(first), this.zone)) continue;
      if (first.rrtype === DnssecType.NSEC) this.nsec.push(rrset);
      else if (first.rrtype === DnssecType.NSEC3) this.nsec3.push(rrset);
    }
  }

  /** True when the RRset's signatures verify with the zone keys; records the first failure. */
  verified(rrset: SignedRrset): boolean {
    const known = this.checked.get(rrset);
    if (known !== undefined) return known;
    const verdict = (this.options.verifier ?? verifyRrset)(rrset, this.input.keys, this.zone, this.options);
    const ok = verdict.status === 'secure' && verdict.wildcard === undefined;
    if (ok && verdict.ttl !== undefined) this.ttl = Math.min(this.ttl ?? verdict.ttl, verdict.ttl);
    if (!ok && !this.failure)
      this.failure =
        verdict.status === 'secure'
          ? bogus(`${rrset.records[0]!.name}: a denial record from a wildcard expansion`)
          : verdict;
    this.checked.set(rrset, ok);
    return ok;
  }
}
