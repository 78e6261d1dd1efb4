/** Records in presentation format (RFC 1035 section 5.1), as dig and zone files write them. */
import { className } from './rr-types.js';
import type { DnsRecord, MxData, NaptrData, SoaData, SrvData, TlsaData } from './records/types.js';

/** "name. TTL CLASS TYPE RDATA" */
export function formatRecord(record: DnsRecord): string {
  return `${absolute(record.name)}\t${record.ttl}\t${className(record.class)}\t${record.type}\t${formatRdata(record)}`;
}

export function formatRdata(record: DnsRecord): string {
  const data: unknown = record.data;
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return data as string;
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return absolute(data as string);
    case 'MX': {
      const mx = data as MxData;
      return `${mx.preference} ${absolute(mx.exchange)}`;
    }
    case 'SRV': {
      const srv = data as SrvData;
      return `${srv.priority} ${srv.weight} ${srv.port} ${absolute(srv.target)}`;
    }
    case 'NAPTR': {
      const n = data as NaptrData;
      return `${n.order} ${n.preference} ${quote(n.flags)} ${quote(n.services)} ${quote(n.regexp)} ${absolute(n.replacement)}`;
    }
    case 'TXT':
      return (data as readonly string[]).map(quote).join(' ');
    case 'SOA': {
      const s = data as SoaData;
      return `${absolute(s.mname)} ${absolute(s.rname)} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minimum}`;
    }
    case 'TLSA': {
      const t = data as TlsaData;
      return `${t.usage} ${t.selector} ${t.matchingType} ${toHex(t.certificate).toUpperCase()}`;
    }
    default: {
      // RFC 3597 section 5: the generic form for types without a typed view.
      const raw = data as Uint8Array;
      return raw.length === 0 ? '\\# 0' : `\\# ${raw.length} ${toHex(raw)}`;
    }
  }
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function absolute(name: string): string {
  return name === '.' ? '.' : `${name}.`;
}

function quote(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte === 0x7f) out += `\\${String(byte).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  // Bytes >= 0x80 were written one by one; put UTF-8 sequences back together.
  return Buffer.from(`${out}"`, 'latin1').toString('utf8');
}
