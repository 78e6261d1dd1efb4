/**
 * Checking an RRset's signatures against a zone's DNSKEYs (RFC 4035 section 5.3): each RRSIG's
 * fields (section 5.3.1), the signed data rebuilt in canonical form (5.3.2), the signature
 * (5.3.3), a wildcard expansion told by the labels field (5.3.4). One valid signature is
 * enough (RFC 6840 section 5.11). The tries are bounded (KeyTrap): per RRset and per question.
 */
import { Ede, type Labels, formatName, parseName, typeName } from '@dnscore/core/plugin';
import { ownerOf } from './owner.js';
import { algorithmName, isSupportedAlgorithm, publicKey, verifySignature } from './algorithms.js';
import type { ValidationBudget } from './budget.js';
import { signedData } from './canonical-rrset.js';
import { ancestor, isAtOrBelow, isWildcard, namesEqual, wildcardOf } from './canonical-name.js';
import { keyTag } from './key-tag.js';
import {
  DnskeyFlag,
  DnssecType,
  type DnskeyData,
  RdataFormatError,
  type RrsigData,
  parseDnskey,
  parseRrsig,
} from './rdata.js';
import { SECURE, bogus } from './result.js';
import { checkWindow, nowAndSkew, serialDiff } from './time.js';
import type { Rr, SignedRrset, TimeOptions, Verdict } from './types.js';

export interface VerifyOptions extends TimeOptions {
  /** The question's work allowance; every signature tried spends one. */
  readonly budget: ValidationBudget;
}

/** A verdict on one RRset, with what a secure one tells the caller. */
export interface RrsetVerdict extends Verdict {
  /** Secure only: seconds the RRset may be kept (RFC 4035 section 5.3.3): TTLs, original TTL, expiration. */
  readonly ttl?: number;
  /** Secure only: the RRSIG that verified. */
  readonly rrsig?: RrsigData;
  /**
   * Secure only, for an answer synthesized from a wildcard (RRSIG labels below the owner's
   * count, RFC 4035 section 5.3.4): the wildcard that produced it ("*.<closest encloser>").
   * The caller must still prove that the owner name itself does not exist (proveWildcardAnswer).
   */
  readonly wildcard?: Labels;
}

/** A zone's DNSKEY with its parsed fields and key tag. */
export interface ZoneKey {
  readonly record: Rr;
  readonly data: DnskeyData;
  readonly tag: number;
}

/** Parses DNSKEY records into ZoneKeys, leaving out malformed ones. */
export function zoneKeys(dnskeys: readonly Rr[]): ZoneKey[] {
  const keys: ZoneKey[] = [];
  for (const record of dnskeys) {
    if (record.rrtype !== DnssecType.DNSKEY) continue;
    try {
      keys.push({ record, data: parseDnskey(record.rdata), tag: keyTag(record.rdata) });
    } catch (error) {
      if (!(error instanceof RdataFormatError)) throw error;
    }
  }
  return keys;
}

/** Failures ranked: a verdict names the one that got furthest (a bad signature before a missing key). */
const RANK = {
  malformed: 0,
  mismatch: 1,
  unsupported: 2,
  'no-key': 3,
  'no-zone-key': 4,
  'not-yet-valid': 5,
  expired: 6,
  inverted: 6,
  'bad-signature': 7,
  budget: 8,
} as const;
type Failure = keyof typeof RANK;

const EDE_OF: Readonly<Record<Failure, number>> = {
  malformed: Ede.DNSSEC_BOGUS,
  mismatch: Ede.DNSSEC_BOGUS,
  unsupported: Ede.UNSUPPORTED_DNSKEY_ALGORITHM,
  'no-key': Ede.DNSKEY_MISSING,
  'no-zone-key': Ede.NO_ZONE_KEY_BIT_SET,
  'not-yet-valid': Ede.SIGNATURE_NOT_YET_VALID,
  expired: Ede.SIGNATURE_EXPIRED,
  inverted: 25, // Signature Expired before Valid
  'bad-signature': Ede.DNSSEC_BOGUS,
  budget: Ede.DNSSEC_BOGUS,
};

