/**
 * The chain of trust, walked from a stub (RFC 4035 section 5): for any name, the deepest zone
 * that holds it and what DNSSEC says about that zone. From the closest trust anchor down, one
 * label at a time: a DS RRset signed by the zone above makes the name a signed zone cut (its
 * DNSKEY RRset is then authenticated with the DS); a proven absence of DS at a delegation (NS
 * without SOA in the matching NSEC/NSEC3) makes it an insecure one; a proven absence elsewhere
 * keeps the name in the zone above. At most `maxZoneCuts` signed cuts below an anchor are
 * followed (ZoneCutLimitError beyond). Verdicts are kept for their TTL (bogus ones for
 * BOGUS_TTL_S) and a name is worked out once at a time: later questions join.
 */
import { Ede, StateError, isAbortError, type Clock, type Labels } from '@dnscore/core/plugin';
import { ZoneCutLimitError } from './errors.js';
import { BOGUS_TTL_S, MAX_VERDICT_TTL_S, UNANSWERED_TTL_S } from './defaults.js';
import { dsAbsence } from './ds-absence.js';
import { fqdn, keyOf, parentOf } from './names.js';
import { closestAnchor, negativeAnchorOf, type AnchorSet } from './trust-anchors.js';
import type { Fetched, Upstream } from './upstream.js';
import {
  DnssecType,
  ValidationBudget,
  ownerOf,
  verifyDnskeys,
  verifyRrset,
  type BudgetLimits,
  type Rr,
  type SignedRrset,
  type DenialOptions,
} from './validate/index.js';
import { VerifiedRrsets } from './verified-rrsets.js';
import type { ZoneVerdict } from './zone-verdict.js';

export interface ChainSettings {
  readonly anchors: AnchorSet;
  readonly upstream: Upstream;
  readonly clock: Clock;
  readonly clockSkewSeconds: number;
  readonly budget: BudgetLimits;
  /** NSEC3 iterations above which a denial is insecure (RFC 9276); the engine's default when undefined. */
  readonly maxNsec3Iterations?: number | undefined;
  /** Names whose verdict is kept at once. */
  readonly maxEntries: number;
  /** Signed zone cuts followed below a trust anchor (DEFAULT_MAX_ZONE_CUTS). */
  readonly maxZoneCuts: number;
  /** The backend's own signal: close() aborts the chain questions. */
  readonly signal: AbortSignal;
}

interface Kept {
  readonly verdict: ZoneVerdict;
  readonly expiresAt: number;
}

export class ChainOfTrust {
  readonly #settings: ChainSettings;
  readonly #kept = new Map<string, Kept>();
  readonly #pending = new Map<string, Promise<ZoneVerdict>>();
  /** Verdicts worked out (not taken from the cache), for tests. */
  computed = 0;
  /** RRsets verified with the keys of these verdicts, kept for warm questions. */
  readonly verified: VerifiedRrsets;

  constructor(settings: ChainSettings) {
    this.#settings = settings;
    this.verified = new VerifiedRrsets(settings.clock, settings.maxEntries);
  }

