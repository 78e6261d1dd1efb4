/**
 * A record writer for property tests, independent of the decoder under test: typed data back
 * to RDATA, names written from their labels without compression (so labels holding dots or any
 * byte survive, which dns-packet's string names cannot carry).
 */
import { parseName } from '@dnscore/core';
import type { DnsRecord, MxData, NaptrData, SoaData, SrvData, TlsaData } from '@dnscore/core';
import { u16, u32 } from './packets.js';

export function nameBytes(name: string): number[] {
  return [...parseName(name).flatMap((label) => [label.length, ...label]), 0];
}

function text(s: string): number[] {
  const bytes = Buffer.from(s, 'utf8');
  return [bytes.length, ...bytes];
}

export function encodeRdata(type: string, data: unknown): Uint8Array {
  switch (type) {
    case 'A':
      return Uint8Array.from((data as string).split('.').map(Number));
    case 'AAAA':
      return ipv6Bytes(data as string);
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return Uint8Array.from(nameBytes(data as string));
    case 'MX': {
      const mx = data as MxData;
      return Uint8Array.from([...u16(mx.preference), ...nameBytes(mx.exchange)]);
    }
    case 'SRV': {
      const s = data as SrvData;
      return Uint8Array.from([...u16(s.priority), ...u16(s.weight), ...u16(s.port), ...nameBytes(s.target)]);
    }
    case 'NAPTR': {
      const n = data as NaptrData;
      return Uint8Array.from([
        ...u16(n.order),
        ...u16(n.preference),
        ...text(n.flags),
        ...text(n.services),
        ...text(n.regexp),
        ...nameBytes(n.replacement),
      ]);
    }
    case 'TXT':
      return Uint8Array.from((data as string[]).flatMap(text));
    case 'SOA': {
      const s = data as SoaData;
      return Uint8Array.from([
        ...nameBytes(s.mname),
        ...nameBytes(s.rname),
        ...[s.serial, s.refresh, s.retry, s.expire, s.minimum].flatMap(u32),
      ]);
    }
    case 'TLSA': {
      const t = data as TlsaData;
      return Uint8Array.from([t.usage, t.selector, t.matchingType, ...t.certificate]);
    }
    default:
      return data as Uint8Array;
  }
}

export function encodeRecord(record: DnsRecord): number[] {
  const rdata = encodeRdata(record.type, record.data);
  return [
    ...nameBytes(record.name),
    ...u16(record.rrtype),
    ...u16(record.class),
    ...u32(record.ttl),
    ...u16(rdata.length),
    ...rdata,
  ];
}

/** A response packet holding `records` in its answer section, question = the first record's owner and type. */
export function encodeAnswer(records: readonly DnsRecord[], question: { name: string; type: number }): Uint8Array {
  return Uint8Array.from([
    ...u16(0x1234),
    ...u16(0x8400),
    ...u16(1),
    ...u16(records.length),
    ...u16(0),
    ...u16(0),
    ...nameBytes(question.name),
    ...u16(question.type),
    ...u16(1),
    ...records.flatMap(encodeRecord),
  ]);
}

function ipv6Bytes(text: string): Uint8Array {
  let v4: number[] = [];
  let hex = text;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    v4 = dotted[1]!.split('.').map(Number); // ::ffff:192.0.2.1 (RFC 5952 section 5)
    hex = text.slice(0, -dotted[1]!.length).replace(/([^:]):$/, '$1');
  }
  const groupsWanted = v4.length ? 6 : 8;
  const [head, tail] = hex.includes('::') ? hex.split('::') : [hex, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '') : []);
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array(groupsWanted - h.length - t.length).fill('0'), ...t];
  return Uint8Array.from([...all.slice(0, groupsWanted).flatMap((g) => u16(parseInt(g, 16))), ...v4]);
}
