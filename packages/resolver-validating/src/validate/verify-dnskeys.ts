/**
 * A zone's DNSKEY RRset authenticated from above (RFC 4035 section 5.2): by the validated DS
 * RRset of the parent, or by trust anchors (DS or DNSKEY records). Only DS records with a
 * supported digest and algorithm count; when none does, the zone is insecure (RFC 4035
 * section 5.2, RFC 6840 section 5.2), never bogus and never secure. SHA-1 DS records are
 * ignored when a stronger digest is present (RFC 4509 section 3).
 */
import { Ede, type Labels, formatName, parseName } from '@dnscore/core/plugin';
import { algorithmName, isSupportedAlgorithm } from './algorithms.js';
import { dsDigest, isSupportedDigest } from './ds-digest.js';
import { compareBytes } from './canonical-rrset.js';
import { namesEqual } from './canonical-name.js';
import { ownerOf } from './owner.js';
import { DnskeyFlag, DnssecType, type DsData, RdataFormatError, parseDnskey, parseDs } from './rdata.js';
import { bogus, insecure } from './result.js';
import type { Rr, SignedRrset } from './types.js';
import { type RrsetVerdict, type VerifyOptions, type ZoneKey, verifyRrset, zoneKeys } from './verify-rrset.js';

/** A verdict on a DNSKEY RRset; `keys` are the zone's keys when it is secure. */
export interface DnskeyVerdict extends RrsetVerdict {
  readonly keys?: readonly ZoneKey[];
}

/**
 * Authenticates the DNSKEY RRset of `zone` with `trusted`: the zone's validated DS records,
 * or trust anchors given as DS or DNSKEY records (an anchor DNSKEY matches by its RDATA).
 * Secure when a DS-matched (or anchored) zone key signs the RRset; insecure when no trusted
 * record has a supported algorithm and digest; bogus otherwise.
 */
export function verifyDnskeys(
  dnskeys: SignedRrset,
  zone: Labels | string,
  trusted: readonly Rr[],
  options: VerifyOptions,
): DnskeyVerdict {
  const zoneLabels = typeof zone === 'string' ? parseName(zone) : zone;
  const zoneText = formatName(zoneLabels);
  const dsList: DsData[] = [];
  const anchorKeys: Uint8Array[] = [];
  let unsupportedEde: number = Ede.UNSUPPORTED_DS_DIGEST_TYPE;
  for (const record of trusted) {
    if (!namesEqual(ownerOf(record), zoneLabels)) continue;
    try {
      if (record.rrtype === DnssecType.DS) {
        const ds = parseDs(record.rdata);
        if (!isSupportedAlgorithm(ds.algorithm)) unsupportedEde = Ede.UNSUPPORTED_DNSKEY_ALGORITHM;
        // A digest of the wrong length is no unsupported DS: it matches no key (bogus, as libunbound has it).
        else if (isSupportedDigest(ds.digestType)) dsList.push(ds);
      } else if (record.rrtype === DnssecType.DNSKEY) {
        const key = parseDnskey(record.rdata);
        if (isSupportedAlgorithm(key.algorithm)) anchorKeys.push(record.rdata);
        else unsupportedEde = Ede.UNSUPPORTED_DNSKEY_ALGORITHM;
      }
    } catch (error) {
      if (!(error instanceof RdataFormatError)) throw error;
    }
  }
  // RFC 4509 section 3: a SHA-1 DS is a downgrade when the same zone has a stronger one.
  const strongest = dsList.some((ds) => ds.digestType !== 1) ? dsList.filter((ds) => ds.digestType !== 1) : dsList;
  if (strongest.length === 0 && anchorKeys.length === 0) {
    return insecure(`${zoneText}: no DS or trust anchor with a supported algorithm and digest`, unsupportedEde);
  }
  if (dnskeys.records.length === 0) return bogus(`${zoneText}: no DNSKEY records`, Ede.DNSKEY_MISSING);

  const keys = zoneKeys(dnskeys.records);
  const trust = new Map<ZoneKey, boolean>();
  const trustedKey = (key: ZoneKey): boolean => {
    const known = trust.get(key);
    if (known !== undefined) return known;
    const trusted = isTrusted(key);
    trust.set(key, trusted);
    return trusted;
  };
  const isTrusted = (key: ZoneKey): boolean => {
    if ((key.data.flags & DnskeyFlag.ZONE) === 0) return false;
    if (anchorKeys.some((anchor) => compareBytes(anchor, key.record.rdata) === 0)) return true;
    // One digest per key and digest type, however many DS records share the key's tag.
    const digests = new Map<number, Uint8Array | undefined>();
    const digestOf = (type: number): Uint8Array | undefined => {
      if (!digests.has(type)) digests.set(type, dsDigest(zoneLabels, key.record.rdata, type));
      return digests.get(type);
    };
    return strongest.some((ds) => {
      if (ds.keyTag !== key.tag || ds.algorithm !== key.data.algorithm) return false;
      const digest = digestOf(ds.digestType);
      return digest !== undefined && compareBytes(digest, ds.digest) === 0;
    });
  };
  if (!keys.some(trustedKey)) {
    const wanted = strongest.map((ds) => `${ds.keyTag}/${algorithmName(ds.algorithm)}`).join(', ');
    return bogus(
      `${zoneText}: no DNSKEY matches a DS or trust anchor (${wanted || 'anchored keys'})`,
      Ede.DNSKEY_MISSING,
    );
  }
  const verdict = verifyRrset(dnskeys, keys, zoneLabels, options, trustedKey);
  if (verdict.status !== 'secure') return verdict;
  return Object.freeze({ ...verdict, keys: Object.freeze(keys) });
}
