/**
 * RRsets already verified, so a warm question does not check the same signature again (the
 * signature is most of a warm question's CPU). An entry is the exact RRset and RRSIGs (SHA-256
 * of owner, type, every RDATA and every RRSIG, each field's extent unambiguous) under the exact
 * zone keys it was checked with (the key set object a zone verdict holds: a new verdict, a new
 * key set), kept until the verdict's TTL runs out (never past the signature's expiration, RFC
 * 4035 section 5.3.3).
 */
import * as crypto from 'node:crypto';
import type { Clock, Labels } from '@dnscore/core/plugin';
import { keyOf } from './names.js';
import { octetText } from './octet-text.js';
import {
  verifyRrset,
  type RrsetVerdict,
  type SignedRrset,
  type VerifyOptions,
  type ZoneKey,
} from './validate/index.js';

interface Kept {
  readonly verdict: RrsetVerdict;
  readonly expiresAt: number;
}

export class VerifiedRrsets {
  readonly #kept = new Map<string, Kept>();
  readonly #keySets = new WeakMap<readonly ZoneKey[], number>();
  #nextKeySet = 1;
  /** Verdicts taken from here instead of verifying again. */
  hits = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries: number,
  ) {}

  /** verifyRrset(), or its secure verdict kept from an earlier identical call. */
  verify(rrset: SignedRrset, keys: readonly ZoneKey[], zone: Labels, options: VerifyOptions): RrsetVerdict {
    const key = `${this.#keySetId(keys)}/${keyOf(zone)}/${digest(rrset)}`;
    const now = this.clock.now();
    const kept = this.#kept.get(key);
    if (kept && kept.expiresAt > now) {
      this.hits++;
      return kept.verdict;
    }
    const verdict = verifyRrset(rrset, keys, zone, options);
    if (verdict.status === 'secure' && (verdict.ttl ?? 0) > 0) {
      if (this.#kept.size >= this.maxEntries) {
        const oldest = this.#kept.keys().next().value;
        if (oldest !== undefined) this.#kept.delete(oldest);
      }
      this.#kept.set(key, { verdict, expiresAt: now + verdict.ttl! * 1000 });
    }
    return verdict;
  }

  #keySetId(keys: readonly ZoneKey[]): number {
    let id = this.#keySets.get(keys);
    if (id === undefined) {
      id = this.#nextKeySet++;
      this.#keySets.set(keys, id);
    }
    return id;
  }
}

/** crypto.hash (Node 20.12 and later): one call and no Hash object; createHash where it is missing. */
const hashOnce = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64') => string }).hash;

function digest(rrset: SignedRrset): string {
  // Each record as "ownerLength:owner/type/class/length/" then its RDATA, one character per
  // octet: a text no other RRset gives, hashed in one call. Both lengths are needed: an owner
  // may hold "/" (it is no special character in a name), so without its length an owner could
  // end where another RRset's fields and RDATA go on, and the RDATA's says where it ends.
  let text = '';
  for (const record of [...rrset.records, ...rrset.rrsigs]) {
    const owner = record.name.toLowerCase();
    const head = `${owner.length}:${owner}/${record.rrtype}/${record.class}/${record.rdata.length}/`;
    text += head + octetText(record.rdata);
  }
  return hashOnce ? hashOnce('sha256', text, 'base64') : crypto.createHash('sha256').update(text).digest('base64');
}
