/** drawFirstTargets: `--draws N` with one seeded random source. */
import { describe, expect, it } from 'vitest';
import { DnsCore, InvalidArgumentError, ZoneResolver, seededRandom } from '@dnscore/core';
import { drawFirstTargets } from '../src/draws.js';
import { SipLocator } from '../src/locator.js';
import { ALL_ZONES, setup } from './support/fixtures.js';

function locator(seed: number): SipLocator {
  return new SipLocator(new DnsCore([new ZoneResolver({ files: ALL_ZONES })], { random: seededRandom(seed) }));
}

describe('drawFirstTargets: nominal', () => {
  it('counts the first target of each resolution; the same seed gives the same counts', async () => {
    const a = await drawFirstTargets(locator(42), 'sip:bob@biloxi.example', 200);
    const b = await drawFirstTargets(locator(42), 'sip:bob@biloxi.example', 200);
    expect(a).toEqual(b);
    expect(a.n).toBe(200);
    expect(Object.keys(a.first)).toEqual(['sip1.biloxi.example', 'sip2.biloxi.example']);
    expect(a.first['sip1.biloxi.example']! + a.first['sip2.biloxi.example']!).toBe(200);
  });

  it('another seed gives other counts', async () => {
    const a = await drawFirstTargets(locator(1), 'sip:bob@biloxi.example;transport=udp', 100);
    const b = await drawFirstTargets(locator(2), 'sip:bob@biloxi.example;transport=udp', 100);
    expect(a.first).not.toEqual(b.first);
  });

  it('targets that do not come from SRV are not counted', async () => {
    expect(await drawFirstTargets(locator(1), 'sip:bob@nosrv.cases.example', 5)).toEqual({ n: 5, first: {} });
  });
});

describe('drawFirstTargets: off-nominal', () => {
  it.each([0, -1, 1.5, 2_000_000])('refuses %s draws', async (n) => {
    await expect(drawFirstTargets(setup().locator, 'sip:bob@biloxi.example', n)).rejects.toThrow(InvalidArgumentError);
  });

  it('refuses an invalid URI before drawing', async () => {
    const { locator: l, plugin } = setup();
    await expect(drawFirstTargets(l, 'sip:', 3)).rejects.toMatchObject({ code: 'SIP_ERR_INVALID_URI' });
    expect(plugin.asked).toEqual([]);
  });
});
