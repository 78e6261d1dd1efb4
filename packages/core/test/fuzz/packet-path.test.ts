/**
 * The standing fuzz harness of the packet path (issue 21): seeded mutations of a corpus of
 * real answers (DNSSEC records included) go through the result builder, the cache lifetime and
 * the cache itself, and every packet must keep the rules, not only "no crash":
 * - an error is a typed DnsError;
 * - every lifetime is a finite number in [0, maxTtl], a bogus one at most maxBogusTtl, and
 *   the cache never serves an entry past it (fake clock, ten years on);
 * - item 1: a negative lifetime needs an SOA of the question's class holding the chain's end;
 * - item 6: a positive lifetime needs records that answer the question (or an unfinished chain);
 * - DNSSEC: the status is never better than the backend said; bogus data is never presented.
 * `npm test` runs it briefly (DNSCORE_FUZZ_RUNS, default 300); `npm run fuzz` runs it for
 * DNSCORE_FUZZ_SECONDS (default 3600) with DNSCORE_FUZZ_SEED (default 21).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DnsError, makeQuery, parseName, withCache } from '@dnscore/core';
import { answerLifetime, buildResult, type PluginAnswer } from '@dnscore/core/plugin';
import { isAtOrBelow } from '../../src/bailiwick.js';
import { CORPUS } from './corpus.js';
import { FIELD_MUTATIONS, type Mutation, mutate, STRUCTURAL_MUTATIONS } from '../support/packet-mutations.js';
import { fakeClock } from '../support/fake-clock.js';

const SEED = Number(process.env.DNSCORE_FUZZ_SEED ?? 21);
const SECONDS = Number(process.env.DNSCORE_FUZZ_SECONDS ?? 0);
const RUNS = Number(process.env.DNSCORE_FUZZ_RUNS ?? 300);
const LIMITS = { maxTtl: 86_400, maxNegativeTtl: 3_600, maxBogusTtl: 60 };
const TEN_YEARS_MS = 10 * 365 * 86_400_000;

const mutation = fc.oneof(...STRUCTURAL_MUTATIONS, ...FIELD_MUTATIONS);

const status = fc.constantFrom(
  { secure: false, bogus: false },
  { secure: true, bogus: false },
  { secure: false, bogus: true, whyBogus: 'signature expired' },
);

/** Every rule on one packet. */
async function check(seedIndex: number, mutations: readonly Mutation[], flags: { secure: boolean; bogus: boolean }) {
  const seed = CORPUS[seedIndex % CORPUS.length]!;
  const query = makeQuery(seed.qname, seed.qtype);
  const rcode = mutations.length % 2 === 0 ? 0 : 3;
  const answer: PluginAnswer = { rcode, ...flags, answer: mutate(seed.packet, mutations) };

  const lifetime = answerLifetime(query, answer, LIMITS);
  expect(Number.isFinite(lifetime)).toBe(true);
  expect(lifetime).toBeGreaterThanOrEqual(0);
  expect(lifetime).toBeLessThanOrEqual(flags.bogus ? LIMITS.maxBogusTtl : LIMITS.maxTtl);

  let result: ReturnType<typeof buildResult>;
  try {
    result = buildResult(query, answer);
  } catch (error) {
    expect(error).toBeInstanceOf(DnsError);
    return;
  }
  expect(Number.isFinite(result.negativeTtl)).toBe(true);
  expect(result.negativeTtl).toBeGreaterThanOrEqual(0);
  for (const r of [...result.records, ...result.authority, ...result.additional]) {
    expect(Number.isInteger(r.ttl) && r.ttl >= 0 && r.ttl <= 0x7fffffff).toBe(true);
  }
  // DNSSEC: never better than what the backend said; bogus data never presented.
  expect(result.secure).toBe(flags.secure);
  if (flags.bogus)
    expect([result.records, result.additional, result.authority, result.negativeTtl]).toEqual([[], [], [], 0]);

  if (lifetime > 0 && !flags.bogus) {
    const answers = result.records.length > 0;
    const chainEnd = parseName(result.canonical);
    const unfinishedChain = rcode === 0 && result.canonical.toLowerCase() !== query.name.toLowerCase();
    // Item 1: no negative lifetime without an SOA of the question's class holding the chain's end.
    const soa = result.authority.some(
      (r) => r.type === 'SOA' && r.class === query.class && isAtOrBelow(chainEnd, parseName(r.name)),
    );
    // Item 6: a positive lifetime only from records that answer the question.
    expect(answers || soa || unfinishedChain).toBe(true);
    if (!answers && !unfinishedChain) expect(lifetime).toBeLessThanOrEqual(LIMITS.maxNegativeTtl);
  }

  // Through the cache: never an entry past its lifetime (ten years on, the backend is asked).
  const clock = fakeClock();
  let asked = 0;
  const cached = withCache(
    {
      name: 'fuzz',
      priority: 0,
      available: () => true,
      close() {},
      resolve: async () => {
        asked++;
        return answer;
      },
    },
    { clock, ...LIMITS },
  );
  await cached.resolve(query, new AbortController().signal);
  clock.advance(lifetime);
  expect(cached.peek(query)).toBeUndefined();
  clock.advanceMs(TEN_YEARS_MS);
  await cached.resolve(query, new AbortController().signal);
  expect(asked).toBe(2);
}

describe('fuzz: the packet path keeps its rules on every mutated answer', () => {
  it('the corpus itself builds without error', () => {
    for (const seed of CORPUS) {
      const result = buildResult(makeQuery(seed.qname, seed.qtype), { rcode: 0, answer: seed.packet });
      expect(result.dropped.filter((d) => d.rule !== 'out-of-bailiwick')).toEqual([]);
    }
  });

  it(
    `mutated answers (seed ${SEED}${SECONDS > 0 ? `, ${SECONDS} s` : `, ${RUNS} runs`})`,
    async () => {
      const property = fc.asyncProperty(
        fc.nat(),
        fc.array(mutation, { minLength: 0, maxLength: 4 }),
        status,
        (seedIndex, mutations, flags) => check(seedIndex, mutations, flags),
      );
      if (SECONDS > 0) {
        const end = Date.now() + SECONDS * 1000;
        for (let round = 0; Date.now() < end; round++) {
          await fc.assert(property, { seed: SEED + round, numRuns: 5_000 });
        }
      } else {
        await fc.assert(property, { seed: SEED, numRuns: RUNS });
      }
    },
    SECONDS > 0 ? (SECONDS + 600) * 1000 : 60_000,
  );
});
