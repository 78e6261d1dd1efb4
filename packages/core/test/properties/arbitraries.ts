/** fast-check generators of names and typed records, for the property tests. */
import fc from 'fast-check';
import { formatName, typeName } from '@dnscore/core';
import { formatIpv6 } from '../../src/records/address.js';
import type { DnsRecord } from '@dnscore/core';

/** Any label bytes (dots, backslashes, binary): names are labels, not dotted strings. */
export const label = fc.uint8Array({ minLength: 1, maxLength: 40 });
export const name = fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => formatName(labels));
/** Letters, digits, "-" and "_": what a zone file writes without escapes. */
export const hostLabel = fc.stringMatching(/^[a-z0-9_][a-z0-9-]{0,19}$/);
export const hostName = fc.array(hostLabel, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));

const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const text = fc.string({ maxLength: 60 });

const naptrData = fc.oneof(
  fc.record({
    order: u16,
    preference: u16,
    flags: fc.constantFrom('', 's', 'S', 'a', 'u', 'P', 'A32', '3', 'x9'),
    services: fc.constantFrom('', 'SIP+D2U', 'SIPS+D2T', 'E2U+sip', 'A+B12+C'),
    regexp: fc.constant(''),
    replacement: name,
  }),
  fc.record({
    order: u16,
    preference: u16,
    flags: fc.constantFrom('u', 'U', ''),
    services: fc.constantFrom('E2U+sip', 'E2U+email'),
    regexp: fc.constantFrom('!^.*$!sip:info@example.net!', '!^(.*)$!\\1!i', '#^\\+1(.*)$#sip:\\1@example.net#'),
    replacement: fc.constant('.'),
  }),
);

/** [type name, type number, data] for every typed view and a raw type. */
export const typedData = fc.oneof(
  fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => ['A', 1, Array.from(b).join('.')] as const),
  fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => ['AAAA', 28, formatIpv6(b)] as const),
  name.map((n) => ['CNAME', 5, n] as const),
  name.map((n) => ['NS', 2, n] as const),
  name.map((n) => ['PTR', 12, n] as const),
  fc.record({ preference: u16, exchange: name }).map((d) => ['MX', 15, d] as const),
  fc.record({ priority: u16, weight: u16, port: u16, target: name }).map((d) => ['SRV', 33, d] as const),
  naptrData.map((d) => ['NAPTR', 35, d] as const),
  fc.array(text, { minLength: 1, maxLength: 3 }).map((d) => ['TXT', 16, d] as const),
  fc
    .record({ mname: name, rname: name, serial: u32, refresh: u32, retry: u32, expire: u32, minimum: u32 })
    .map((d) => ['SOA', 6, d] as const),
  fc
    .record({
      usage: fc.integer({ min: 0, max: 255 }),
      selector: fc.integer({ min: 0, max: 255 }),
      matchingType: fc.integer({ min: 0, max: 255 }),
      certificate: fc.uint8Array({ minLength: 1, maxLength: 64 }),
    })
    .map((d) => ['TLSA', 52, d] as const),
  fc
    .tuple(fc.integer({ min: 256, max: 65279 }), fc.uint8Array({ maxLength: 40 }))
    .map(([type, data]) => [typeName(type), type, data] as const),
);

export const record = fc
  .tuple(name, typedData, fc.integer({ min: 0, max: 0x7fffffff }))
  .map(
    ([owner, [type, rrtype, data], ttl]): DnsRecord =>
      ({ name: owner, type, rrtype, class: 1, ttl, rdata: new Uint8Array(0), data }) as DnsRecord,
  );

/** The comparable part of a record: everything but the raw RDATA bytes. */
export function comparable(r: DnsRecord): unknown {
  return {
    name: r.name,
    type: r.type,
    rrtype: r.rrtype,
    class: r.class,
    ttl: r.ttl,
    data: r.data instanceof Uint8Array ? Array.from(r.data) : normalize(r.data),
  };
}

function normalize(data: unknown): unknown {
  if (typeof data !== 'object' || data === null) return data;
  if (Array.isArray(data)) return data.map(normalize);
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v instanceof Uint8Array ? Array.from(v) : v]));
}
