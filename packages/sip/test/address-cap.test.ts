/**
 * One A or AAAA record set gives at most 2 x maxTargets addresses: the cap, plus as many to
 * stand in for boxed ones. A hostile set of thousands costs its first ones, not thousands of
 * targets laid out again for every request.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import { SipLocator } from '../src/locator.js';
import { setup } from './support/fixtures.js';

const address = (i: number): string => `192.0.2.${150 + i}`;

describe('addresses per record set', () => {
  it('40 A records and maxTargets 4: the first 8 are used, the first 4 kept', async () => {
    const { locator } = setup({ maxTargets: 4 });
    const resolution = await locator.resolve('sip:bob@big.cases.example');
    expect(resolution.targets.map((t) => t.address)).toEqual([0, 1, 2, 3].map(address));
    expect(resolution.warnings).toEqual([
      { code: 'no-srv', message: expect.stringContaining('no SRV records for big.cases.example') },
      {
        code: 'addresses-capped',
        message: 'big.cases.example has 40 A records; only the first 8 are used',
      },
      { code: 'targets-capped', message: '8 targets found; only the first 4 are kept' },
    ]);
  });

  it('the 4 past the cap stand in for 4 boxed ones; no further', async () => {
    const { locator } = setup({ maxTargets: 4 });
    for (let i = 0; i < 6; i++) locator.penaltyBox.markFailed({ transport: 'udp', address: address(i), port: 5060 });
    const resolution = await locator.resolve('sip:bob@big.cases.example');
    expect(resolution.targets.map((t) => t.address)).toEqual([0, 1, 6, 7].map(address));
  });

  it('additional-section addresses are capped alike', async () => {
    const records = Array.from({ length: 10 }, (_, i) => `t IN A 192.0.2.${i + 1}`).join('\n');
    const zone = [
      '$ORIGIN x.example.',
      '$TTL 300',
      '@ IN SOA ns h 1 7200 900 1209600 300',
      '@ IN NS ns',
      'ns IN A 192.0.2.53',
      '_sip._udp IN SRV 10 10 5060 t',
      records,
    ].join('\n');
    const core = new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })], { random: seededRandom(1) });
    const locator = new SipLocator(core, { maxTargets: 2, ipv6: false });
    const resolution = await locator.resolve('sip:x.example;transport=udp', { stepThrough: true });
    expect(resolution.steps).toContainEqual(
      expect.objectContaining({ kind: 'additional', host: 't.x.example', used: true }),
    );
    expect(resolution.targets.map((t) => t.address)).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(resolution.warnings).toContainEqual({
      code: 'addresses-capped',
      message: 't.x.example has 10 A records; only the first 4 are used',
    });
  });
});
