/**
 * Asterisk's tests/test_dns_srv.c, ported; the weight-0 case inverted as the decisions table
 * of ARCHITECTURE.md says (RFC 2782: a weight-0 record has a very small chance to come first).
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, orderSrv, seededRandom, type SrvData } from '@dnscore/core';
import { answerPacket, bytes, u16 } from '../support/packets.js';
import { fakePlugin } from '../support/fake-plugin.js';
import { srvRdata } from '../support/packets.js';

const SRV = 33;

function coreAnswering(rdatas: Uint8Array[], seed = 1): DnsCore {
  const answer = answerPacket({
    question: { name: 'goose.feathers', type: SRV },
    answers: rdatas.map((rdata) => ({ type: SRV, rdata })),
  });
  return new DnsCore([fakePlugin({ answer: { rcode: 0, answer } })], { random: seededRandom(seed) });
}

const fields = (d: SrvData): [number, number, number, string] => [d.priority, d.weight, d.port, d.target];

describe('SRV: nominal', () => {
  it('srv_resolve_single_record: parses every field', async () => {
    const result = await coreAnswering([srvRdata(10, 10, 5060, 'goose.down')]).resolve('goose.feathers', 'SRV');
    expect(result.records.map((r) => fields(r.data))).toEqual([[10, 10, 5060, 'goose.down']]);
    expect(result.records[0]!.ttl).toBe(12345);
  });

  it('keeps a target "." (decidedly not available, RFC 2782)', async () => {
    const result = await coreAnswering([srvRdata(0, 0, 0, '.')]).resolve('goose.feathers', 'SRV');
    expect(result.records.map((r) => r.data.target)).toEqual(['.']);
  });

  it('srv_resolve_sort_priority: priority 10 comes before 20', async () => {
    const core = coreAnswering([srvRdata(20, 10, 5060, 'tacos'), srvRdata(10, 10, 5060, 'goose.down')]);
    for (let i = 0; i < 20; i++) {
      const result = await core.resolve('goose.feathers', 'SRV');
      expect(result.records.map((r) => r.data.priority)).toEqual([10, 20]);
    }
  });

  it('srv_resolve_same_priority_different_weights: weight 20 is first at least as often as weight 10', async () => {
    const core = coreAnswering([srvRdata(10, 10, 5060, 'goose.down'), srvRdata(10, 20, 5060, 'moo')]);
    let first10 = 0;
    let first20 = 0;
    for (let i = 0; i < 100; i++) {
      const [first] = (await core.resolve('goose.feathers', 'SRV')).records;
      if (first!.data.weight === 10) first10++;
      else first20++;
    }
    expect(first20).toBeGreaterThanOrEqual(first10);
  });

  it(
    'srv_resolve_different_priorities_different_weights: priorities 5,5,10,10 and {5,80} first at least as often as ' +
      '{5,10}',
    async () => {
      const core = coreAnswering([
        srvRdata(10, 10, 5060, 'goose.down'),
        srvRdata(10, 20, 5060, 'moo'),
        srvRdata(5, 80, 5060, 'Canada'),
        srvRdata(5, 10, 5060, 'Mexico'),
      ]);
      let first80 = 0;
      let first10 = 0;
      for (let i = 0; i < 100; i++) {
        const records = (await core.resolve('goose.feathers', 'SRV')).records;
        expect(records.map((r) => r.data.priority)).toEqual([5, 5, 10, 10]);
        if (records[0]!.data.weight === 80) first80++;
        else first10++;
      }
      expect(first80).toBeGreaterThanOrEqual(first10);
    },
  );

  it(
    'srv_resolve_same_priority_zero_weight (inverted): a weight-0 record comes first in about 1/(sum+1) of draws, ' +
      'never never',
    () => {
      const records = [
        { data: { priority: 10, weight: 0, port: 5060, target: 'zero' } },
        { data: { priority: 10, weight: 10, port: 5060, target: 'ten' } },
      ];
      const random = seededRandom(7);
      const draws = 20_000;
      let zeroFirst = 0;
      for (let i = 0; i < draws; i++) if (orderSrv(records, random)[0]!.data.target === 'zero') zeroFirst++;
      // Expected 1/11 = 0.0909; the seeded draw is repeatable, the band leaves room for any seed.
      expect(zeroFirst / draws).toBeGreaterThan(0.08);
      expect(zeroFirst / draws).toBeLessThan(0.1);
    },
  );

  it('shares draws in proportion to weight (60:40)', () => {
    const records = [
      { data: { priority: 10, weight: 60, port: 1, target: 'sip1' } },
      { data: { priority: 10, weight: 40, port: 1, target: 'sip2' } },
    ];
    const random = seededRandom(3);
    let sip1 = 0;
    for (let i = 0; i < 20_000; i++) if (orderSrv(records, random)[0]!.data.target === 'sip1') sip1++;
    // RFC 2782 draws in [0, sum]: sip1 wins r in 1..60, and r = 0 when the arrangement puts it
    // first (half the time): 60.5 of 101 values.
    expect(sip1 / 20_000).toBeCloseTo(60.5 / 101, 1);
  });

  it('orders records of weight 0 only as the arrangement does, not as received', () => {
    const records = ['a', 'b', 'c'].map((target) => ({ data: { priority: 1, weight: 0, port: 1, target } }));
    // Random just under 1 leaves each record in place; random 0 swaps each new one to the front.
    expect(orderSrv(records, () => 0.999).map((r) => r.data.target)).toEqual(['a', 'b', 'c']);
    expect(orderSrv(records, () => 0).map((r) => r.data.target)).toEqual(['c', 'a', 'b']);
  });
});

describe('SRV: off-nominal (truncated RDATA gives no records)', () => {
  it.each([
    ['srv_resolve_record_missing_weight_port_host', bytes(u16(10))],
    ['srv_resolve_record_missing_port_host', bytes(u16(10), u16(10))],
    ['srv_resolve_record_missing_host', bytes(u16(10), u16(10), u16(5060))],
  ])('%s', async (_name, rdata) => {
    const result = await coreAnswering([rdata]).resolve('goose.feathers', 'SRV');
    expect(result.records).toEqual([]);
    expect(result.dropped).toEqual([expect.objectContaining({ section: 'answer', type: 'SRV', rule: 'rdlength' })]);
  });

  it('drops a record whose RDATA goes on after the target', async () => {
    const rdata = bytes(Array.from(srvRdata(10, 10, 5060, 'goose.down')), [0xff]);
    const result = await coreAnswering([rdata, srvRdata(20, 0, 5061, 'ok')]).resolve('goose.feathers', 'SRV');
    expect(result.records.map((r) => r.data.target)).toEqual(['ok']);
    expect(result.dropped[0]!.reason).toMatch(/1 bytes left over/);
  });
});
