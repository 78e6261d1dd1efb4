/**
 * The exact first-pick share of each SRV host, checked against the draw itself: `orderSrv`
 * handed every pick 0..sum once (a random source that walks them) must put each host first
 * exactly `numerator` times, plus pick 0 where `pickZero` says it may.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, orderSrv, type SrvData } from '@dnscore/core';
import { SipLocator } from '@dnscore/sip';
import { expectedShares, type ExpectedShare } from '../src/api/shares.js';

/** The shares for _sip._udp.pool.example with these SRV records ("priority weight host"). */
async function shares(records: readonly string[]): Promise<ExpectedShare[]> {
  const hosts = [...new Set(records.map((r) => r.split(' ')[2]!))];
  const zone = [
    '$ORIGIN pool.example.',
    '$TTL 300',
    '@ IN SOA ns h 1 3600 600 86400 300',
    ...records.map((r) => {
      const [priority, weight, host] = r.split(' ');
      return `_sip._udp IN SRV ${priority} ${weight} 5060 ${host}`;
    }),
    ...hosts.map((h, i) => `${h} IN A 192.0.2.${i + 1}`),
  ].join('\n');
  const locator = new SipLocator(new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })]), {
    transports: ['udp'],
    ipv6: false,
  });
  return expectedShares(await locator.resolve('sip:pool.example'));
}

const row = (s: ExpectedShare) =>
  `${s.host.split('.')[0]} ${s.numerator}/${s.denominator}${s.pickZero ? ' +pick0' : ''}`;

/** How often each record comes first when `orderSrv` gets each pick 0..sum exactly once. */
function firstPicks(weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const records = weights.map((weight, i) => ({
    data: { priority: 10, weight, port: 5060, target: `h${i}` } as SrvData,
  }));
  const counts = weights.map(() => 0);
  for (let pick = 0; pick <= sum; pick++) {
    let calls = 0;
    const random = () => (calls++ === 0 ? (pick + 0.5) / (sum + 1) : 0);
    const first = orderSrv(records, random)[0]!;
    counts[records.indexOf(first)]!++;
  }
  return counts;
}

describe('expectedShares: the exact chance of the RFC 2782 draw', () => {
  it('one weight-0 host takes pick 0: 1/(sum+1); the others weight/(sum+1); a later priority 0', async () => {
    expect((await shares(['10 10 a', '10 0 z', '10 30 b', '20 50 c'])).map(row)).toEqual([
      'b 30/41',
      'a 10/41',
      'z 1/41',
      'c 0/41',
    ]);
    // The draw itself, whatever order the answer had: the weight-0 record is first on pick 0 only.
    expect(firstPicks([10, 0, 30])).toEqual([10, 1, 30]);
    expect(firstPicks([30, 10, 0])).toEqual([30, 10, 1]);
  });

  it('without a weight-0 host, pick 0 goes to the first record of the answer: said, not guessed', async () => {
    const found = await shares(['10 60 sip1', '10 40 sip2']);
    expect(found.map(row)).toEqual(['sip1 60/101 +pick0', 'sip2 40/101 +pick0']);
    expect(found.map((s) => s.share)).toEqual([60 / 101, 40 / 101]);
    expect(firstPicks([60, 40])).toEqual([61, 40]);
    expect(firstPicks([40, 60])).toEqual([41, 60]);
  });

  it('several weight-0 hosts: each may take pick 0, none of them anything else', async () => {
    expect((await shares(['10 0 x', '10 0 y', '10 10 a'])).map(row)).toEqual([
      'a 10/11',
      'x 0/11 +pick0',
      'y 0/11 +pick0',
    ]);
    expect(firstPicks([0, 0, 10])).toEqual([1, 0, 10]);
    // Every weight 0: one pick, always the first record of the answer.
    expect((await shares(['10 0 x', '10 0 y'])).map(row)).toEqual(['x 0/1 +pick0', 'y 0/1 +pick0']);
    expect(firstPicks([0, 0])).toEqual([1, 0]);
  });

  it('a single host of the lowest priority is always first: 1/1, weight or not', async () => {
    expect((await shares(['10 0 only', '20 10 later'])).map(row)).toEqual(['only 1/1', 'later 0/1']);
    expect((await shares(['10 7 only'])).map(row)).toEqual(['only 8/8']);
  });
});