  /** Options of one engine call, with a fresh work allowance. */
  verifyOptions(budget = new ValidationBudget(this.#settings.budget)): DenialOptions {
    const { clock, clockSkewSeconds, maxNsec3Iterations } = this.#settings;
    return {
      clock,
      clockSkewSeconds,
      budget,
      verifier: (rrset, keys, zone, options) => this.verified.verify(rrset, keys, zone, options),
      ...(maxNsec3Iterations !== undefined ? { maxNsec3Iterations } : {}),
    };
  }

  /** True when a verdict on `name` is kept or being worked out. */
  known(name: Labels): boolean {
    const key = keyOf(name);
    const kept = this.#kept.get(key);
    return this.#pending.has(key) || (kept !== undefined && kept.expiresAt > this.#settings.clock.now());
  }

  /**
   * True when `name`'s kept verdict is secure at `maxZoneCuts` cuts: a signed cut below it is
   * beyond the bound, so its keys are not worth asking ahead.
   */
  atBound(name: Labels): boolean {
    const kept = this.#kept.get(keyOf(name));
    return kept?.verdict.status === 'secure' && kept.verdict.cuts >= this.#settings.maxZoneCuts;
  }

  /**
   * The deepest zone holding `name` (the name itself when it is a zone apex) and its verdict.
   * Never rejects for DNSSEC reasons (they are verdicts); rejects when the upstream gives no
   * answer, the backend is closed, or the zone lies beyond `maxZoneCuts` (ZoneCutLimitError).
   */
  zoneOf(name: Labels): Promise<ZoneVerdict> {
    const key = keyOf(name);
    const kept = this.#kept.get(key);
    if (kept) {
      if (kept.expiresAt > this.#settings.clock.now()) return Promise.resolve(kept.verdict);
      this.#kept.delete(key);
    }
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#work(name)
        .catch((error: unknown) => this.#unanswered(name, error))
        .then(
          (verdict) => {
            this.#pending.delete(key);
            this.#keep(key, verdict);
            return verdict;
          },
          (error: unknown) => {
            this.#pending.delete(key);
            throw error;
          },
        );
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** Forgets every verdict (after a change of anchors, or in tests). */
  clear(): void {
    this.#kept.clear();
  }

  /**
   * A chain question got no answer (timeout, network): the data cannot be proven, so it is
   * bogus, as libunbound says, never an error that would let an unvalidated backend answer in
   * this one's place. Kept briefly: the upstream may be back soon. Closing still rejects.
   */
  #unanswered(name: Labels, error: unknown): ZoneVerdict {
    if (this.#settings.signal.aborted || isAbortError(error) || error instanceof StateError) throw error;
    if (error instanceof ZoneCutLimitError) throw error;
    const why = `the chain of trust for ${fqdn(name)} could not be fetched: ${(error as Error).message}`;
    return { status: 'bogus', zone: name, why, ede: Ede.DNSSEC_BOGUS, ttl: UNANSWERED_TTL_S };
  }

  async #work(name: Labels): Promise<ZoneVerdict> {
    this.computed++;
    const { anchors } = this.#settings;
    const negative = negativeAnchorOf(anchors, name);
    if (negative) return insecure(negative, `${fqdn(negative)} is a negative trust anchor`);
    const anchor = closestAnchor(anchors, name);
    if (!anchor) return insecure(name, `no trust anchor covers ${fqdn(name)}`);
    if (anchor.length === name.length) return this.#anchored(anchor);
    const above = await this.zoneOf(parentOf(name));
    if (above.status !== 'secure') return above;
    return this.#cut(name, above);
  }

  /** A trust anchor's zone: its DNSKEY RRset authenticated by the anchors (DS or DNSKEY). */
  async #anchored(zone: Labels): Promise<ZoneVerdict> {
    const fetched = await this.#ask(zone, DnssecType.DNSKEY);
    const dnskeys = rrsetOf(fetched, zone, DnssecType.DNSKEY);
    const trusted: Rr[] = (this.#settings.anchors.byZone.get(keyOf(zone)) ?? []).map((anchor) => ({
      name: fqdn(anchor.zone),
      rrtype: anchor.type,
      class: 1,
      ttl: MAX_VERDICT_TTL_S,
      rdata: anchor.rdata,
    }));
    const verdict = verifyDnskeys(dnskeys, zone, trusted, this.verifyOptions());
    if (verdict.status === 'secure' && verdict.keys) {
      return { status: 'secure', zone, keys: verdict.keys, ttl: verdict.ttl ?? 0, cuts: 0 };
    }
    if (verdict.status === 'insecure') return insecure(zone, verdict.whyInsecure ?? `${fqdn(zone)}: insecure`);
    return bogus(zone, `trust anchor ${fqdn(zone)}: ${verdict.whyBogus ?? 'DNSKEY not validated'}`, verdict.ede);
  }

