/**
 * One A or AAAA record set gives at most 2 x maxTargets addresses, at least 64: the cap, plus as
 * many to stand in for boxed ones. A hostile set of thousands costs its first ones, not
 * thousands of targets laid out again for every request.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import { SipLocator, type SipLocatorOptions } from '../src/locator.js';

const address = (i: number): string => `192.0.2.${i + 1}`;

/** x.example: 70 A records for the host, and an SRV record whose target t has 70 A records too. */
function locator(options: SipLocatorOptions = {}): SipLocator {
  const hosts = Array.from({ length: 70 }, (_, i) => `@ IN A ${address(i)}\nt IN A ${address(i)}`).join('\n');
  const zone = [
    '$ORIGIN x.example.',
    '$TTL 300',
    '@ IN SOA ns h 1 7200 900 1209600 300',
    '@ IN NS ns',
    'ns IN A 192.0.2.253',
    '_sip._tcp IN SRV 10 10 5060 t',
    hosts,
  ].join('\n');
  const core = new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })], { random: seededRandom(1) });
  return new SipLocator(core, { ipv6: false, ...options });
}

describe('addresses per record set', () => {
  it('70 A records: the first 64 are used, the first 32 kept', async () => {
    const resolution = await locator().resolve('sip:x.example;transport=udp');
    expect(resolution.targets.map((t) => t.address)).toEqual(Array.from({ length: 32 }, (_, i) => address(i)));
    expect(resolution.warnings).toEqual([
      { code: 'no-srv', message: expect.stringContaining('no SRV records for _sip._udp.x.example') },
      { code: 'addresses-capped', message: 'x.example has 70 A records; only the first 64 are used' },
      { code: 'targets-capped', message: '64 targets found; only the first 32 are kept' },
    ]);
  });

  it('a smaller maxTargets still takes 64: a small cap is no reason to drop stand-ins', async () => {
    const resolution = await locator({ maxTargets: 4 }).resolve('sip:x.example;transport=udp');
    expect(resolution.warnings.slice(1)).toEqual([
      { code: 'addresses-capped', message: 'x.example has 70 A records; only the first 64 are used' },
      { code: 'targets-capped', message: '64 targets found; only the first 4 are kept' },
    ]);
  });

  it('a larger maxTargets takes twice as many', async () => {
    const resolution = await locator({ maxTargets: 34 }).resolve('sip:x.example;transport=udp');
    expect(resolution.warnings).toContainEqual({
      code: 'addresses-capped',
      message: 'x.example has 70 A records; only the first 68 are used',
    });
  });

  it('the 32 past the cap stand in for boxed ones; no further', async () => {
    const sip = locator();
    for (let i = 0; i < 40; i++) sip.penaltyBox.markFailed({ transport: 'udp', address: address(i), port: 5060 });
    const resolution = await sip.resolve('sip:x.example;transport=udp');
    expect(resolution.targets.map((t) => t.address)).toEqual([
      ...Array.from({ length: 8 }, (_, i) => address(i)),
      ...Array.from({ length: 24 }, (_, i) => address(40 + i)),
    ]);
  });

  it('additional-section addresses are capped alike', async () => {
    const resolution = await locator().resolve('sip:x.example;transport=tcp', { stepThrough: true });
    expect(resolution.steps).toContainEqual(
      expect.objectContaining({ kind: 'additional', host: 't.x.example', used: true }),
    );
    expect(resolution.targets).toHaveLength(32);
    expect(resolution.warnings).toEqual([
      { code: 'addresses-capped', message: 't.x.example has 70 A records; only the first 64 are used' },
      { code: 'targets-capped', message: '64 targets found; only the first 32 are kept' },
    ]);
  });
});