/**
 * Verifies `rrset` with the DNSKEYs `keys` of `zone` (already validated by the caller, or the
 * DNSKEY RRset itself when checking its self-signature). `keyFilter` narrows the keys that may
 * sign (the DS-matched ones for a DNSKEY RRset). Never throws on hostile data: malformed
 * records make the verdict bogus.
 */
export function verifyRrset(
  rrset: SignedRrset,
  keys: readonly ZoneKey[],
  zone: Labels | string,
  options: VerifyOptions,
  keyFilter?: (key: ZoneKey) => boolean,
): RrsetVerdict {
  const first = rrset.records[0];
  if (!first) return bogus('an empty RRset cannot be validated');
  const owner = ownerOf(first);
  const zoneLabels = typeof zone === 'string' ? parseName(zone) : zone;
  for (const record of rrset.records) {
    // The same owner text is the same name: compared as labels only when it is written differently.
    const sameOwner = record.name === first.name || namesEqual(ownerOf(record), owner);
    if (record.rrtype !== first.rrtype || record.class !== first.class || !sameOwner) {
      return bogus(
        `records of ${first.name} type ${first.rrtype} and ${record.name} type ${record.rrtype} are not one RRset`,
      );
    }
  }
  const what = `${first.name} ${typeName(first.rrtype)}`;
  if (rrset.rrsigs.length === 0) return bogus(`${what}: no RRSIG`, Ede.RRSIGS_MISSING);

  // The keys that may sign at all, found once: a flood of RRSIGs must not rescan a flood of keys.
  const usable = keys.filter(
    (key) => namesEqual(ownerOf(key.record), zoneLabels) && (keyFilter === undefined || keyFilter(key)),
  );
  const { now, skew } = nowAndSkew(options);
  const budget = options.budget;
  let tries = 0;
  let worst: { failure: Failure; why: string } | undefined;
  const fail = (failure: Failure, why: string): void => {
    if (!worst || RANK[failure] > RANK[worst.failure]) worst = { failure, why };
  };

  for (const sigRecord of rrset.rrsigs) {
    let rrsig: RrsigData;
    try {
      rrsig = parseRrsig(sigRecord.rdata);
    } catch (error) {
      if (!(error instanceof RdataFormatError)) throw error;
      fail('malformed', `${what}: ${error.message}`);
      continue;
    }
    const mismatch = rrsigMismatch(rrsig, sigRecord, first, owner, zoneLabels);
    if (mismatch) {
      fail('mismatch', `${what}: ${mismatch}`);
      continue;
    }
    if (!isSupportedAlgorithm(rrsig.algorithm)) {
      fail('unsupported', `${what}: RRSIG uses the unsupported ${algorithmName(rrsig.algorithm)}`);
      continue;
    }
    const window = checkWindow(rrsig.inception, rrsig.expiration, now, skew);
    if (window !== 'valid') {
      fail(window, `${what}: RRSIG (key ${rrsig.keyTag}) ${windowText(window, rrsig)}`);
      continue;
    }
    const candidates = usable.filter((key) => key.tag === rrsig.keyTag && key.data.algorithm === rrsig.algorithm);
    if (candidates.length === 0) {
      const wanted = `tag ${rrsig.keyTag} and ${algorithmName(rrsig.algorithm)}`;
      fail('no-key', `${what}: no DNSKEY of ${formatName(zoneLabels)} with ${wanted}`);
      continue;
    }
    let data: Uint8Array | undefined;
    for (const key of candidates) {
      if (key.data.protocol !== 3 || (key.data.flags & DnskeyFlag.ZONE) === 0) {
        fail(
          'no-zone-key',
          `${what}: DNSKEY ${key.tag} is not a zone key (flags ${key.data.flags}, protocol ${key.data.protocol})`,
        );
        continue;
      }
      if ((key.data.flags & DnskeyFlag.REVOKE) !== 0) {
        fail('no-key', `${what}: DNSKEY ${key.tag} is revoked`);
        continue;
      }
      const built = publicKey(key.data.algorithm, key.data.publicKey);
      if (!(built && !(built instanceof Error))) {
        fail('no-key', `${what}: ${built?.message ?? 'unsupported key'}`);
        continue;
      }
      if (tries >= budget.maxVerificationsPerRrset) {
        fail('budget', `${what}: gave up after ${tries} signature checks (limit per RRset, KeyTrap guard)`);
        return verdictOf(worst);
      }
      if (!budget.spendVerification()) {
        fail('budget', `${what}: the question's ${budget.maxVerificationsPerQuestion} signature checks are spent`);
        return verdictOf(worst);
      }
      tries++;
      try {
        data ??= signedData(rrset.records, sigRecord.rdata, rrsig, owner);
      } catch (error) {
        if (!(error instanceof RdataFormatError)) throw error;
        fail('malformed', `${what}: ${error.message}`);
        break;
      }
      if (verifySignature(rrsig.algorithm, built, data, rrsig.signature)) {
        return secureVerdict(rrset.records, rrsig, owner, now);
      }
      fail('bad-signature', `${what}: the RRSIG by key ${key.tag} (${algorithmName(rrsig.algorithm)}) does not verify`);
    }
  }
  return verdictOf(worst);
}

