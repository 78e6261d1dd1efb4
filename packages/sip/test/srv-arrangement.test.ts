/**
 * RFC 2782: before each running-sum draw, a priority's records are arranged "in any order,
 * except that all those with weight 0 are placed at the beginning". A target plan arranges them
 * at random for every draw, so pick 0 has no favourite: with every weight 0 (the common case),
 * each record comes first as often as any other. The random source is scripted: each warm
 * draw gets every combination of the arrangement's numbers exactly once, so counts are exact.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, withCache, type RandomSource } from '@dnscore/core';
import { SipLocator } from '../src/index.js';
import { srvPoolZone } from '../../../test/support/srv-pool-zone.js';

/** A locator over _sip._udp.pool.example with these SRV records ("priority weight host"), and a scripted random. */
function pool(records: readonly string[]) {
  const zone = srvPoolZone(records);
  const script: number[] = [];
  const random: RandomSource = () => {
    const next = script.shift();
    if (next === undefined) throw new Error('the draw asked for more random numbers than scripted');
    return next;
  };
  const core = new DnsCore([withCache(new ZoneResolver({ zones: [{ text: zone }] }))]);
  const locator = new SipLocator(core, { transports: ['udp'], ipv6: false, random });
  return { locator, script };
}

/** The host labels of a resolution's targets, in order. */
async function order(locator: SipLocator): Promise<string> {
  return (await locator.resolve('sip:pool.example')).targets.map((t) => t.host.split('.')[0]).join(' ');
}

/** u such that Math.floor(u * n) === j. */
const choose = (j: number, n: number) => (j + 0.5) / n;

describe('target plans: a fresh random arrangement before each RFC 2782 draw', () => {
  it('every weight 0: each arrangement, so each record first, equally often', async () => {
    const { locator, script } = pool(['10 0 a', '10 0 b', '10 0 c']);
    await order(locator); // the walk that makes the plan (the core's draw, not scripted)
    const orders = new Map<string, number>();
    for (let round = 0; round < 10; round++) {
      for (let j1 = 0; j1 < 2; j1++) {
        for (let j2 = 0; j2 < 3; j2++) {
          // Two numbers arrange the three records, then one per record for the running-sum draw.
          script.push(choose(j1, 2), choose(j2, 3), 0.5, 0.5, 0.5);
          const drawn = await order(locator);
          expect(script).toEqual([]);
          orders.set(drawn, (orders.get(drawn) ?? 0) + 1);
        }
      }
    }
    // All six orders, ten times each; so each record is first 20 times of 60.
    expect([...orders.entries()].sort()).toEqual([
      ['a b c', 10],
      ['a c b', 10],
      ['b a c', 10],
      ['b c a', 10],
      ['c a b', 10],
      ['c b a', 10],
    ]);
  });

  it('weight 0 first, then the running sum: {0, 10, 30} first 1, 10, 30 times of 41 in each arrangement', async () => {
    const { locator, script } = pool(['10 10 t', '10 0 z', '10 30 h', '20 0 backup']);
    await order(locator);
    const first = new Map<string, number>();
    for (let j1 = 0; j1 < 2; j1++) {
      for (let j2 = 0; j2 < 3; j2++) {
        for (let pick = 0; pick <= 40; pick++) {
          script.push(choose(j1, 2), choose(j2, 3), choose(pick, 41), 0.5, 0.5, 0.5);
          const drawn = await order(locator);
          expect(script).toEqual([]);
          expect(drawn.split(' ')[3]).toBe('backup');
          const host = drawn.split(' ')[0]!;
          first.set(host, (first.get(host) ?? 0) + 1);
        }
      }
    }
    expect(Object.fromEntries(first)).toEqual({ z: 6, t: 60, h: 180 });
  });

  it('several weight-0 records among weighted ones: pick 0 goes to each of them equally', async () => {
    const { locator, script } = pool(['10 0 x', '10 5 a', '10 0 y']);
    await order(locator);
    const first = new Map<string, number>();
    for (let j1 = 0; j1 < 2; j1++) {
      for (let j2 = 0; j2 < 3; j2++) {
        for (let pick = 0; pick <= 5; pick++) {
          script.push(choose(j1, 2), choose(j2, 3), choose(pick, 6), 0.5, 0.5);
          const host = (await order(locator)).split(' ')[0]!;
          expect(script).toEqual([]);
          first.set(host, (first.get(host) ?? 0) + 1);
        }
      }
    }
    // 36 draws: a takes picks 1..5 (30), pick 0 goes 3 times to x and 3 times to y.
    expect(Object.fromEntries(first)).toEqual({ a: 30, x: 3, y: 3 });
  });
});
