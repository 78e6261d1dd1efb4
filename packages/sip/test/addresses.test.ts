/** Addresses: the SRV domain, the additional-section rule (bailiwick, families, DNSSEC), CNAMEs. */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver } from '@dnscore/core';
import { srvDomain } from '../src/addresses.js';
import { SipLocator } from '../src/locator.js';
import { lines, setup } from './support/fixtures.js';

describe('srvDomain', () => {
  it('strips the service and protocol labels', () => {
    expect(srvDomain('_sip._udp.biloxi.example')).toBe('biloxi.example');
    expect(srvDomain('_sips._tcp.provider.other.example')).toBe('provider.other.example');
    expect(srvDomain('sip.biloxi.example')).toBe('sip.biloxi.example');
    expect(srvDomain('_sip')).toBe('_sip');
  });
});

describe('additional-section addresses: nominal', () => {
  it('used for targets of the answer inside the domain, in the client family order', async () => {
    const resolution = await setup().locator.resolve('sip:bob@away.cases.example');
    expect(resolution.steps).toContainEqual({
      kind: 'additional',
      srv: '_sip._tcp.provider.other.example',
      host: 'edge.provider.other.example',
      addresses: ['2001:db8:100::8', '198.51.100.8'],
      used: true,
      reason: 'used instead of A/AAAA queries (a target of this answer, inside provider.other.example)',
    });
  });

  it('records of a family that is off are not used; the family that is on is', async () => {
    const { locator, plugin } = setup({ ipv6: false });
    const resolution = await locator.resolve('sip:bob@away.cases.example');
    expect(lines(resolution.targets)).toEqual(['tcp 198.51.100.8:5060 edge.provider.other.example']);
    expect(plugin.asked.filter((q) => q.startsWith('edge.'))).toEqual([]);
  });

  it('only the off family in the additional section: the target gets its own query', async () => {
    const { locator, plugin } = setup({ ipv4: false });
    const resolution = await locator.resolve('sip:bob@biloxi.example;transport=udp');
    expect(
      resolution.steps.filter((s) => s.kind === 'additional').map((s) => s.kind === 'additional' && s.reason),
    ).toEqual(['IPv4 is off', 'IPv4 is off', 'IPv4 is off']);
    expect(plugin.asked.filter((q) => q.endsWith('AAAA')).sort()).toEqual(
      [
        'backup.biloxi.example AAAA',
        'biloxi.example AAAA',
        'sip1.biloxi.example AAAA',
        'sip2.biloxi.example AAAA',
      ].sort(),
    );
    expect(resolution.error?.code).toBe('SIP_ERR_NO_TARGETS');
  });
});

describe('additional-section addresses: off-nominal', () => {
  it('not used when the SRV answer is DNSSEC-secure: the validator does not check them', async () => {
    const { locator, plugin } = setup({ recording: { secure: ['_sip._udp.biloxi.example SRV'] } });
    const resolution = await locator.resolve('sip:bob@biloxi.example;transport=udp');
    expect(
      resolution.steps.filter((s) => s.kind === 'additional').map((s) => s.kind === 'additional' && [s.used, s.reason]),
    ).toEqual([
      [false, 'the SRV answer is DNSSEC-secure but additional data is not validated: asked instead'],
      [false, 'the SRV answer is DNSSEC-secure but additional data is not validated: asked instead'],
      [false, 'the SRV answer is DNSSEC-secure but additional data is not validated: asked instead'],
    ]);
    expect(plugin.asked.filter((q) => q.startsWith('sip1.'))).toEqual([
      'sip1.biloxi.example AAAA',
      'sip1.biloxi.example A',
    ]);
    expect(resolution.targets).toHaveLength(3);
    expect(resolution.roundTrips).toBe(2);
  });
});

describe('CNAMEs', () => {
  it('a host that is an alias is followed and noted', async () => {
    const resolution = await setup({ ipv6: false }).locator.resolve('sip:www.alias.cases.example:5060');
    expect(lines(resolution.targets)).toEqual(['udp 192.0.2.40:5060 www.alias.cases.example']);
    expect(resolution.steps).toContainEqual({
      kind: 'note',
      message: 'www.alias.cases.example is an alias of real.alias.cases.example',
    });
  });

  it('a chain longer than the limit is given up, and said so', async () => {
    // Two resolvers, so each answer holds one hop and the locator must ask for the next.
    const soa = '$TTL 60\n@ IN SOA ns h 1 1 1 1 60\n@ IN NS ns\nns IN A 192.0.2.1\n';
    const loop = new ZoneResolver({
      name: 'loop',
      zones: [
        {
          origin: 'loop.example.',
          text: soa + Array.from({ length: 12 }, (_, i) => `c${i} IN CNAME c${i + 1}.away.example.\n`).join(''),
        },
      ],
    });
    const away = new ZoneResolver({
      name: 'away',
      priority: 60,
      zones: [
        {
          origin: 'away.example.',
          text: soa + Array.from({ length: 12 }, (_, i) => `c${i + 1} IN CNAME c${i + 1}.loop.example.\n`).join(''),
        },
      ],
    });
    const locator = new SipLocator(new DnsCore([loop, away], { reaskCrossZoneCnames: false }), {
      ipv6: false,
      maxCnameHops: 2,
    });
    const resolution = await locator.resolve('sip:c0.loop.example:5060');
    expect(resolution.targets).toEqual([]);
    expect(resolution.error?.message).toBe('c0.loop.example has no A record');
    expect(resolution.steps.filter((s) => s.kind === 'note')).toEqual([
      { kind: 'note', message: 'c0.loop.example is an alias of c1.away.example; asking A for c1.away.example' },
      { kind: 'note', message: 'c1.away.example is an alias of c1.loop.example; asking A for c1.loop.example' },
      { kind: 'note', message: 'c0.loop.example A: CNAME chain longer than 2 hops; given up' },
    ]);
  });
});
