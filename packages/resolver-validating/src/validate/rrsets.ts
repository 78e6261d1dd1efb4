/**
 * From a message's records to what the engine checks: records with their names expanded,
 * grouped into RRsets (owner, class, type; RFC 2181 section 5) with the RRSIGs that cover them.
 */
import { type WireRecord, nameKey } from '@dnscore/core/plugin';
import { knownOwner } from './owner.js';
import { DnssecType } from './rdata.js';
import { uncompressedRdata } from './rdata-names.js';
import type { Rr, SignedRrset } from './types.js';

/**
 * A record of `packet` as the engine reads it (frozen): RDATA names expanded (case kept), the
 * owner's labels kept as the message read them (ownerOf). Throws RdataFormatError when a name
 * in the RDATA cannot be read.
 */
export function uncompressedRecord(packet: Uint8Array, record: WireRecord): Rr {
  const rr: Rr = {
    name: record.name,
    rrtype: record.type,
    class: record.class,
    ttl: record.ttl,
    rdata: uncompressedRdata(packet, record),
  };
  return knownOwner(rr, record.labels);
}

/** The type an RRSIG covers (its first two RDATA octets); undefined when too short. */
export function typeCovered(rrsig: Rr): number | undefined {
  return rrsig.rdata.length >= 2 ? (rrsig.rdata[0]! << 8) | rrsig.rdata[1]! : undefined;
}

/**
 * The RRsets among `records` (one section, or several), each with its RRSIGs, in order of
 * first appearance. RRSIGs that cover no RRset present are returned with empty `records` so
 * that nothing is silently dropped; RRSIG records are never an RRset of their own.
 */
export function groupRrsets(records: readonly Rr[]): SignedRrset[] {
  const sets = new Map<string, { records: Rr[]; rrsigs: Rr[] }>();
  const slot = (name: string, rrclass: number, rrtype: number): { records: Rr[]; rrsigs: Rr[] } => {
    const key = `${nameKey(name)}/${rrclass}/${rrtype}`;
    const known = sets.get(key);
    if (known) return known;
    const set: { records: Rr[]; rrsigs: Rr[] } = { records: [], rrsigs: [] };
    sets.set(key, set);
    return set;
  };
  for (const record of records) {
    if (record.rrtype === DnssecType.RRSIG) {
      const covered = typeCovered(record);
      if (covered !== undefined) slot(record.name, record.class, covered).rrsigs.push(record);
    } else {
      slot(record.name, record.class, record.rrtype).records.push(record);
    }
  }
  return [...sets.values()];
}
