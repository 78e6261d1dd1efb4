/**
 * The exact first-pick share of each SRV host, checked against the draw itself: a SIP target
 * plan's warm draws, handed by a scripted random source every arrangement of the lowest
 * priority's records and every pick 0..sum exactly once, must put each host first exactly
 * `share` of the time.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, withCache, ZoneResolver } from '@dnscore/core';
import { SipLocator } from '@dnscore/sip';
import { expectedShares, type ExpectedShare } from '../src/api/shares.js';
import { srvPoolZone } from '../../../test/support/srv-pool-zone.js';

/**
 * The shares for _sip._udp.pool.example with these SRV records ("priority weight host"), and how
 * often each host comes first over every arrangement and pick. Later priorities hold one record
 * each here, so the draw asks for the lowest run's arrangement numbers, then its pick.
 */
async function shares(records: readonly string[]): Promise<{ shares: ExpectedShare[]; first: Map<string, number> }> {
  const zone = srvPoolZone(records);
  const script: number[] = [];
  const random = () => script.shift() ?? 0.5;
  const core = new DnsCore([withCache(new ZoneResolver({ zones: [{ text: zone }] }))]);
  const locator = new SipLocator(core, { transports: ['udp'], ipv6: false, random });
  const found = expectedShares(await locator.resolve('sip:pool.example'));
  const lowest = Math.min(...records.map((r) => Number(r.split(' ')[0])));
  const run = records.filter((r) => Number(r.split(' ')[0]) === lowest);
  const sum = run.reduce((s, r) => s + Number(r.split(' ')[1]), 0);
  const first = new Map<string, number>();
  // Every choice j_i in 0..i of the inside-out shuffle of the run, with every pick.
  const arrangements = (i: number): number[][] =>
    i >= run.length
      ? [[]]
      : Array.from({ length: i + 1 }, (_, j) =>
          arrangements(i + 1).map((rest) => [(j + 0.5) / (i + 1), ...rest]),
        ).flat();
  for (const arrangement of arrangements(1)) {
    for (let pick = 0; pick <= sum; pick++) {
      script.push(...arrangement, (pick + 0.5) / (sum + 1));
      const host = (await locator.resolve('sip:pool.example')).targets[0]!.host.split('.')[0]!;
      // A single record is not drawn at all.
      expect(script.splice(0).length).toBe(records.length > 1 ? 0 : 1);
      first.set(host, (first.get(host) ?? 0) + 1);
    }
  }
  return { shares: found, first };
}

const row = (s: ExpectedShare) =>
  `${s.host.split('.')[0]} ${s.numerator}/${s.denominator}${s.pickZero ? ' +pick0' : ''}`;

/** Each host's count of firsts over all draws is exactly its share of them. */
function matches({ shares: found, first }: Awaited<ReturnType<typeof shares>>): void {
  const draws = [...first.values()].reduce((a, b) => a + b, 0);
  for (const s of found) expect((first.get(s.host.split('.')[0]!) ?? 0) * s.denominator).toBe(s.numerator * draws);
}

describe('expectedShares: the exact chance of the RFC 2782 draw', () => {
  it('one weight-0 host takes pick 0: 1/(sum+1); the others weight/(sum+1); a later priority 0', async () => {
    const found = await shares(['10 10 a', '10 0 z', '10 30 b', '20 50 c']);
    expect(found.shares.map(row)).toEqual(['b 30/41', 'a 10/41', 'z 1/41 +pick0', 'c 0/41']);
    // 6 arrangements x 41 picks.
    expect(Object.fromEntries(found.first)).toEqual({ b: 180, a: 60, z: 6 });
    matches(found);
  });

  it('without a weight-0 host, pick 0 goes to each record equally', async () => {
    const found = await shares(['10 60 sip1', '10 40 sip2']);
    expect(found.shares.map(row)).toEqual(['sip1 121/202 +pick0', 'sip2 81/202 +pick0']);
    expect(found.shares.map((s) => s.share)).toEqual([121 / 202, 81 / 202]);
    expect(Object.fromEntries(found.first)).toEqual({ sip1: 121, sip2: 81 });
    matches(found);
  });

  it('several weight-0 hosts: each takes its equal part of pick 0, none of them anything else', async () => {
    const found = await shares(['10 0 x', '10 0 y', '10 10 a']);
    expect(found.shares.map(row)).toEqual(['a 20/22', 'x 1/22 +pick0', 'y 1/22 +pick0']);
    matches(found);
    // Every weight 0 (the common case): one pick, each record first equally often.
    const zeros = await shares(['10 0 x', '10 0 y', '10 0 w']);
    expect(zeros.shares.map(row)).toEqual(['w 1/3 +pick0', 'x 1/3 +pick0', 'y 1/3 +pick0']);
    expect(Object.fromEntries(zeros.first)).toEqual({ x: 2, y: 2, w: 2 });
    matches(zeros);
  });

  it('a single host of the lowest priority is always first: 1/1, weight or not', async () => {
    expect((await shares(['10 0 only', '20 10 later'])).shares.map(row)).toEqual(['only 1/1 +pick0', 'later 0/1']);
    expect((await shares(['10 7 only'])).shares.map(row)).toEqual(['only 8/8 +pick0']);
  });
});
