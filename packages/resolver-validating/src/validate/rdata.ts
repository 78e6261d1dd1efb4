/**
 * The RDATA of the DNSSEC types (RFC 4034 sections 2-5, RFC 5155 section 3), read from the
 * bytes. Their names are never compressed (RFC 4034, RFC 5155), so a compression pointer
 * here is malformed data. A field that does not fit ends in an RdataFormatError.
 */
import type { Labels } from '@dnscore/core/plugin';

/** RR type numbers the engine needs beyond core's RRType. */
export const DnssecType = {
  DS: 43,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  NSEC3: 50,
  NSEC3PARAM: 51,
  DNAME: 39,
  CNAME: 5,
  NS: 2,
  SOA: 6,
} as const;

/** Malformed DNSSEC RDATA: the record counts as absent or its RRset as bogus, never as valid. */
export class RdataFormatError extends Error {
  override name = 'RdataFormatError';
}

/** RFC 4034 section 3.1 */
export interface RrsigData {
  readonly typeCovered: number;
  readonly algorithm: number;
  readonly labels: number;
  readonly originalTtl: number;
  readonly expiration: number;
  readonly inception: number;
  readonly keyTag: number;
  readonly signerName: Labels;
  readonly signature: Uint8Array;
}

/** RFC 4034 section 2.1 */
export interface DnskeyData {
  readonly flags: number;
  readonly protocol: number;
  readonly algorithm: number;
  readonly publicKey: Uint8Array;
}

/** RFC 4034 section 5.1 */
export interface DsData {
  readonly keyTag: number;
  readonly algorithm: number;
  readonly digestType: number;
  readonly digest: Uint8Array;
}

/** RFC 4034 section 4.1: `nextName` keeps its case as written (RFC 6840 section 5.1). */
export interface NsecData {
  readonly nextName: Labels;
  readonly types: ReadonlySet<number>;
}

/** RFC 5155 section 3.2 */
export interface Nsec3Data {
  readonly hashAlgorithm: number;
  readonly flags: number;
  readonly iterations: number;
  readonly salt: Uint8Array;
  /** The next hashed owner name, raw (not base32hex). */
  readonly nextHashed: Uint8Array;
  readonly types: ReadonlySet<number>;
}

/** DNSKEY flag bits (RFC 4034 section 2.1.1, RFC 5011 section 7). */
export const DnskeyFlag = { ZONE: 0x0100, REVOKE: 0x0080, SEP: 0x0001 } as const;
/** NSEC3 flag bit (RFC 5155 section 3.1.2.1). */
export const NSEC3_OPT_OUT = 0x01;