  /** `name` one label below the secure zone `above`: a signed cut, an insecure one, or no cut. */
  async #cut(name: Labels, above: Extract<ZoneVerdict, { status: 'secure' }>): Promise<ZoneVerdict> {
    const options = this.verifyOptions();
    const fetched = await this.#ask(name, DnssecType.DS);
    const ds = rrsetOf(fetched, name, DnssecType.DS);
    if (ds.records.length > 0) {
      // Checked before any signature: a cut beyond the bound costs no more work.
      if (above.cuts >= this.#settings.maxZoneCuts) throw this.#tooDeep(name);
      const dsVerdict = verifyRrset(ds, above.keys, above.zone, options);
      if (dsVerdict.status !== 'secure') {
        return bogus(name, `DS of ${fqdn(name)}: ${dsVerdict.whyBogus ?? 'not validated'}`, dsVerdict.ede);
      }
      const dnskeys = rrsetOf(await this.#ask(name, DnssecType.DNSKEY), name, DnssecType.DNSKEY);
      const keys = verifyDnskeys(dnskeys, name, ds.records, options);
      if (keys.status === 'secure' && keys.keys) {
        const ttl = Math.min(dsVerdict.ttl ?? 0, keys.ttl ?? 0);
        return { status: 'secure', zone: name, keys: keys.keys, ttl, cuts: above.cuts + 1 };
      }
      if (keys.status === 'insecure') return insecure(name, keys.whyInsecure ?? `${fqdn(name)}: insecure`);
      return bogus(name, keys.whyBogus ?? `DNSKEY of ${fqdn(name)} not validated`, keys.ede);
    }
    const absence = dsAbsence(name, fetched, above, options);
    switch (absence.kind) {
      case 'insecure-delegation':
        return insecure(name, absence.why, absence.ttl);
      case 'no-cut':
        return { ...above, ttl: Math.min(above.ttl, absence.ttl) };
      case 'bogus':
        return bogus(name, absence.why, absence.ede);
    }
  }

  #tooDeep(name: Labels): ZoneCutLimitError {
    const anchor = closestAnchor(this.#settings.anchors, name);
    return new ZoneCutLimitError(fqdn(name), anchor ? fqdn(anchor) : '.', this.#settings.maxZoneCuts);
  }

  #ask(name: Labels, type: number): Promise<Fetched> {
    return this.#settings.upstream.chain(name, type, this.#settings.signal);
  }

  #keep(key: string, verdict: ZoneVerdict): void {
    const ttl = Math.min(verdict.ttl, verdict.status === 'bogus' ? BOGUS_TTL_S : MAX_VERDICT_TTL_S);
    if (ttl <= 0) return;
    if (this.#kept.size >= this.#settings.maxEntries) {
      const oldest = this.#kept.keys().next().value;
      if (oldest !== undefined) this.#kept.delete(oldest);
    }
    this.#kept.set(key, { verdict, expiresAt: this.#settings.clock.now() + ttl * 1000 });
  }
}

/** The RRset `name`/`type` of the answer section (empty when absent). */
export function rrsetOf(fetched: Fetched, name: Labels, type: number): SignedRrset {
  const key = keyOf(name);
  const found = fetched.answerSets.find((set) => {
    const first = set.records[0] ?? set.rrsigs[0];
    return first !== undefined && setType(set) === type && keyOf(ownerOf(first)) === key;
  });
  return found ?? { records: [], rrsigs: [] };
}

function setType(set: SignedRrset): number | undefined {
  const first = set.records[0];
  if (first) return first.rrtype;
  const sig = set.rrsigs[0];
  return sig && sig.rdata.length >= 2 ? (sig.rdata[0]! << 8) | sig.rdata[1]! : undefined;
}

function insecure(zone: Labels, why: string, ttl = MAX_VERDICT_TTL_S): ZoneVerdict {
  return { status: 'insecure', zone, why, ttl };
}

function bogus(zone: Labels, why: string, ede: number = Ede.DNSSEC_BOGUS): ZoneVerdict {
  return { status: 'bogus', zone, why, ede, ttl: BOGUS_TTL_S };
}
