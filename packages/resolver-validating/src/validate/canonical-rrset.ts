/**
 * The data an RRSIG signs (RFC 4034 section 3.1.8.1, RFC 4035 section 5.3.2): the RRSIG RDATA
 * without its signature, then each RR of the set in canonical form (section 6.2) and order
 * (section 6.3): owner lowercased (or the wildcard it came from), original TTL, RDATA sorted
 * as octet strings, duplicates once.
 */
import type { Labels } from '@dnscore/core/plugin';
import { ancestor, nameWire, wildcardOf } from './canonical-name.js';
import { type RrsigData, rrsigSignedPart } from './rdata.js';
import { canonicalRdata } from './rdata-names.js';
import type { Rr } from './types.js';

/** Compares two byte strings as unsigned octets, the shorter first when one is a prefix. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** The canonical RDATA of an RRset's records, sorted (RFC 4034 section 6.3), duplicates removed. */
export function canonicalRrsetRdata(records: readonly Rr[]): Uint8Array[] {
  const sorted = records.map((record) => canonicalRdata(record.rrtype, record.rdata)).sort(compareBytes);
  return sorted.filter((rdata, i) => i === 0 || compareBytes(rdata, sorted[i - 1]!) !== 0);
}

/**
 * The owner name an RRSIG was made over: the owner, or "*." and its rightmost `labels` labels
 * when the RRSIG labels field is smaller (a wildcard expansion, RFC 4035 section 5.3.2).
 */
export function signingOwner(owner: Labels, rrsig: RrsigData): Labels {
  return rrsig.labels < owner.length ? wildcardOf(ancestor(owner, rrsig.labels)) : owner;
}

/** The octets `rrsig` (from `rrsigRdata`) signs over the RRset `records` owned by `owner`. */
export function signedData(
  records: readonly Rr[],
  rrsigRdata: Uint8Array,
  rrsig: RrsigData,
  owner: Labels,
): Uint8Array {
  const first = records[0]!;
  const ownerWire = nameWire(signingOwner(owner, rrsig));
  const fixed = new Uint8Array(8);
  const view = new DataView(fixed.buffer);
  view.setUint16(0, first.rrtype);
  view.setUint16(2, first.class);
  view.setUint32(4, rrsig.originalTtl);
  const parts: Uint8Array[] = [rrsigSignedPart(rrsigRdata, rrsig)];
  for (const rdata of canonicalRrsetRdata(records)) {
    parts.push(ownerWire, fixed, Uint8Array.of(rdata.length >>> 8, rdata.length & 0xff), rdata);
  }
  return Buffer.concat(parts);
}
