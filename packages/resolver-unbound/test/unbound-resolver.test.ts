/**
 * Asterisk's res_resolver_unbound tests, ported (section 2 of asterisk-core-dns.md): static
 * data through libunbound's local zones and data, sync and async, off-nominal rcodes, cancel,
 * NAPTR and SRV parsing. Plus the plugin's own contract: availability, close.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DnsCore, type DnsResult } from '@dnscore/core';
import { makeQuery, type PluginAnswer } from '@dnscore/core/plugin';
import { DEFAULT_UNBOUND_PRIORITY } from '../src/defaults.js';
import { UnboundResolveError, UnboundUnavailableError } from '../src/errors.js';
import { UnboundResolver, resolverOnBinding } from '../src/unbound-resolver.js';
import { defaultRootAnchors } from '../src/trust-anchors.js';
import { loadUnboundBinding, type UnboundBinding } from '../src/binding.js';
import type { UnboundOptions } from '../src/options.js';
import { counting } from './support/counting.js';

/** Asterisk's fixture: goose.feathers A 127.0.0.2, A 127.0.0.3, AAAA ::1; duck.feathers A 127.0.0.4; TTL 12345. */
const FEATHERS: UnboundOptions = {
  hosts: false,
  resolvConf: false,
  trustAnchors: [],
  // Nothing leaves loopback: a name outside the local zones meets a closed port.
  stubZones: [{ name: '.', addresses: ['127.0.0.1@9'] }],
  infraCacheMaxRtt: 50,
  localZones: [
    { name: 'feathers', type: 'static' },
    { name: 'bananas', type: 'static' },
  ],
  localData: [
    'goose.feathers 12345 IN A 127.0.0.2',
    'goose.feathers 12345 IN A 127.0.0.3',
    'goose.feathers 12345 IN AAAA ::1',
    'duck.feathers 12345 IN A 127.0.0.4',
    // resolve_naptr, added out of order
    'pheasant.feathers 12345 IN NAPTR 200 200 "A" "SIPS+D2T" "" platypus.fits.',
    'pheasant.feathers 12345 IN NAPTR 100 200 "A" "SIP+D2T" "" duck.down.',
    'pheasant.feathers 12345 IN NAPTR 200 100 "A" "SIPS+D2U" "" pheasant.down.',
    'pheasant.feathers 12345 IN NAPTR 100 100 "A" "SIP+D2U" "" goose.down.',
    // resolve_srv
    'taco.bananas 12345 IN SRV 10 20 5060 sip.taco.bananas.',
    // a label that holds a dot
    'a\\.b.feathers 12345 IN A 127.0.0.5',
  ],
};

const closing: { close(): unknown }[] = [];
afterEach(async () => {
  for (const item of closing.splice(0)) await item.close();
});

function feathers(extra: UnboundOptions = {}, binding?: UnboundBinding): UnboundResolver {
  const options = { ...FEATHERS, ...extra };
  const resolver = binding ? resolverOnBinding(binding, options) : new UnboundResolver(options);
  closing.push(resolver);
  return resolver;
}

function coreWith(resolver = feathers()): { dns: DnsCore; asked: ReturnType<typeof counting>['asked'] } {
  const plugin = counting(resolver);
  const dns = new DnsCore([plugin]);
  return { dns, asked: plugin.asked };
}

const signal = (): AbortSignal => new AbortController().signal;

/** type, class, TTL and data of each record, as Asterisk's test checks them. */
function fields(result: DnsResult): [string, number, number, unknown][] {
  return result.records.map((r) => [r.type, r.class, r.ttl, r.data]);
}

describe('resolve_sync', () => {
  it('goose A gives only its two A records; AAAA only ::1; duck A only its own', async () => {
    const { dns } = coreWith();
    const a = await dns.resolve('goose.feathers', 'A');
    expect(fields(a).sort()).toEqual([
      ['A', 1, 12345, '127.0.0.2'],
      ['A', 1, 12345, '127.0.0.3'],
    ]);
    expect(a).toMatchObject({
      rcode: 0,
      secure: false,
      bogus: false,
      canonical: 'goose.feathers',
      resolver: 'unbound',
    });
    expect(fields(await dns.resolve('goose.feathers', 'AAAA'))).toEqual([['AAAA', 1, 12345, '::1']]);
    expect(fields(await dns.resolve('duck.feathers', 'A'))).toEqual([['A', 1, 12345, '127.0.0.4']]);
  });
});

