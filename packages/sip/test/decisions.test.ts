/**
 * The decisions table of ARCHITECTURE.md, one block per row that concerns the SIP layer, through the
 * zone resolver.
 */
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  DnsCore,
  TimeoutError,
  ZoneResolver,
  seededRandom,
  withCache,
  type ResolverPlugin,
} from '@dnscore/core';
import { drawFirstTargets } from '../src/draws.js';
import { NoTargetsError, RequestTooLargeError } from '../src/errors.js';
import { SipLocator } from '../src/locator.js';
import { ALL_ZONES, ManualClock, lines, setup } from './support/fixtures.js';

function cachedLocator(seed: number): SipLocator {
  return new SipLocator(
    new DnsCore([withCache(new ZoneResolver({ files: ALL_ZONES }))], { random: seededRandom(seed) }),
  );
}

describe('weight-0 SRV records: RFC 2782 exactly, first with probability 1/(sum+1)', () => {
  it(
    'over 10000 seeded draws at 50:30:20:0, shares match the weights and the weight-0 target is first about 1/101 ' +
      'of the time',
    async () => {
      const n = 10_000;
      const { first } = await drawFirstTargets(cachedLocator(2026), 'sip:bob@weights.cases.example;transport=udp', n);
      const share = (host: string): number => (first[`${host}.weights.cases.example`] ?? 0) / n;
      // Pick in [0, 100]: w0 at 0, w1 at 1..50, w2 at 51..80, w3 at 81..100.
      expect(share('w1')).toBeCloseTo(50 / 101, 1);
      expect(Math.abs(share('w1') - 50 / 101)).toBeLessThan(0.02);
      expect(Math.abs(share('w2') - 30 / 101)).toBeLessThan(0.02);
      expect(Math.abs(share('w3') - 20 / 101)).toBeLessThan(0.02);
      expect(share('w0')).toBeGreaterThan(0);
      expect(share('w0')).toBeLessThan(2 / 101);
    },
  );

  it('the walk-through zone shares 60:40 at priority 10 (61/101 vs 40/101); backup is never first', async () => {
    const n = 10_000;
    const { first } = await drawFirstTargets(cachedLocator(7), 'sip:bob@biloxi.example;transport=tcp', n);
    expect(Object.keys(first).sort()).toEqual(['sip1.biloxi.example', 'sip2.biloxi.example']);
    expect(Math.abs(first['sip1.biloxi.example']! / n - 61 / 101)).toBeLessThan(0.02);
    expect(first['sip1.biloxi.example']! + first['sip2.biloxi.example']!).toBe(n);
  });
});

describe('SRV target ".": not offered over that transport, no A/AAAA fallback for it', () => {
  it('"." for UDP only: the host is reached over TCP, never UDP', async () => {
    const resolution = await setup().locator.resolve('sip:bob@dotudp.cases.example', { stepThrough: true });
    expect(resolution.rule).toBe('host');
    expect(lines(resolution.targets)).toEqual(['tcp 192.0.2.31:5060 dotudp.cases.example']);
    expect(resolution.steps).toContainEqual({
      kind: 'skip',
      host: '.',
      port: 0,
      transport: 'udp',
      reason: 'target "." in _sip._udp.dotudp.cases.example: the service is not offered over UDP',
    });
  });

  it('"." for every transport: no target, although the host has an address', async () => {
    const resolution = await setup().locator.resolve('sip:bob@dot.cases.example', { stepThrough: true });
    expect(resolution.error).toBeInstanceOf(NoTargetsError);
    expect(resolution.error?.message).toBe(
      'dot.cases.example declares every transport the client supports not offered (SRV target ".")',
    );
  });

  it('"." for the transport the URI asks for: no target', async () => {
    const resolution = await setup().locator.resolve('sip:bob@dotudp.cases.example;transport=udp', {
      stepThrough: true,
    });
    expect(resolution.error?.message).toBe(
      '_sip._udp.dotudp.cases.example has target ".": dotudp.cases.example does not offer UDP, the transport the URI ' +
        'asks for',
    );
  });
});

