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
    case 'DNAME':
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
      return (
        `${n.order} ${n.preference} ${quote(n.flags)} ${quote(n.services)} ${quote(n.regexp)} ` +
        `${absolute(n.replacement)}`
      );
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

/**
 * A <character-string> in quotes (RFC 1035 section 5.1): the quote and the backslash escaped,
 * and every octet of a control character (C0, DEL, C1 such as U+009B), a line separator or a
 * bidi override as \DDD, so no terminal sequence is printed raw. Other UTF-8 stays readable.
 */
function quote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (unprintable(code))
      for (const byte of Buffer.from(char, 'utf8')) out += `\\${String(byte).padStart(3, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

function unprintable(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0xfeff
  );
}
