/**
 * The `--json` form of a result: rcode and type as names, `data` as dns-packet decodes it,
 * TXT as an array of strings, other binary data as lowercase hex.
 */
import { edeName, toHex, type DnsRecord, type DnsResult } from '@dnscore/core';

export interface ResultJson {
  readonly name: string;
  readonly type: string;
  readonly rcode: string;
  readonly secure: boolean;
  readonly bogus: boolean;
  readonly whyBogus: string | null;
  /** Extended DNS Error (RFC 8914) beside whyBogus: { code: 7, name: "Signature Expired" }. */
  readonly ede: { readonly code: number; readonly name: string } | null;
  readonly canonical: string;
  readonly records: readonly { name: string; type: string; ttl: number; data: unknown }[];
}

export function resultToJson(result: DnsResult, type: string): ResultJson {
  return {
    name: result.query.name,
    type,
    rcode: result.rcodeName,
    secure: result.secure,
    bogus: result.bogus,
    whyBogus: result.whyBogus ?? null,
    ede: result.ede === undefined ? null : { code: result.ede, name: edeName(result.ede) },
    canonical: result.canonical,
    records: result.records.map(recordToJson),
  };
}

export function recordToJson(record: DnsRecord): { name: string; type: string; ttl: number; data: unknown } {
  return { name: record.name, type: record.type, ttl: record.ttl, data: jsonData(record.data) };
}

function jsonData(data: unknown): unknown {
  if (data instanceof Uint8Array) return toHex(data);
  if (Array.isArray(data)) return data.map(jsonData);
  if (typeof data === 'object' && data !== null) {
    return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, jsonData(value)]));
  }
  return data;
}
