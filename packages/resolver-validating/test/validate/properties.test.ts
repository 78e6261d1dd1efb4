/**
 * Property tests against ldns (seeded): canonical order (ldns-read-zone -z), canonical RDATA
 * (ldns-read-zone -c), key tags (its DNSKEY comments), NSEC3 hashes (ldns-nsec3-hash).
 */
import { parseName } from '@dnscore/core/plugin';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  base32hexDecode,
  base32hexEncode,
  canonicalRdata,
  compareNames,
  keyTag,
  nsec3Hash,
} from '../../src/validate/index.js';
import { ldns, readRecords, withTempDir } from './support/ldns.js';

const SEED = 20261201;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** A label as presentation text: letters of both cases, digits, '-', '_', and \DDD escapes. */
const label = fc
  .array(
    fc.oneof(
      fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'),
      fc.integer({ min: 0, max: 255 }).map((n) => `\\${String(n).padStart(3, '0')}`),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((chars) => chars.join(''));
const relativeName = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => labels.join('.'));

describe('canonical order matches ldns', () => {
  it('sorts random names as ldns-read-zone -z does', () => {
    withTempDir((dir) => {
      fc.assert(
        fc.property(
          fc.uniqueArray(relativeName, { minLength: 2, maxLength: 12, selector: (n) => n.toLowerCase() }),
          (names) => {
            const owners = names.map((n) => parseName(`${n}.example`));
            // Names equal but for ASCII case (e.g. through \065 vs a) are one owner for ldns too.
            const distinct = owners.filter((o, i) => owners.findIndex((p) => compareNames(o, p) === 0) === i);
            const zone = distinct.map((o) => `${o.map(escapeLabel).join('.')}. 3600 IN A 192.0.2.1`).join('\n');
            writeFileSync(join(dir, 'z'), `${zone}\n`);
            const out = ldns(dir, 'ldns-read-zone', ['-z', 'z'])
              .split('\n')
              .filter((l) => l.trim() !== '')
              .map((l) => parseName(l.split(/\s+/)[0]!));
            const ours = [...distinct].sort(compareNames);
            expect(out.map((o) => o.map(hex).join('.'))).toEqual(
              ours.map((o) => o.map((l) => hex(lower(l))).join('.')),
            );
          },
        ),
        { seed: SEED, numRuns: 20 },
      );
    });
  });

  it('is a total order: antisymmetric and transitive', () => {
    fc.assert(
      fc.property(relativeName, relativeName, relativeName, (a, b, c) => {
        const [x, y, z] = [a, b, c].map((n) => parseName(n));
        expect(Math.sign(compareNames(x!, y!))).toBe(-Math.sign(compareNames(y!, x!)));
        if (compareNames(x!, y!) <= 0 && compareNames(y!, z!) <= 0) expect(compareNames(x!, z!)).toBeLessThanOrEqual(0);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});

function lower(l: Uint8Array): Uint8Array {
  return l.map((c) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c));
}

function escapeLabel(l: Uint8Array): string {
  return [...l].map((c) => `\\${String(c).padStart(3, '0')}`).join('');
}

describe('canonical RDATA matches ldns-read-zone -c', () => {
  const mixedName = fc
    .array(fc.stringMatching(/^[a-zA-Z0-9]{1,8}$/), { minLength: 1, maxLength: 3 })
    .map((labels) => `${labels.join('.')}.`);
  const record = fc.oneof(
    ...[
      'MX 10 @',
      'NS @',
      'CNAME @',
      'PTR @',
      'DNAME @',
      'MB @',
      'MG @',
      'MR @',
      'SRV 1 2 3 @',
      'NAPTR 1 2 "S" "SIP+D2U" "" @',
      'RP @ @',
      'AFSDB 1 @',
      'KX 1 @',
      'PX 1 @ @',
      'MINFO @ @',
      'RT 1 @',
      'NSEC @ A MX RRSIG',
      'RRSIG A 13 2 3600 20270101000000 20260101000000 12345 @ AAAA',
      'TXT "AbC" "dEf"',
      'HINFO "PC" "Linux"',
    ].map((template) =>
      fc.array(mixedName, { minLength: 2, maxLength: 2 }).map(([a, b]) => template.replace('@', a!).replace('@', b!)),
    ),
  );

  it('lowercases exactly the names RFC 4034 section 6.2 and RFC 6840 section 5.1 list', () => {
    // ldns keeps one SOA (the zone's), so one comes first; the rest are drawn.
    const lines = ['SOA NS1.Example. Admin.EXAMPLE. 1 2 3 4 5', ...fc.sample(record, { seed: SEED, numRuns: 150 })];
    withTempDir((dir) => {
      writeFileSync(join(dir, 'r'), lines.map((l, i) => `n${i}.example. 3600 IN ${l}`).join('\n'));
      const raw = readRecords(dir, 'r');
      writeFileSync(join(dir, 'c'), ldns(dir, 'ldns-read-zone', ['-c', 'r']));
      const canonical = readRecords(dir, 'c');
      expect(raw).toHaveLength(lines.length);
      expect(raw.map((r) => hex(canonicalRdata(r.rrtype, r.rdata)))).toEqual(canonical.map((r) => hex(r.rdata)));
      // Not a vacuous check: most records had upper-case names to fold.
      expect(raw.filter((r, i) => hex(r.rdata) !== hex(canonical[i]!.rdata)).length).toBeGreaterThan(100);
    });
  });
});

describe('key tags match ldns', () => {
  it('computes the tags ldns prints for random DNSKEYs, algorithm 1 included', () => {
    const dnskey = fc
      .tuple(
        fc.integer({ min: 0, max: 0xffff }),
        fc.constantFrom(1, 5, 8, 13, 15, 253),
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
      )
      .map(([flags, algorithm, key]) => Uint8Array.of(flags >> 8, flags & 0xff, 3, algorithm, ...key));
    const keys = fc.sample(dnskey, { seed: SEED, numRuns: 80 });
    withTempDir((dir) => {
      writeFileSync(join(dir, 'k'), keys.map((k) => `example. 3600 IN TYPE48 \\# ${k.length} ${hex(k)}`).join('\n'));
      const ids = [...ldns(dir, 'ldns-read-zone', ['k']).matchAll(/;\{id = (\d+)/g)].map((m) => Number(m[1]));
      expect(ids).toHaveLength(keys.length);
      expect(keys.map(keyTag)).toEqual(ids);
    });
  });
});

describe('NSEC3 hashes match ldns-nsec3-hash', () => {
  it('hashes random names with random salts and iteration counts', () => {
    const plainLabel = fc.stringMatching(/^[a-zA-Z0-9-]{1,10}$/);
    fc.assert(
      fc.property(
        fc.array(plainLabel, { minLength: 1, maxLength: 4 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.integer({ min: 0, max: 25 }),
        (labels, salt, iterations) => {
          const name = labels.join('.');
          const args = ['-t', String(iterations), ...(salt.length > 0 ? ['-s', hex(salt)] : []), '--', name];
          const expected = ldns('/tmp', 'ldns-nsec3-hash', args).trim();
          expect(`${base32hexEncode(nsec3Hash(parseName(name), salt, iterations))}.`).toBe(expected);
        },
      ),
      { seed: SEED, numRuns: 30 },
    );
  });

  it('decodes base32hex back, either case', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 40 }).filter((b) => (b.length * 8) % 5 === 0),
        (b) => {
          const text = base32hexEncode(b);
          expect(base32hexDecode(Buffer.from(text))).toEqual(b);
          expect(base32hexDecode(Buffer.from(text.toUpperCase()))).toEqual(b);
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
    expect(base32hexDecode(Buffer.from('xyz'))).toBeUndefined();
  });
});