describe('resolve_async', () => {
  it('the same three questions in flight at once, each completion seen once', async () => {
    const { dns } = coreWith();
    const seen: string[] = [];
    const pending = [
      ['goose.feathers', 'A'],
      ['goose.feathers', 'AAAA'],
      ['duck.feathers', 'A'],
    ].map(([name, type]) =>
      dns.resolve(name!, type!).then((result) => {
        seen.push(`${name} ${type}`);
        return result;
      }),
    );
    const [gooseA, gooseAAAA, duckA] = await Promise.all(pending);
    expect(seen.sort()).toEqual(['duck.feathers A', 'goose.feathers A', 'goose.feathers AAAA']);
    expect(
      fields(gooseA!)
        .map((f) => f[3])
        .sort(),
    ).toEqual(['127.0.0.2', '127.0.0.3']);
    expect(fields(gooseAAAA!)).toEqual([['AAAA', 1, 12345, '::1']]);
    expect(fields(duckA!)).toEqual([['A', 1, 12345, '127.0.0.4']]);
  });
});

describe('resolve_sync_off_nominal and resolve_async_off_nominal', () => {
  const offNominal = { localData: ['goose.feathers 12345 IN A 127.0.0.2'] };

  it('duck A is NXDOMAIN, goose AAAA is NOERROR, class CHAOS is REFUSED: no records', async () => {
    const { dns } = coreWith(feathers(offNominal));
    const cases = [
      ['duck.feathers', 'A', 'IN', 3],
      ['goose.feathers', 'AAAA', 'IN', 0],
      ['goose.feathers', 'A', 'CH', 5],
    ] as const;
    // sync: one after the other
    for (const [name, type, rrclass, rcode] of cases) {
      const result = await dns.resolve(name, type, { class: rrclass });
      expect([name, type, result.rcode, result.records.length]).toEqual([name, type, rcode, 0]);
    }
    // async: all at once
    const results = await Promise.all(
      cases.map(([name, type, rrclass]) => dns.resolve(name, type, { class: rrclass })),
    );
    expect(results.map((r) => [r.rcode, r.records.length])).toEqual(cases.map((c) => [c[3], 0]));
  });

  it('".1" and ".www" (A or PTR) are refused before any backend (Asterisk: FORMERR)', async () => {
    const { dns, asked } = coreWith(feathers(offNominal));
    for (const name of ['.1', '.www']) {
      for (const type of ['A', 'PTR']) {
        await expect(dns.resolve(name, type)).rejects.toMatchObject({ code: 'DNS_ERR_INVALID_QUERY' });
      }
    }
    expect(asked).toEqual([]);
  });

  it('a libunbound error is an error with libunbound message, never a made-up FORMERR', async () => {
    // No source port left to send from: libunbound cannot set up its resolver and
    // ub_resolve_event fails with UB_INITFAIL.
    const resolver = feathers({ options: { 'outgoing-port-avoid': '0-65535' } });
    const error = await resolver.resolve(makeQuery('goose.feathers', 'A'), signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnboundResolveError);
    expect(error).toMatchObject({
      code: 'DNS_ERR_UNBOUND',
      definite: false,
      libunboundMessage: 'libunbound: initialization failure (-7)',
      libunboundCode: -7,
      message: 'goose.feathers IN A: libunbound returned no result: libunbound: initialization failure (-7)',
    });
    expect(resolver.inFlight).toBe(0);
  });

  it('a name outside every zone, with its only server dead, is SERVFAIL', async () => {
    const result: PluginAnswer = await feathers().resolve(makeQuery('example.com', 'A'), signal());
    expect(result).toEqual({ rcode: 2, secure: false, bogus: false, canonical: 'example.com' });
  });
});

describe('resolve_cancel_off_nominal', () => {
  it('cancelling a completed query changes nothing', async () => {
    const controller = new AbortController();
    const { dns } = coreWith();
    const result = await dns.resolve('duck.feathers', 'A', { signal: controller.signal });
    controller.abort();
    expect(fields(result)).toEqual([['A', 1, 12345, '127.0.0.4']]);
  });

  it('a query cancelled before it starts rejects with AbortError and never reaches libunbound', async () => {
    const resolver = feathers();
    const controller = new AbortController();
    controller.abort();
    await expect(resolver.resolve(makeQuery('duck.feathers', 'A'), controller.signal)).rejects.toMatchObject({
      code: 'ABORT_ERR',
    });
    expect(resolver.inFlight).toBe(0);
  });
});

