/**
 * How long a validated answer holds. Each RRset's TTL is bounded by its RRSIGs (RFC 4035
 * section 5.3.3: the RRSIG's original TTL and the time left to its expiration) and an SOA's by
 * its MINIMUM (RFC 2308 section 5); the answer as a whole holds as long as the shortest RRset
 * of the messages it was validated from, proofs included (unbound's message cache does the same).
 * A CNAME a DNAME synthesizes is unsigned (RFC 6672 section 5.3.1) and takes its DNAME's TTL
 * (section 3.2): it is bounded by the DNAME's bound, not by the TTL the message gave it.
 */
import type { Rr, SignedRrset } from './validate/index.js';
import { DnssecType, groupRrsets, ownerOf } from './validate/index.js';
import { isAtOrBelow } from './names.js';
import { checkWindow, serialDiff } from './validate/time.js';
import type { Fetched } from './upstream.js';

export interface Bounded {
  /** The messages with every record's TTL at most its RRset's bound and `cap`. */
  readonly messages: readonly Fetched[];
  /** Whole seconds the answer holds from now: the lowest bound of all RRsets, at most `cap`; 0 without any RRset. */
  readonly lifetime: number;
}

/**
 * `messages` with their TTLs bounded, and the answer's lifetime. `nowMs` is the clock's time;
 * `skewS` the slack the signatures were checked with (an RRSIG outside its window, slack
 * included, cannot be the one that validated, so it bounds nothing).
 */
export function boundTtls(messages: readonly Fetched[], nowMs: number, skewS: number, cap: number): Bounded {
  // Seconds rounded up: the lifetime, counted from nowMs, never reaches past an expiration.
  const now = Math.ceil(nowMs / 1000) >>> 0;
  let lifetime = Number.POSITIVE_INFINITY;
  const bounded = messages.map((fetched) => {
    // Most records are within their bounds already: the message is copied only when one is not.
    let over: Map<Rr, number> | undefined;
    const lower = (record: Rr, bound: number): void => {
      if (record.ttl <= bound) return;
      over ??= new Map();
      over.set(record, bound);
    };
    const dnames = fetched.answerSets.filter((set) => set.records[0]?.rrtype === DnssecType.DNAME);
    const visit = (sets: readonly SignedRrset[]): void => {
      for (const set of sets) {
        const bound = Math.min(cap, rrsetBound(set, now, skewS), synthesizedBound(set, dnames, now, skewS));
        lifetime = Math.min(lifetime, bound);
        for (const record of set.records) lower(record, bound);
        for (const record of set.rrsigs) lower(record, bound);
      }
    };
    visit(fetched.answerSets);
    visit(fetched.authoritySets);
    if (fetched.additional.length > 0) visit(groupRrsets(fetched.additional));
    if (!over) return fetched;
    const lowered = over;
    const clamp = (records: readonly Rr[]): readonly Rr[] =>
      records.map((r) => {
        const bound = lowered.get(r);
        return bound === undefined ? r : Object.freeze({ ...r, ttl: bound });
      });
    return {
      ...fetched,
      answer: clamp(fetched.answer),
      authority: clamp(fetched.authority),
      additional: clamp(fetched.additional),
    };
  });
  return { messages: bounded, lifetime: Number.isFinite(lifetime) ? Math.max(0, lifetime) : 0 };
}

/**
 * For an unsigned CNAME below the owner of a DNAME of the same section, the DNAME's bound (the
 * lowest, should there be several); for any other RRset, no bound.
 */
function synthesizedBound(set: SignedRrset, dnames: readonly SignedRrset[], now: number, skewS: number): number {
  const first = set.records[0];
  if (first?.rrtype !== DnssecType.CNAME || set.rrsigs.length > 0) return Number.POSITIVE_INFINITY;
  const owner = ownerOf(first);
  let bound = Number.POSITIVE_INFINITY;
  for (const dname of dnames) {
    const dnameOwner = ownerOf(dname.records[0]!);
    if (owner.length > dnameOwner.length && isAtOrBelow(owner, dnameOwner)) {
      bound = Math.min(bound, rrsetBound(dname, now, skewS));
    }
  }
  return bound;
}

/**
 * The lowest TTL of the RRset (an SOA's MINIMUM counted), each RRSIG in its validity window
 * bounding it further by its own TTL, its original TTL and the seconds to its expiration.
 */
function rrsetBound(set: SignedRrset, now: number, skewS: number): number {
  let bound = Number.POSITIVE_INFINITY;
  for (const record of set.records) {
    bound = Math.min(bound, ttlOf(record));
    if (record.rrtype === DnssecType.SOA && record.rdata.length >= 4) bound = Math.min(bound, u32(record.rdata, -4));
  }
  for (const rrsig of set.rrsigs) {
    // Type covered 2, algorithm 1, labels 1, then original TTL, expiration, inception (RFC 4034 3.1).
    if (rrsig.rdata.length < 16) continue;
    const originalTtl = u32(rrsig.rdata, 4);
    const expiration = u32(rrsig.rdata, 8);
    const inception = u32(rrsig.rdata, 12);
    if (checkWindow(inception, expiration, now, skewS) !== 'valid') continue;
    bound = Math.min(bound, ttlOf(rrsig), originalTtl, Math.max(0, serialDiff(expiration, now)));
  }
  return Number.isFinite(bound) ? bound : 0;
}

/** RFC 2181 section 8: a TTL with the top bit set is 0. */
function ttlOf(record: Rr): number {
  return record.ttl > 0x7fffffff || record.ttl < 0 ? 0 : record.ttl;
}

/** The unsigned 32-bit number at `offset` (from the end when negative). */
function u32(bytes: Uint8Array, offset: number): number {
  const at = offset < 0 ? bytes.length + offset : offset;
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}
