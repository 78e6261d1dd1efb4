/**
 * Property: every answer packet, valid or mutated, either ends in a typed DnsError or decodes
 * into records x with decode(encode(x)) deep-equal to x. Bytes may differ (compression).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DnsError, makeQuery, type DnsRecord } from '@dnscore/core';
import { buildResult } from '@dnscore/core/plugin';
import { encodeAnswer } from '../support/encode.js';
import { comparable, record } from './arbitraries.js';
import { mutate, STRUCTURAL_MUTATIONS } from '../support/packet-mutations.js';

function decodeOnly(r: DnsRecord): DnsRecord {
  const result = buildResult(makeQuery(r.name, r.rrtype), {
    rcode: 0,
    answer: encodeAnswer([r], { name: r.name, type: r.rrtype }),
  });
  expect(result.dropped).toEqual([]);
  expect(result.records).toHaveLength(1);
  return result.records[0]!;
}

const mutation = fc.oneof(...STRUCTURAL_MUTATIONS);

describe('packets (property)', () => {
  it('a valid record decodes to itself, and re-encodes to itself', () => {
    fc.assert(
      fc.property(record, (r) => {
        const decoded = decodeOnly(r);
        expect(comparable(decoded)).toEqual(comparable(r));
        expect(comparable(decodeOnly(decoded))).toEqual(comparable(decoded));
      }),
      { numRuns: 400 },
    );
  });

  it('a mutated packet ends in a typed error or in records that round-trip', () => {
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 4 }),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (records, mutations) => {
          const first = records[0]!;
          const owned = records.map(
            (r) => ({ ...r, name: first.name, rrtype: first.rrtype, type: first.type, data: first.data }) as DnsRecord,
          );
          const packet = mutate(encodeAnswer(owned, { name: first.name, type: first.rrtype }), mutations);
          let result: ReturnType<typeof buildResult>;
          try {
            result = buildResult(makeQuery(first.name, first.rrtype), { rcode: 0, answer: packet });
          } catch (error) {
            expect(error).toBeInstanceOf(DnsError);
            return;
          }
          for (const r of [...result.records, ...result.authority, ...result.additional]) {
            expect(comparable(decodeOnly(r))).toEqual(comparable(r));
          }
          for (const d of result.dropped) expect(d.reason.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('random bytes end in a typed error or in a result, never in anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          buildResult(makeQuery('goose.feathers', 'A'), { rcode: 0, answer: bytes });
        } catch (error) {
          expect(error).toBeInstanceOf(DnsError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