function verdictOf(worst: { failure: Failure; why: string } | undefined): RrsetVerdict {
  if (!worst) return bogus('no usable RRSIG');
  return bogus(worst.why, EDE_OF[worst.failure]);
}

/** RFC 4035 section 5.3.1's field checks; undefined when the RRSIG may cover the RRset. */
function rrsigMismatch(rrsig: RrsigData, sigRecord: Rr, first: Rr, owner: Labels, zone: Labels): string | undefined {
  if (sigRecord.rrtype !== DnssecType.RRSIG) return `a record of type ${sigRecord.rrtype} is no RRSIG`;
  if (rrsig.typeCovered !== first.rrtype) return `RRSIG covers type ${rrsig.typeCovered}`;
  if (sigRecord.class !== first.class) return `RRSIG of class ${sigRecord.class}`;
  if (sigRecord.name !== first.name && !namesEqual(ownerOf(sigRecord), owner)) {
    return `RRSIG owned by ${sigRecord.name}`;
  }
  if (!namesEqual(rrsig.signerName, zone))
    return `RRSIG signed by ${formatName(rrsig.signerName)}, not the zone ${formatName(zone)}`;
  if (!isAtOrBelow(owner, zone)) return `RRSIG signer ${formatName(zone)} is not an ancestor of the owner`;
  if (rrsig.labels > owner.length) return `RRSIG labels ${rrsig.labels} exceed the owner's ${owner.length}`;
  return undefined;
}

function secureVerdict(records: readonly Rr[], rrsig: RrsigData, owner: Labels, now: number): RrsetVerdict {
  let ttl = Math.min(rrsig.originalTtl, Math.max(0, serialDiff(rrsig.expiration, now)));
  for (const record of records) ttl = Math.min(ttl, record.ttl);
  // "*.example" itself has one label more than its RRSIG labels field: no expansion there.
  const expanded = rrsig.labels < owner.length && !(isWildcard(owner) && rrsig.labels === owner.length - 1);
  return Object.freeze({
    ...SECURE,
    ttl,
    rrsig,
    ...(expanded ? { wildcard: wildcardOf(ancestor(owner, rrsig.labels)) } : {}),
  });
}

function windowText(window: 'expired' | 'not-yet-valid' | 'inverted', rrsig: RrsigData): string {
  const at = (t: number): string => new Date(t * 1000).toISOString();
  if (window === 'expired') return `expired at ${at(rrsig.expiration)}`;
  if (window === 'not-yet-valid') return `is not valid before ${at(rrsig.inception)}`;
  return `expires (${at(rrsig.expiration)}) before its inception (${at(rrsig.inception)})`;
}