class Cursor {
  offset = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly what: string,
  ) {}
  need(n: number, field: string): void {
    if (this.offset + n > this.bytes.length) {
      throw new RdataFormatError(
        `${this.what} RDATA: ${field} needs ${n} bytes, ${this.bytes.length - this.offset} left`,
      );
    }
  }
  u8(field: string): number {
    this.need(1, field);
    return this.bytes[this.offset++]!;
  }
  u16(field: string): number {
    this.need(2, field);
    const v = (this.bytes[this.offset]! << 8) | this.bytes[this.offset + 1]!;
    this.offset += 2;
    return v;
  }
  u32(field: string): number {
    this.need(4, field);
    const b = this.bytes;
    const o = this.offset;
    this.offset += 4;
    return ((b[o]! << 24) >>> 0) + ((b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!);
  }
  take(n: number, field: string): Uint8Array {
    this.need(n, field);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  rest(): Uint8Array {
    const out = this.bytes.subarray(this.offset);
    this.offset = this.bytes.length;
    return out;
  }
  name(field: string): Labels {
    return readUncompressedName(this, field);
  }
  end(): void {
    if (this.offset !== this.bytes.length) {
      throw new RdataFormatError(`${this.what} RDATA has ${this.bytes.length - this.offset} bytes left over`);
    }
  }
}

function readUncompressedName(cursor: Cursor, field: string): Labels {
  const labels: Uint8Array[] = [];
  let length = 1;
  for (;;) {
    const len = cursor.u8(field);
    if (len === 0) return labels;
    if (len > 63) throw new RdataFormatError(`${cursor.what} RDATA: ${field} has a compressed or invalid label`);
    length += len + 1;
    if (length > 255) throw new RdataFormatError(`${cursor.what} RDATA: ${field} is longer than 255 octets`);
    labels.push(cursor.take(len, field));
  }
}

/** Reads a name at `offset` of `bytes` (no compression); returns the labels and the offset after it. */
export function readName(bytes: Uint8Array, offset: number, what: string): { labels: Labels; end: number } {
  const cursor = new Cursor(bytes, what);
  cursor.offset = offset;
  const labels = readUncompressedName(cursor, 'name');
  return { labels, end: cursor.offset };
}

export function parseRrsig(rdata: Uint8Array): RrsigData {
  const c = new Cursor(rdata, 'RRSIG');
  const data = {
    typeCovered: c.u16('type covered'),
    algorithm: c.u8('algorithm'),
    labels: c.u8('labels'),
    originalTtl: c.u32('original TTL'),
    expiration: c.u32('signature expiration'),
    inception: c.u32('signature inception'),
    keyTag: c.u16('key tag'),
    signerName: c.name("signer's name"),
    signature: c.rest(),
  };
  if (data.signature.length === 0) throw new RdataFormatError('RRSIG RDATA has an empty signature');
  return data;
}

/** The RRSIG RDATA without its signature field (RFC 4034 section 3.1.8.1), signer name lowercased. */
export function rrsigSignedPart(rdata: Uint8Array, rrsig: RrsigData): Uint8Array {
  const end = rdata.length - rrsig.signature.length;
  const out = new Uint8Array(rdata.subarray(0, end)); // a copy, also of a Buffer
  // The signer's name starts after the 18 fixed octets; lowercase its label octets only.
  let offset = 18;
  while (offset < end && out[offset] !== 0) {
    const len = out[offset]!;
    for (let i = offset + 1; i <= offset + len; i++) {
      const c = out[i]!;
      if (c >= 0x41 && c <= 0x5a) out[i] = c + 0x20;
    }
    offset += len + 1;
  }
  return out;
}

export function parseDnskey(rdata: Uint8Array): DnskeyData {
  const c = new Cursor(rdata, 'DNSKEY');
  const data = {
    flags: c.u16('flags'),
    protocol: c.u8('protocol'),
    algorithm: c.u8('algorithm'),
    publicKey: c.rest(),
  };
  if (data.publicKey.length === 0) throw new RdataFormatError('DNSKEY RDATA has an empty public key');
  return data;
}

export function parseDs(rdata: Uint8Array): DsData {
  const c = new Cursor(rdata, 'DS');
  const data = {
    keyTag: c.u16('key tag'),
    algorithm: c.u8('algorithm'),
    digestType: c.u8('digest type'),
    digest: c.rest(),
  };
  if (data.digest.length === 0) throw new RdataFormatError('DS RDATA has an empty digest');
  return data;
}

export function parseNsec(rdata: Uint8Array): NsecData {
  const c = new Cursor(rdata, 'NSEC');
  const nextName = c.name('next domain name');
  return { nextName, types: parseTypeBitmaps(c.rest(), 'NSEC') };
}

export function parseNsec3(rdata: Uint8Array): Nsec3Data {
  const c = new Cursor(rdata, 'NSEC3');
  const hashAlgorithm = c.u8('hash algorithm');
  const flags = c.u8('flags');
  const iterations = c.u16('iterations');
  const salt = c.take(c.u8('salt length'), 'salt');
  const hashLength = c.u8('hash length');
  if (hashLength === 0) throw new RdataFormatError('NSEC3 RDATA has an empty next hashed owner name');
  const nextHashed = c.take(hashLength, 'next hashed owner name');
  return { hashAlgorithm, flags, iterations, salt, nextHashed, types: parseTypeBitmaps(c.rest(), 'NSEC3') };
}

/** The type bitmaps field (RFC 4034 section 4.1.2): windows in increasing order, 1..32 octets each. */
export function parseTypeBitmaps(bytes: Uint8Array, what: string): ReadonlySet<number> {
  const types = new Set<number>();
  let offset = 0;
  let lastWindow = -1;
  while (offset < bytes.length) {
    if (offset + 2 > bytes.length) throw new RdataFormatError(`${what} type bitmap: a cut window header`);
    const window = bytes[offset]!;
    const length = bytes[offset + 1]!;
    if (window <= lastWindow) throw new RdataFormatError(`${what} type bitmap: window ${window} out of order`);
    if (length < 1 || length > 32) throw new RdataFormatError(`${what} type bitmap: window of ${length} octets`);
    if (offset + 2 + length > bytes.length) throw new RdataFormatError(`${what} type bitmap: a cut window`);
    for (let i = 0; i < length; i++) {
      const octet = bytes[offset + 2 + i]!;
      for (let bit = 0; bit < 8; bit++) {
        if (octet & (0x80 >> bit)) types.add(window * 256 + i * 8 + bit);
      }
    }
    lastWindow = window;
    offset += 2 + length;
  }
  return types;
}
