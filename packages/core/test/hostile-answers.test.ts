/**
 * Issue 21, hostile input round 2, the answers an attacker forged to stretch a lifetime or
 * slip data past the re-ask: each test is the attack as found, with a fake clock where the
 * attack was "for ever".
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, withCache } from '@dnscore/core';
import type { PluginAnswer } from '@dnscore/core/plugin';
import { answerLifetime } from '../src/answer-lifetime.js';
import { makeQuery } from '../src/query.js';
import { answerPacket, bytes, domain, u32 } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';
import { fakeClock } from './support/fake-clock.js';

const A = 1;
const CNAME = 5;
const SOA = 6;
const IN = 1;
const ANY = 255;
const LIMITS = { maxTtl: 86_400, maxNegativeTtl: 3_600, maxBogusTtl: 60 };
const TEN_YEARS = 10 * 365 * 86_400;

const soaRdata = (zone: string, minimum: number) =>
  bytes(domain(`ns.${zone}`), domain(`host.${zone}`), u32(1), u32(2), u32(3), u32(4), u32(minimum));

function nxdomain(name: string, soaClass: number, soaTtl = 3600, minimum = 300): PluginAnswer {
  return {
    rcode: 3,
    answer: answerPacket({
      rcode: 3,
      question: { name, type: A },
      authorities: [
        { name: 'bank.example', type: SOA, class: soaClass, ttl: soaTtl, rdata: soaRdata('bank.example', minimum) },
      ],
    }),
  };
}

describe('item 1: a negative answer whose SOA has class ANY', () => {
  it('gives no lifetime (not NaN) and no negative TTL', async () => {
    const query = makeQuery('www.bank.example', 'A');
    const forged = nxdomain('www.bank.example', ANY);
    expect(answerLifetime(query, forged, LIMITS)).toBe(0);
    const result = await new DnsCore([fakePlugin({ answer: forged })]).resolve('www.bank.example', 'A');
    expect(result.negativeTtl).toBe(0);
    expect(result.rcode).toBe(3);
  });

  it('is not cached: the next question asks again, and ten years later the real answer is served', async () => {
    const clock = fakeClock();
    let forge = true;
    const inner = fakePlugin({
      answer: (q) =>
        forge
          ? nxdomain(q.name, ANY)
          : {
              rcode: 0,
              answer: answerPacket({
                question: { name: q.name, type: A },
                answers: [{ type: A, ttl: 300, rdata: bytes([192, 0, 2, 7]) }],
              }),
            },
    });
    const cached = withCache(inner, { clock });
    const core = new DnsCore([cached]);
    expect((await core.resolve('www.bank.example', 'A')).rcode).toBe(3);
    expect(cached.stats.size).toBe(0);
    forge = false;
    clock.advance(TEN_YEARS);
    expect((await core.resolve('www.bank.example', 'A')).records.map((r) => r.data)).toEqual(['192.0.2.7']);
    expect(inner.calls).toHaveLength(2);
  });

  it('the same SOA in class IN is used, clamped to maxNegativeTtl, and expires', async () => {
    const clock = fakeClock();
    const inner = fakePlugin({ answer: (q) => nxdomain(q.name, IN, 0x7fffffff, 0xffffffff) });
    const cached = withCache(inner, { clock, maxNegativeTtl: 900 });
    const core = new DnsCore([cached]);
    await core.resolve('www.bank.example', 'A');
    clock.advance(899);
    await core.resolve('www.bank.example', 'A');
    expect(inner.calls).toHaveLength(1);
    clock.advance(1);
    await core.resolve('www.bank.example', 'A');
    expect(inner.calls).toHaveLength(2);
  });

  it('a lifetime that is not a finite number is never stored (a plugin handing back a NaN age)', async () => {
    const clock = fakeClock();
    const answer = nxdomain('www.bank.example', IN);
    const inner = fakePlugin({ answer: { ...answer, age: Number.NaN } });
    const cached = withCache(inner, { clock });
    await cached.resolve(makeQuery('www.bank.example', 'A'), new AbortController().signal);
    clock.advance(TEN_YEARS);
    expect(cached.peek(makeQuery('www.bank.example', 'A'))).toBeUndefined();
  });

  it('an SOA of another class is not used for the result either', async () => {
    const chaos = nxdomain('www.bank.example', 3);
    expect(answerLifetime(makeQuery('www.bank.example', 'A'), chaos, LIMITS)).toBe(0);
    expect((await new DnsCore([fakePlugin({ answer: chaos })]).resolve('www.bank.example', 'A')).negativeTtl).toBe(0);
  });
});

describe('item 6: a no-data answer with a record of the right type for another owner', () => {
  const forged: PluginAnswer = {
    rcode: 0,
    answer: answerPacket({
      question: { name: 'www.bank.example', type: A },
      answers: [{ name: 'other.example', type: A, ttl: 86_400, rdata: bytes([6, 6, 6, 6]) }],
    }),
  };

  it('is not positive: no lifetime without an SOA', () => {
    expect(answerLifetime(makeQuery('www.bank.example', 'A'), forged, LIMITS)).toBe(0);
  });

  it('is asked again at once instead of being served as NODATA for a day', async () => {
    const clock = fakeClock();
    const inner = fakePlugin({ answer: forged });
    const cached = withCache(inner, { clock });
    const core = new DnsCore([cached]);
    expect((await core.resolve('www.bank.example', 'A')).records).toEqual([]);
    expect(cached.stats.size).toBe(0);
    await core.resolve('www.bank.example', 'A');
    expect(inner.calls).toHaveLength(2);
  });

  it('a record of the right type whose RDATA is dropped answers nothing (found by npm run fuzz)', () => {
    const broken: PluginAnswer = {
      rcode: 0,
      answer: answerPacket({
        question: { name: 'www.bank.example', type: A },
        answers: [{ type: A, ttl: 86_400, rdata: bytes([192, 0, 2, 1, 0, 0]) }],
      }),
    };
    expect(answerLifetime(makeQuery('www.bank.example', 'A'), broken, LIMITS)).toBe(0);
  });

  it('only records that answer the question set a positive lifetime (the chain and its end)', () => {
    const answer: PluginAnswer = {
      rcode: 0,
      answer: answerPacket({
        question: { name: 'www.bank.example', type: A },
        answers: [
          { type: CNAME, ttl: 600, rdata: bytes(domain('edge.www.bank.example')) },
          { name: 'edge.www.bank.example', type: A, ttl: 120, rdata: bytes([192, 0, 2, 1]) },
          { name: 'other.example', type: A, ttl: 5, rdata: bytes([6, 6, 6, 6]) },
        ],
      }),
    };
    expect(answerLifetime(makeQuery('www.bank.example', 'A'), answer, LIMITS)).toBe(120);
  });

  it('a chain that stops short of its end (no SOA) is cached for the chain TTL (issue 21 item 3)', () => {
    const answer: PluginAnswer = {
      rcode: 0,
      answer: answerPacket({
        question: { name: 'www.bank.example', type: A },
        answers: [{ type: CNAME, ttl: 600, rdata: bytes(domain('cdn.elsewhere.example')) }],
      }),
    };
    expect(answerLifetime(makeQuery('www.bank.example', 'A'), answer, LIMITS)).toBe(600);
  });
});

describe('item 7: a CNAME chain from a two-label name', () => {
  it('to a sibling under the TLD is re-asked, so forged data for its end is not trusted', async () => {
    const plugin = fakePlugin({
      answer: (q) =>
        q.name === 'bank.example'
          ? {
              rcode: 0,
              answer: answerPacket({
                question: { name: 'bank.example', type: A },
                answers: [
                  { type: CNAME, rdata: bytes(domain('login.evil.example')) },
                  { name: 'login.evil.example', type: A, rdata: bytes([6, 6, 6, 6]) },
                ],
              }),
            }
          : {
              rcode: 0,
              answer: answerPacket({
                question: { name: q.name, type: A },
                answers: [{ type: A, rdata: bytes([192, 0, 2, 44]) }],
              }),
            },
    });
    const result = await new DnsCore([plugin]).resolve('bank.example', 'A');
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.44']);
    expect(plugin.calls.map((c) => c.query.name)).toEqual(['bank.example', 'login.evil.example']);
  });

  it('from a name below a two-label name to its parent is re-asked too', async () => {
    const plugin = fakePlugin({
      answer: (q) =>
        q.name === 'www.bank.example'
          ? {
              rcode: 0,
              answer: answerPacket({
                question: { name: 'www.bank.example', type: A },
                answers: [
                  { type: CNAME, rdata: bytes(domain('pay.example')) },
                  { name: 'pay.example', type: A, rdata: bytes([6, 6, 6, 6]) },
                ],
              }),
            }
          : {
              rcode: 0,
              answer: answerPacket({
                question: { name: q.name, type: A },
                answers: [{ type: A, rdata: bytes([192, 0, 2, 45]) }],
              }),
            },
    });
    const result = await new DnsCore([plugin]).resolve('www.bank.example', 'A');
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.45']);
    expect(plugin.calls.map((c) => c.query.name)).toEqual(['www.bank.example', 'pay.example']);
  });
});
