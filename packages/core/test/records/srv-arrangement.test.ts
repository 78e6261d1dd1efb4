/**
 * RFC 2782: before a priority's running-sum draw its records are arranged "in any order, except
 * that all those with weight 0 are placed at the beginning". The core arranges them at random
 * on every draw, a miss or a cache hit, so the order of the answer (a cached entry's for its
 * whole life) favours no record. The scripted random source says which numbers a draw takes
 * and in which order: the arrangement's first, then the picks.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, orderSrv, type RandomSource, seededRandom, type SrvData, withCache } from '@dnscore/core';
import { answerPacket, srvRdata } from '../support/packets.js';
import { fakePlugin } from '../support/fake-plugin.js';

const SRV = 33;

/** "priority weight target" to SRV data. */
const srv = (text: string): { data: SrvData } => {
  const [priority, weight, target] = text.split(' ');
  return { data: { priority: Number(priority), weight: Number(weight), port: 5060, target: target! } };
};

/** A random source handing out the numbers pushed, and failing when the draw asks for one more. */
function scripted(): { random: RandomSource; script: number[] } {
  const script: number[] = [];
  const random: RandomSource = () => {
    const next = script.shift();
    if (next === undefined) throw new Error('the draw asked for more random numbers than scripted');
    return next;
  };
  return { random, script };
}

/** u such that Math.floor(u * n) === j. */
const choose = (j: number, n: number) => (j + 0.5) / n;

/** A core over a cached plugin that answers _sip._udp.pool.example SRV with these records, in this order. */
function cachedCore(records: readonly string[], random: RandomSource) {
  const answer = answerPacket({
    question: { name: '_sip._udp.pool.example', type: SRV },
    answers: records.map((text) => {
      const { data } = srv(text);
      return { type: SRV, ttl: 600, rdata: srvRdata(data.priority, data.weight, data.port, data.target) };
    }),
  });
  const inner = fakePlugin({ answer: { rcode: 0, answer } });
  return { core: new DnsCore([withCache(inner)], { random }), inner };
}

const targets = (records: readonly { data: SrvData }[]) => records.map((r) => r.data.target).join(' ');

describe('SRV: a random arrangement of each priority before its draw', () => {
  it('every weight 0: over seeded cache hits, each record comes first, and each takes every place', async () => {
    const { core, inner } = cachedCore(['10 0 a', '10 0 b', '10 0 c', '20 0 d', '20 0 e'], seededRandom(11));
    const firsts = new Map<string, number>();
    const orders = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const order = targets((await core.resolve('_sip._udp.pool.example', 'SRV')).records);
      firsts.set(order[0]!, (firsts.get(order[0]!) ?? 0) + 1);
      orders.add(order);
    }
    expect(inner.calls).toHaveLength(1); // one miss, 299 hits
    expect([...firsts.keys()].sort()).toEqual(['a', 'b', 'c']);
    // 3! arrangements of priority 10 times 2! of priority 20: all of them show up.
    expect(orders.size).toBe(12);
    for (const order of orders) expect(order.slice(6)).toMatch(/^(d e|e d)$/);
  });

  it('weight 0 among weighted records: pick 0 goes to each weight-0 record, not always the first given', () => {
    const records = ['10 0 x', '10 5 a', '10 0 y'].map(srv);
    const random = seededRandom(3);
    const firsts = new Set<string>();
    for (let i = 0; i < 400; i++) firsts.add(orderSrv(records, random)[0]!.data.target);
    expect([...firsts].sort()).toEqual(['a', 'x', 'y']);
  });

  it('takes the arrangement numbers first (inside-out Fisher-Yates), then one pick per record', () => {
    const records = ['10 10 t', '10 0 z', '10 30 h', '20 0 backup'].map(srv);
    const { random, script } = scripted();
    // Priority 10: [t] -> j=1 of 2 keeps [t z] -> j=0 of 3 gives [h z t]; weight 0 first: [z h t].
    // Picks in [0, 40]: 5 reaches h (running 0, 30); then [0, 10]: t. Priority 20: nothing to
    // arrange, one pick.
    script.push(choose(1, 2), choose(0, 3), choose(5, 41), choose(3, 11), choose(0, 1), choose(0, 1));
    expect(targets(orderSrv(records, random))).toBe('h t z backup');
    expect(script).toEqual([]);
    // The same picks after another arrangement: [t z] -> [z t] -> [z t h]: 5 reaches t now.
    script.push(choose(0, 2), choose(2, 3), choose(5, 41), choose(3, 31), choose(0, 1), choose(0, 1));
    expect(targets(orderSrv(records, random))).toBe('t h z backup');
    expect(script).toEqual([]);
  });

  it('every weight 0: the arrangement alone decides, each of the 6 orders once per 6 scripted draws', () => {
    const records = ['1 0 a', '1 0 b', '1 0 c'].map(srv);
    const { random, script } = scripted();
    const orders: string[] = [];
    for (let j1 = 0; j1 < 2; j1++) {
      for (let j2 = 0; j2 < 3; j2++) {
        // Two arrangement numbers, then three picks in [0, 0].
        script.push(choose(j1, 2), choose(j2, 3), 0.5, 0.5, 0.5);
        orders.push(targets(orderSrv(records, random)));
        expect(script).toEqual([]);
      }
    }
    expect(orders).toEqual(['c a b', 'b c a', 'b a c', 'c b a', 'a c b', 'a b c']);
  });

  it('a cache hit draws from a fresh arrangement too: the same numbers as a direct draw', async () => {
    const { random, script } = scripted();
    const { core, inner } = cachedCore(['10 0 a', '10 0 b', '10 0 c'], random);
    script.push(0.5, 0.5, 0.5, 0.5, 0.5);
    await core.resolve('_sip._udp.pool.example', 'SRV'); // the miss
    for (const [j1, j2, expected] of [
      [0, 0, 'c a b'],
      [1, 1, 'a c b'],
      [1, 2, 'a b c'],
    ] as const) {
      script.push(choose(j1, 2), choose(j2, 3), 0.5, 0.5, 0.5);
      expect(targets((await core.resolve('_sip._udp.pool.example', 'SRV')).records)).toBe(expected);
      expect(script).toEqual([]);
    }
    expect(inner.calls).toHaveLength(1);
  });
});
