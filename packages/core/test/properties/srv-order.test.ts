/** RFC 2782 order on arbitrary SRV sets: priorities never go backwards, weights get their share. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderSrv, seededRandom } from '@dnscore/core';

const srv = fc.record({
  data: fc.record({
    priority: fc.integer({ min: 0, max: 3 }),
    weight: fc.integer({ min: 0, max: 100 }),
    port: fc.constant(5060),
    target: fc.string(),
  }),
});

describe('SRV order (property)', () => {
  it('is a permutation with priorities ascending', () => {
    fc.assert(
      fc.property(fc.array(srv, { maxLength: 12 }), fc.integer(), (records, seed) => {
        const ordered = orderSrv(records, seededRandom(seed));
        expect([...ordered].sort(byIdentity(records))).toEqual([...records].sort(byIdentity(records)));
        for (let i = 1; i < ordered.length; i++)
          expect(ordered[i]!.data.priority).toBeGreaterThanOrEqual(ordered[i - 1]!.data.priority);
      }),
      { numRuns: 500 },
    );
  });

  it('puts each record first with probability (weight + its share of pick 0) / (sum + 1)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 2, maxLength: 4 }),
        fc.integer(),
        (weights, seed) => {
          const records = weights.map((weight, i) => ({ data: { priority: 1, weight, port: 1, target: `t${i}` } }));
          // RFC 2782: weight-0 records go first in the running sum, the draw is uniform in [0, sum];
          // the records are arranged at random first, so pick 0 goes to each weight-0 record
          // equally (to each record equally when none has weight 0).
          const zeros = weights.filter((w) => w === 0).length;
          const takesPickZero = (weight: number) => (zeros === 0 ? 1 / weights.length : weight === 0 ? 1 / zeros : 0);
          const sum = weights.reduce((a, b) => a + b, 0);
          const random = seededRandom(seed);
          const draws = 4000;
          const first = new Map<string, number>();
          for (let i = 0; i < draws; i++) {
            const target = orderSrv(records, random)[0]!.data.target;
            first.set(target, (first.get(target) ?? 0) + 1);
          }
          for (const r of records) {
            const expected = (r.data.weight + takesPickZero(r.data.weight)) / (sum + 1);
            expect(Math.abs((first.get(r.data.target) ?? 0) / draws - expected)).toBeLessThan(0.04);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

function byIdentity<T>(records: readonly T[]): (a: T, b: T) => number {
  return (a, b) => records.indexOf(a) - records.indexOf(b);
}
