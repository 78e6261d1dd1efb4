/**
 * Where the domain names are in the RDATA of the types RFC 4034 section 6.2 lists (as amended
 * by RFC 6840 section 5.1, which takes NSEC out): those names are lowercased in the canonical
 * form, and may arrive compressed (RFC 3597 section 4), so `uncompressedRdata` expands them.
 * A6 (historic, a variable prefix) is left out: its RDATA is used as it is.
 */
import { WireReader, type WireRecord } from '@dnscore/core/plugin';
import { lowerOctet, nameWire } from './canonical-name.js';
import { RdataFormatError, readName } from './rdata.js';

/** A piece of RDATA: a domain name, fixed octets, a <character-string>, or everything left. */
type Field = 'name' | number | 'string' | 'rest';

const NAME_ONLY: readonly Field[] = ['name'];
const PREF_NAME: readonly Field[] = [2, 'name'];
const TWO_NAMES: readonly Field[] = ['name', 'name'];

/** The RR types whose RDATA names are canonicalized, with the layout of their RDATA. */
const LAYOUTS: ReadonlyMap<number, readonly Field[]> = new Map<number, readonly Field[]>([
  [2, NAME_ONLY], // NS
  [3, NAME_ONLY], // MD
  [4, NAME_ONLY], // MF
  [5, NAME_ONLY], // CNAME
  [6, ['name', 'name', 20]], // SOA
  [7, NAME_ONLY], // MB
  [8, NAME_ONLY], // MG
  [9, NAME_ONLY], // MR
  [12, NAME_ONLY], // PTR
  [14, TWO_NAMES], // MINFO
  [15, PREF_NAME], // MX
  [17, TWO_NAMES], // RP
  [18, PREF_NAME], // AFSDB
  [21, PREF_NAME], // RT
  [24, [18, 'name', 'rest']], // SIG
  [26, [2, 'name', 'name']], // PX
  [30, ['name', 'rest']], // NXT
  [33, [6, 'name']], // SRV
  [35, [4, 'string', 'string', 'string', 'name']], // NAPTR
  [36, PREF_NAME], // KX
  [39, NAME_ONLY], // DNAME
  [46, [18, 'name', 'rest']], // RRSIG
]);

/** True when RFC 4034 section 6.2 (with RFC 6840 section 5.1) lowercases names in this type's RDATA. */
export function hasCanonicalNames(rrtype: number): boolean {
  return LAYOUTS.has(rrtype);
}

/**
 * The canonical RDATA (RFC 4034 section 6.2): for the listed types, the names lowercased;
 * every other type (NSEC's next name too) exactly as received. Throws RdataFormatError when
 * the RDATA does not fit its type's layout.
 */
export function canonicalRdata(rrtype: number, rdata: Uint8Array): Uint8Array {
  const layout = LAYOUTS.get(rrtype);
  if (!layout) return rdata;
  // A copy even when `rdata` is a Buffer (whose slice() is a view): the caller's record stays as it is.
  const out = new Uint8Array(rdata);
  let offset = 0;
  for (const field of layout) {
    if (field === 'name') {
      const start = offset;
      offset = readName(rdata, offset, 'RDATA').end;
      lowerNameInPlace(out, start, offset);
    } else if (field === 'string') {
      if (offset >= rdata.length) throw new RdataFormatError('RDATA: a cut character-string');
      offset += 1 + rdata[offset]!;
    } else if (field === 'rest') {
      offset = rdata.length;
    } else {
      offset += field;
    }
    if (offset > rdata.length) throw new RdataFormatError(`RDATA of type ${rrtype} is shorter than its fields`);
  }
  if (offset !== rdata.length) throw new RdataFormatError(`RDATA of type ${rrtype} has bytes left over`);
  return out;
}

/**
 * True when a name of `layout` in the RDATA at `start`..`end` holds a compression pointer, or
 * anything the full reading must report (a name or field that does not fit, a bad label).
 * Without one, the RDATA is already expanded and is copied as it is, names untouched.
 */
function hasPointer(packet: Uint8Array, start: number, end: number, layout: readonly Field[]): boolean {
  let offset = start;
  for (const field of layout) {
    if (field === 'name') {
      const first = offset;
      for (;;) {
        if (offset >= end) return true;
        const len = packet[offset]!;
        if (len > 63) return true;
        offset += 1 + len;
        if (offset - first > 255) return true;
        if (len === 0) break;
      }
    } else if (field === 'string') {
      if (offset >= end) return true;
      offset += 1 + packet[offset]!;
    } else if (field === 'rest') {
      offset = end;
    } else {
      offset += field;
    }
    if (offset > end) return true;
  }
  return offset !== end;
}

function lowerNameInPlace(bytes: Uint8Array, start: number, end: number): void {
  let offset = start;
  while (offset < end - 1) {
    const len = bytes[offset]!;
    for (let i = offset + 1; i <= offset + len; i++) bytes[i] = lowerOctet(bytes[i]!);
    offset += len + 1;
  }
}

/**
 * The RDATA of `record` in `packet` with every compressed name expanded (case kept), for the
 * types whose layout is known; other types' RDATA as it is. Throws RdataFormatError when a
 * name cannot be read.
 */
export function uncompressedRdata(packet: Uint8Array, record: WireRecord): Uint8Array {
  const end = record.rdataOffset + record.rdlength;
  const layout = LAYOUTS.get(record.type);
  // A copy (the packet may be reused); the typed-array constructor copies in one go, where
  // Uint8Array.from() walks the bytes one by one.
  if (!layout || !hasPointer(packet, record.rdataOffset, end, layout)) {
    return new Uint8Array(packet.subarray(record.rdataOffset, end));
  }
  const reader = new WireReader(packet, record.rdataOffset, end);
  const parts: Uint8Array[] = [];
  try {
    for (const field of layout) {
      if (field === 'name') parts.push(nameWire(reader.name('RDATA name').labels, false));
      else if (field === 'string') {
        const length = reader.u8('character-string length');
        parts.push(Uint8Array.of(length), reader.bytes(length, 'character-string'));
      } else if (field === 'rest') parts.push(reader.bytes(reader.remaining));
      else parts.push(reader.bytes(field));
    }
  } catch (error) {
    throw new RdataFormatError(`RDATA of type ${record.type}: ${(error as Error).message}`);
  }
  if (reader.remaining !== 0) throw new RdataFormatError(`RDATA of type ${record.type} has bytes left over`);
  // A plain Uint8Array, like core's records (a Buffer would show up in JSON and equality checks).
  let length = 0;
  for (const part of parts) length += part.length;
  const rdata = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    rdata.set(part, offset);
    offset += part.length;
  }
  return rdata;
}
