/**
 * Decodes one record's RDATA inside exactly its RDLENGTH: a decoder that would read past it
 * or stop short of it drops the record (rule "rdlength") instead of misreading it.
 */
import { RRType, typeName } from '../rr-types.js';
import { WireError, WireReader } from '../wire/reader.js';
import type { WireRecord } from '../wire/message.js';
import { decodeA, decodeAaaa } from './address.js';
import { decodeMx } from './mx.js';
import { decodeNameRdata } from './name-rdata.js';
import { decodeNaptr } from './naptr.js';
import { RdataError } from './rdata-error.js';
import { decodeSoa } from './soa.js';
import { decodeSrv } from './srv.js';
import { decodeTlsa } from './tlsa.js';
import { decodeTxt } from './txt.js';
import type { DnsRecord } from './types.js';

type Decoder = (reader: WireReader) => unknown;

const decoders = new Map<number, Decoder>([
  [RRType.A, decodeA],
  [RRType.AAAA, decodeAaaa],
  [RRType.CNAME, decodeNameRdata],
  [RRType.NS, decodeNameRdata],
  [RRType.PTR, decodeNameRdata],
  // RFC 6672 section 2.5: a sender must not compress the target, a receiver expands it anyway.
  [RRType.DNAME, decodeNameRdata],
  [RRType.MX, decodeMx],
  [RRType.SOA, decodeSoa],
  [RRType.TXT, decodeTxt],
  [RRType.SRV, decodeSrv],
  [RRType.NAPTR, decodeNaptr],
  [RRType.TLSA, decodeTlsa],
]);

/** True when dnscore has a typed view for the type. */
export function hasTypedView(type: number): boolean {
  return decoders.has(type);
}

/**
 * A typed record from its place in the packet, with `ttl` less `age` seconds.
 * Throws RdataError when the RDATA breaks a rule.
 */
export function decodeRecord(packet: Uint8Array, record: WireRecord, age = 0): DnsRecord {
  const end = record.rdataOffset + record.rdlength;
  const rdata = packet.slice(record.rdataOffset, end);
  const decoder = decoders.get(record.type);
  let data: unknown = rdata;
  if (decoder && record.class !== 255 && record.class !== 254) {
    // Class ANY/NONE records (RFC 2136 updates) may have empty RDATA: keep them raw.
    const reader = new WireReader(packet, record.rdataOffset, end);
    try {
      data = decoder(reader);
    } catch (error) {
      if (error instanceof WireError)
        throw new RdataError('rdlength', `${typeName(record.type)} RDATA: ${error.message}`);
      throw error;
    }
    if (reader.remaining !== 0) {
      throw new RdataError(
        'rdlength',
        `${typeName(record.type)} RDATA has ${reader.remaining} bytes left over after its fields`,
      );
    }
  }
  return Object.freeze({
    name: record.name,
    type: typeName(record.type),
    rrtype: record.type,
    class: record.class,
    ttl: Math.max(0, record.ttl - age),
    rdata,
    data: freezeData(data),
  }) as DnsRecord;
}

function freezeData(data: unknown): unknown {
  if (data instanceof Uint8Array) return data;
  if (typeof data === 'object' && data !== null) return Object.freeze(data);
  return data;
}