describe('SRV target that is a CNAME or has no address: followed or skipped, and reported', () => {
  it('an alias inside the zone is followed and warned about', async () => {
    const resolution = await setup({ ipv6: false }).locator.resolve('sip:bob@alias.cases.example;transport=udp', {
      stepThrough: true,
    });
    expect(lines(resolution.targets)).toEqual(['udp 192.0.2.40:5060 www.alias.cases.example']);
    expect(resolution.warnings).toEqual([
      {
        code: 'srv-target-alias',
        message:
          'SRV target www.alias.cases.example (_sip._udp.alias.cases.example) is an alias of ' +
          'real.alias.cases.example: RFC 2782 forbids aliases; followed',
      },
    ]);
    expect(resolution.steps).toContainEqual(
      expect.objectContaining({
        kind: 'query',
        name: 'www.alias.cases.example',
        type: 'A',
        canonical: 'real.alias.cases.example',
      }),
    );
  });

  it('a target without address and one with port 0 are skipped and reported; the rest is used', async () => {
    const resolution = await setup().locator.resolve('sip:bob@noaddr.cases.example;transport=udp', {
      stepThrough: true,
    });
    expect(lines(resolution.targets)).toEqual(['udp 192.0.2.50:5060 live.noaddr.cases.example']);
    expect(resolution.warnings).toEqual([
      {
        code: 'srv-target-no-address',
        message:
          'SRV target ghost.noaddr.cases.example (_sip._udp.noaddr.cases.example) has no A or AAAA address: skipped',
      },
      {
        code: 'srv-port-zero',
        message: 'SRV record _sip._udp.noaddr.cases.example -> live.noaddr.cases.example has port 0: skipped',
      },
    ]);
    expect(resolution.steps.filter((s) => s.kind === 'skip')).toEqual([
      {
        kind: 'skip',
        host: 'ghost.noaddr.cases.example',
        port: 5060,
        transport: 'udp',
        reason: 'ghost.noaddr.cases.example has no A or AAAA address',
      },
      {
        kind: 'skip',
        host: 'live.noaddr.cases.example',
        port: 0,
        transport: 'udp',
        reason: 'port 0 in _sip._udp.noaddr.cases.example',
      },
    ]);
  });
});

describe('NAPTR branch with no address: next NAPTR of the same order, then the first round', () => {
  it('the next NAPTR of the same order, not a NAPTR of another order', async () => {
    const resolution = await setup().locator.resolve('sip:bob@sameorder.cases.example', { stepThrough: true });
    expect(resolution.rule).toBe('naptr');
    expect(lines(resolution.targets)).toEqual(['tcp 192.0.2.90:5060 s1.sameorder.cases.example']);
    expect(resolution.warnings).toContainEqual({
      code: 'naptr-srv-empty',
      message:
        'NAPTR SIPS+D2T of sameorder.cases.example points to _sips._tcp.empty.sameorder.cases.example, which has no ' +
        'SRV records',
    });
  });

  it('then, as a documented deviation, the SRV records of the first round', async () => {
    const { locator, plugin } = setup();
    const resolution = await locator.resolve('sip:bob@fallback.cases.example', { stepThrough: true });
    expect(resolution.rule).toBe('srv');
    expect(lines(resolution.targets)).toEqual(['tcp 192.0.2.100:5060 f1.fallback.cases.example']);
    expect(resolution.warnings.map((w) => w.code)).toEqual(['naptr-incomplete', 'naptr-srv-empty', 'naptr-fallback']);
    expect(plugin.asked.filter((q) => q === '_sip._tcp.fallback.cases.example SRV')).toHaveLength(1);
  });

  it('then the A/AAAA records of the first round', async () => {
    const resolution = await setup().locator.resolve('sip:bob@fallback-host.cases.example', { stepThrough: true });
    expect(resolution.rule).toBe('host');
    expect(lines(resolution.targets)).toEqual(['udp 192.0.2.101:5060 fallback-host.cases.example']);
  });
});

describe('maddr: when present, it is the TARGET', () => {
  it('the host is not asked about', async () => {
    const { locator, plugin } = setup();
    const resolution = await locator.resolve('sips:bob@biloxi.example;maddr=nonaptr.cases.example', {
      stepThrough: true,
    });
    expect(plugin.asked.every((q) => q.includes('nonaptr.cases.example'))).toBe(true);
    expect(resolution.error?.message).toBeUndefined();
    expect(resolution.transport).toBe('tls');
  });
});

