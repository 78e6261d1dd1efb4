/** Zone files on arbitrary input: records written out parse back; mutated text parses or fails with the line. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DnsError, ZoneFileError, ZoneResolver, parseZone } from '@dnscore/core';
import { hostLabel, hostName } from './arbitraries.js';

const u16 = fc.integer({ min: 0, max: 0xffff });
const ttl = fc.integer({ min: 0, max: 0x7fffffff });
const quoted = fc.stringMatching(/^[a-zA-Z0-9 ;()+!.:@-]{0,30}$/);

/** [zone-file RDATA text, the data dns-packet's shape expects] */
const rdata = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
    .map(([a, b]) => ['A', `192.0.${a}.${b}`, `192.0.${a}.${b}`] as const),
  fc
    .tuple(u16, u16, u16, hostName)
    .map(([p, w, port, t]) => ['SRV', `${p} ${w} ${port} ${t}.`, { priority: p, weight: w, port, target: t }] as const),
  fc.tuple(u16, hostName).map(([p, x]) => ['MX', `${p} ${x}.`, { preference: p, exchange: x }] as const),
  fc.array(quoted, { minLength: 1, maxLength: 3 }).map((s) => ['TXT', s.map((x) => `"${x}"`).join(' '), s] as const),
  hostName.map((t) => ['CNAME', `${t}.`, t] as const),
);

const line = fc.tuple(hostLabel, ttl, rdata);

describe('zone files (property)', () => {
  it('records written in master format parse back to the same records', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const text = [
          '$ORIGIN z.example.',
          ...lines.map(([owner, t, [type, text]]) => `${owner} ${t} IN ${type} ${text}`),
        ].join('\n');
        const records = parseZone(text, { file: 'p.zone' });
        expect(records.map((r) => [r.name, r.ttl, Array.isArray(r.data) ? r.data.map(String) : r.data])).toEqual(
          lines.map(([owner, t, [, , data]]) => [`${owner}.z.example`, t, data]),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('mutated zone text loads or fails with a ZoneFileError that names a line of the file', () => {
    const base =
      `$ORIGIN m.example.\n$TTL 300\n@ IN SOA ns h ( 1 2 3 4 5 )\nwww IN A 192.0.2.1\n_sip._udp IN SRV 10 ` +
      `60 5060 www\n@ IN NAPTR 100 50 "s" "SIP+D2U" "" _sip._udp\nt IN TXT "a b" c\n`;
    const edit = fc.record({
      at: fc.nat(),
      cut: fc.integer({ min: 0, max: 6 }),
      insert: fc.string({ unit: fc.constantFrom(...'()";\\ \n\t$@.a1*'.split('')), maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        let text = base;
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          text = text.slice(0, at) + e.insert + text.slice(at + e.cut);
        }
        try {
          new ZoneResolver({ zones: [{ text, file: 'm.zone' }] });
        } catch (error) {
          expect(error).toBeInstanceOf(DnsError);
          if (error instanceof ZoneFileError) {
            expect(error.file).toBe('m.zone');
            expect(error.line).toBeGreaterThanOrEqual(0);
            expect(error.line).toBeLessThanOrEqual(text.split('\n').length);
          }
        }
      }),
      { numRuns: 1500 },
    );
  });
});
