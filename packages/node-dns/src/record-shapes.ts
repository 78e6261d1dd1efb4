/**
 * dnscore's typed records in the shapes node:dns gives, field by field (the node:dns
 * documentation and c-ares's parsers): MX priority/exchange, SRV name/port/priority/weight, NAPTR
 * flags/service/regexp/replacement/order/preference, SOA nsname/hostmaster/.../minttl, CAA
 * { critical, <tag>: value }, TXT as the list of each record's strings. The root name, which
 * dnscore writes ".", is "" as c-ares writes it. node:dns makes a string of TXT and CAA bytes one
 * character per byte (latin1), so these come from the RDATA, not from the core's UTF-8 text.
 */
import type { AnyTypedRecord, DnsRecord, MxData, NaptrData, SoaData, SrvData } from '@dnscore/core';

export interface RecordWithTtl {
  address: string;
  ttl: number;
}
export interface MxRecord {
  priority: number;
  exchange: string;
}
export interface SrvRecord {
  name: string;
  port: number;
  priority: number;
  weight: number;
}
export interface NaptrRecord {
  flags: string;
  service: string;
  regexp: string;
  replacement: string;
  order: number;
  preference: number;
}
export interface SoaRecord {
  nsname: string;
  hostmaster: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minttl: number;
}
export interface CaaRecord {
  critical: number;
  issue?: string;
  issuewild?: string;
  iodef?: string;
  contactemail?: string;
  contactphone?: string;
  [tag: string]: string | number | undefined;
}
export type AnyRecord =
  | ({ type: 'A' | 'AAAA' } & RecordWithTtl)
  | ({ type: 'CNAME' | 'NS' | 'PTR' } & { value: string })
  | ({ type: 'MX' } & MxRecord)
  | ({ type: 'SRV' } & SrvRecord)
  | ({ type: 'NAPTR' } & NaptrRecord)
  | ({ type: 'SOA' } & SoaRecord)
  | ({ type: 'TXT' } & { entries: string[] })
  | ({ type: 'CAA' } & CaaRecord);

export function nodeName(name: string): string {
  return name === '.' ? '' : name;
}

export function mx(data: MxData): MxRecord {
  return { exchange: nodeName(data.exchange), priority: data.preference };
}

export function srv(data: SrvData): SrvRecord {
  return { name: nodeName(data.target), port: data.port, priority: data.priority, weight: data.weight };
}

export function naptr(data: NaptrData): NaptrRecord {
  return {
    flags: data.flags,
    service: data.services,
    regexp: data.regexp,
    replacement: nodeName(data.replacement),
    order: data.order,
    preference: data.preference,
  };
}

export function soa(data: SoaData): SoaRecord {
  return {
    nsname: nodeName(data.mname),
    hostmaster: nodeName(data.rname),
    serial: data.serial,
    refresh: data.refresh,
    retry: data.retry,
    expire: data.expire,
    minttl: data.minimum,
  };
}

/**
 * CAA RDATA (RFC 8659 section 4.1): flags, tag length, tag, value. Undefined when it does not
 * parse: such a record is left out, as c-ares leaves it out.
 */
export function caa(rdata: Uint8Array): CaaRecord | undefined {
  if (rdata.length < 2) return undefined;
  const tagLength = rdata[1]!;
  if (tagLength === 0 || 2 + tagLength > rdata.length) return undefined;
  const tag = Buffer.from(rdata.subarray(2, 2 + tagLength)).toString('latin1');
  if (!/^[A-Za-z0-9]+$/.test(tag)) return undefined;
  return { critical: rdata[0]!, [tag]: Buffer.from(rdata.subarray(2 + tagLength)).toString('latin1') };
}

/**
 * One record of an ANY answer in resolveAny's shape, `type` last as node:dns sets it; undefined
 * for types node:dns does not show.
 */
export function anyRecord(raw: DnsRecord): AnyRecord | undefined {
  // A type with a typed view is never raw, so the union narrows on `type`.
  const record = raw as AnyTypedRecord;
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return { address: record.data, ttl: record.ttl, type: record.type };
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return { value: nodeName(record.data), type: record.type };
    case 'MX':
      return { ...mx(record.data), type: 'MX' };
    case 'SRV':
      return { ...srv(record.data), type: 'SRV' };
    case 'NAPTR':
      return { ...naptr(record.data), type: 'NAPTR' };
    case 'SOA':
      return { ...soa(record.data), type: 'SOA' };
    case 'TXT':
      return { entries: txt(record.rdata), type: 'TXT' };
    default:
      return raw.type === 'CAA' ? caaRecord(raw.rdata) : undefined;
  }
}

/** A TXT record's character-strings (RFC 1035 section 3.3.14), a character per byte as node:dns gives them. */
export function txt(rdata: Uint8Array): string[] {
  const strings: string[] = [];
  for (let at = 0; at < rdata.length; at += 1 + rdata[at]!) {
    strings.push(Buffer.from(rdata.subarray(at + 1, at + 1 + rdata[at]!)).toString('latin1'));
  }
  return strings;
}

function caaRecord(rdata: Uint8Array): AnyRecord | undefined {
  const data = caa(rdata);
  return data ? { ...data, type: 'CAA' } : undefined;
}