describe('queries of the first round: only for transports and families the client supports', () => {
  it('UDP only, IPv4 only: NAPTR, one SRV owner, A', async () => {
    const { locator, plugin } = setup({ transports: ['udp'], ipv6: false });
    await locator.resolve('sip:bob@nosrv.cases.example', { stepThrough: true });
    expect(plugin.asked).toEqual([
      'nosrv.cases.example NAPTR',
      '_sip._udp.nosrv.cases.example SRV',
      'nosrv.cases.example A',
    ]);
  });
});

describe('additional-section A/AAAA: only for SRV targets of that answer, at or below the queried domain', () => {
  it('the walk-through zone: every target address comes from the additional section, no A/AAAA query', async () => {
    const { locator, plugin } = setup();
    const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(plugin.asked.filter((q) => /^(sip1|sip2|backup)\./.test(q))).toEqual([]);
    expect(resolution.steps.filter((s) => s.kind === 'additional' && s.used)).toHaveLength(3);
  });

  it('a target outside the queried domain gets its own query although the answer carried its address', async () => {
    const { locator, plugin } = setup();
    const resolution = await locator.resolve('sip:bob@bailiwick.cases.example;transport=udp', { stepThrough: true });
    expect(plugin.asked).toEqual([
      '_sip._udp.bailiwick.cases.example SRV',
      'bailiwick.cases.example AAAA',
      'bailiwick.cases.example A',
      'sibling.cases.example AAAA',
      'sibling.cases.example A',
    ]);
    expect(resolution.steps.filter((s) => s.kind === 'additional')).toEqual([
      {
        kind: 'additional',
        srv: '_sip._udp.bailiwick.cases.example',
        host: 'sibling.cases.example',
        addresses: [],
        used: false,
        reason:
          'outside bailiwick.cases.example, the domain asked about: refused by the core, it gets its own query if it ' +
          'is a target',
      },
      {
        kind: 'additional',
        srv: '_sip._udp.bailiwick.cases.example',
        host: 'in.bailiwick.cases.example',
        addresses: ['192.0.2.60'],
        used: true,
        reason: 'used instead of A/AAAA queries (a target of this answer, inside bailiwick.cases.example)',
      },
    ]);
    expect(lines(resolution.targets)).toEqual([
      'udp 192.0.2.60:5060 in.bailiwick.cases.example',
      'udp 192.0.2.61:5060 sibling.cases.example',
    ]);
  });
});

describe('1300-byte rule: a request over 1300 bytes bound for UDP goes over TCP to the same address and port', () => {
  it('also when SRV lists only UDP; 1300 bytes stay on UDP', async () => {
    const { locator } = setup();
    const big = await locator.cursor('sip:bob@biloxi.example;transport=udp', { messageSize: 1301 }).next();
    expect(big).toMatchObject({
      switched: true,
      target: { transport: 'tcp', port: 5060 },
      resolved: { transport: 'udp', port: 5060 },
    });
    expect(big!.target.address).toBe(big!.resolved.address);
    const fits = await locator.cursor('sip:bob@biloxi.example;transport=udp', { messageSize: 1300 }).next();
    expect(fits).toMatchObject({ switched: false, target: { transport: 'udp' } });
  });

  it('a client without TCP cannot send it: RequestTooLargeError', async () => {
    const { locator } = setup({ transports: ['udp'] });
    await expect(locator.cursor('sip:bob@biloxi.example', { messageSize: 1400 }).next()).rejects.toBeInstanceOf(
      RequestTooLargeError,
    );
  });
});

describe('Retry-After in a 503: honoured for the penalty box, clamped to 300 s', () => {
  it('3600 s becomes 300 s; 120 s stays 120 s; none boxes nothing (RFC 3261 section 21.5.4: as a 500)', async () => {
    const clock = new ManualClock();
    const { locator } = setup({ clock });
    const cursor = locator.cursor('sip:bob@biloxi.example;transport=udp');
    const outcomes = [{ retryAfter: 3600 }, { retryAfter: 120 }, {}];
    const ends: number[] = [];
    for (const extra of outcomes) {
      const attempt = await cursor.next();
      cursor.report(attempt!, { type: 'response', status: 503, ...extra });
      ends.push((locator.penaltyBox.get(attempt!.target)?.until ?? clock.now()) - clock.now());
    }
    expect(ends).toEqual([300_000, 120_000, 0]);
  });
});