describe('resolve_naptr', () => {
  it('four NAPTR records come back in order, then preference, with every field', async () => {
    const { dns } = coreWith();
    const result = await dns.resolve('pheasant.feathers', 'NAPTR');
    expect(result.records.map((r) => r.data)).toEqual([
      { order: 100, preference: 100, flags: 'A', services: 'SIP+D2U', regexp: '', replacement: 'goose.down' },
      { order: 100, preference: 200, flags: 'A', services: 'SIP+D2T', regexp: '', replacement: 'duck.down' },
      { order: 200, preference: 100, flags: 'A', services: 'SIPS+D2U', regexp: '', replacement: 'pheasant.down' },
      { order: 200, preference: 200, flags: 'A', services: 'SIPS+D2T', regexp: '', replacement: 'platypus.fits' },
    ]);
    expect(result.records.every((r) => r.ttl === 12345 && r.type === 'NAPTR')).toBe(true);
  });
});

describe('resolve_srv', () => {
  it('SRV 10 20 5060 sip.taco.bananas parses', async () => {
    const { dns } = coreWith();
    const result = await dns.resolve('taco.bananas', 'SRV');
    expect(fields(result)).toEqual([
      ['SRV', 1, 12345, { priority: 10, weight: 20, port: 5060, target: 'sip.taco.bananas' }],
    ]);
  });
});

describe('names', () => {
  it('a label that holds a dot reaches libunbound escaped, and only that name matches', async () => {
    const { dns } = coreWith();
    const dotted = await dns.resolve('a\\.b.feathers', 'A');
    expect([dotted.canonical, fields(dotted)]).toEqual(['a\\.b.feathers', [['A', 1, 12345, '127.0.0.5']]]);
    expect((await dns.resolve('a.b.feathers', 'A')).rcode).toBe(3);
  });
});

describe('the plugin contract', () => {
  it('is "unbound" at priority 100, available, with libunbound version', () => {
    const resolver = feathers();
    expect([resolver.name, resolver.priority, DEFAULT_UNBOUND_PRIORITY]).toEqual(['unbound', 100, 100]);
    expect(resolver.available()).toEqual({ available: true });
    expect(resolver.version).toMatch(/^1\.\d+\.\d+$/);
    expect(resolver.generation).toBe(1);
    expect(resolver.trustAnchorSource).toBe('options');
  });

  it(
    'without the addon: unavailable with the reason, and resolve() rejects so the next backend may ' + 'answer',
    async () => {
      const binding = loadUnboundBinding('/nonexistent/dir');
      const resolver = feathers({}, binding);
      expect(resolver.available()).toEqual({
        available: false,
        reason: expect.stringMatching(/^the libunbound addon was not built/),
      });
      expect(resolver.version).toBeUndefined();
      expect(resolver.generation).toBe(0);
      const error = await resolver.resolve(makeQuery('duck.feathers', 'A'), signal()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnboundUnavailableError);
      expect(error).toMatchObject({ code: 'DNS_ERR_UNBOUND_UNAVAILABLE', definite: false });
    },
  );

  it(
    'without the addon, validation asked for (own anchors, requireSecure) fails closed; no anchors ([]) does ' + 'not',
    () => {
      const binding = loadUnboundBinding('/nonexistent/dir');
      const anchored = feathers({ trustAnchors: ['feathers. IN DS 1 13 2 00'] }, binding);
      expect(anchored.available()).toMatchObject({ available: false, failClosed: true });
      expect(feathers({ trustAnchorFiles: ['/dev/null'] }, binding).available()).toMatchObject({ failClosed: true });
      // requireSecure needs an anchor: the root ones here.
      const secureOnly = feathers({ requireSecure: true, trustAnchors: undefined }, binding);
      expect(secureOnly.available()).toMatchObject({ failClosed: true });
      expect(feathers({ trustAnchors: [] }, binding).available()).not.toHaveProperty('failClosed');
    },
  );

  it('without the addon, options are still checked', () => {
    const binding = loadUnboundBinding('/nonexistent/dir');
    expect(() => resolverOnBinding(binding, { maxInFlight: 0 })).toThrow(/maxInFlight: 0 is not a positive integer/);
  });

  it('after close(): unavailable, resolve() and reload() refuse', async () => {
    const resolver = feathers();
    resolver.close();
    resolver.close();
    expect(resolver.available()).toEqual({ available: false, reason: 'the unbound resolver is closed' });
    await expect(resolver.resolve(makeQuery('duck.feathers', 'A'), signal())).rejects.toMatchObject({
      code: 'DNS_ERR_STATE',
    });
    expect(() => resolver.reload()).toThrow(/reload\(\) after close\(\)/);
  });

  it('all defaults (system hosts and resolv.conf, root anchors from root.ds) build a context', () => {
    const resolver = new UnboundResolver();
    closing.push(resolver);
    expect([resolver.available(), resolver.generation, resolver.trustAnchorSource]).toEqual([
      { available: true },
      1,
      defaultRootAnchors().source, // the root.ds file, or built-in on a machine without it
    ]);
  });
});