describe('target lifetime: each target carries expires; a cursor re-resolves an expired list', () => {
  it(
    'expires from the TTLs that produced the target: SRV 120 s and A 60 s; SRV and A 3600 s but the "no NAPTR" ' +
      'answer 300 s',
    async () => {
      const clock = new ManualClock(1_000_000);
      const resolution = await setup({ clock }).locator.resolve('sip:bob@nonaptr.cases.example', { stepThrough: true });
      expect(resolution.targets.map((t) => (t.expires - 1_000_000) / 1000)).toEqual([60, 300, 300]);
      expect(resolution.expires).toBe(1_060_000);
    },
  );

  it(
    'a list chosen after a negative answer expires with that answer (NAPTR and SRV NXDOMAIN, SOA minimum 300 ' + 's)',
    async () => {
      const clock = new ManualClock(0);
      const resolution = await setup({ clock }).locator.resolve('sip:bob@nosrv.cases.example', { stepThrough: true });
      expect(resolution.targets.map((t) => t.expires)).toEqual([300_000, 300_000]);
    },
  );

  it('the cursor resolves again when the list has expired', async () => {
    const clock = new ManualClock();
    const { locator, plugin } = setup({ clock });
    // A bound longer than the list's 60 s life: the walk is still in its transaction.
    const cursor = locator.cursor('sip:bob@nonaptr.cases.example', { transactionTimeoutMs: 120_000 });
    const first = await cursor.next();
    cursor.report(first!, { type: 'timeout' });
    expect(cursor.resolutions).toBe(1);
    const asked = plugin.asked.length;
    clock.advance(60_000);
    const second = await cursor.next();
    expect(cursor.resolutions).toBe(2);
    expect(plugin.asked.length).toBe(asked * 2);
    // The first target was tried already: the new list goes on with the next one.
    expect(second!.target.address).toBe('2001:db8::1');
  });

  it('an expired list that cannot be resolved again is kept for the rest of the walk; a cancel ends it', async () => {
    const clock = new ManualClock();
    const zones = new ZoneResolver({ files: ALL_ZONES });
    let failing = false;
    const flaky: ResolverPlugin = {
      name: 'flaky',
      priority: zones.priority,
      available: () => zones.available(),
      close: () => zones.close(),
      resolve: (query, signal) =>
        failing ? Promise.reject(new TimeoutError('no answer (test)')) : zones.resolve(query, signal),
    };
    const locator = new SipLocator(new DnsCore([flaky], { random: seededRandom(1) }), { clock });
    const walk = () => locator.cursor('sip:bob@nonaptr.cases.example', { transactionTimeoutMs: 120_000 });
    const cursor = walk();
    const first = await cursor.next();
    cursor.report(first!, { type: 'timeout' });
    clock.advance(60_000); // the list's life (t1's A record)
    failing = true;
    const second = await cursor.next();
    expect(cursor.resolutions).toBe(2);
    cursor.report(second!, { type: 'timeout' });
    // The list the walk had, without asking again before each try.
    const third = await cursor.next();
    cursor.report(third!, { type: 'timeout' });
    expect(cursor.resolutions).toBe(2);
    expect([first, second, third].map((a) => a!.target.address)).toEqual(['192.0.2.2', '2001:db8::1', '192.0.2.1']);
    expect(await cursor.next()).toBeUndefined();
    expect(cursor.state).toBe('exhausted');

    failing = false;
    const cancel = new AbortController();
    const cancelled = locator.cursor('sip:bob@nonaptr.cases.example', {
      transactionTimeoutMs: 120_000,
      signal: cancel.signal,
    });
    cancelled.report((await cancelled.next())!, { type: 'timeout' });
    clock.advance(60_000);
    failing = true;
    cancel.abort();
    await expect(cancelled.next()).rejects.toBeInstanceOf(AbortError);
  });
});
