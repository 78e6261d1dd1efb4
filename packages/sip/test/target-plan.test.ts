/**
 * Target plans: once every answer of a resolution is one the core's cache holds (from the first
 * resolution on: the backend's answers it stored), the next
 * resolution of that URI asks the core nothing. It draws the SRV order again (RFC 2782) and
 * reuses the rule, targets and warnings, until an answer behind it expires, is replaced or
 * dropped, or another backend answers first. Stale answers never make a plan. Fake clock.
 */
import { describe, expect, it } from 'vitest';
import {
  DnsCore,
  TimeoutError,
  ZoneResolver,
  seededRandom,
  withCache,
  type DnsApi,
  type DnsResult,
  type ResolveOptions,
} from '@dnscore/core';
import { SipLocator, renderStepThrough, resolutionToJson } from '../src/index.js';
import { ALL_ZONES, ManualClock, lines } from './support/fixtures.js';
import { recording } from './support/recording-plugin.js';

/** A DnsApi in front of a DnsCore that counts the questions it passes on. */
function counting(core: DnsCore): DnsApi & { asked: number } {
  const counter = {
    asked: 0,
    random: core.random,
    resolve(name: string, type?: number | string, options?: ResolveOptions): Promise<DnsResult> {
      counter.asked++;
      return core.resolve(name, type, options);
    },
    current: (results: readonly DnsResult[]) => core.current(results),
  };
  return counter;
}

function cached(options: { serveStale?: boolean } = {}) {
  const clock = new ManualClock();
  const zone = recording(new ZoneResolver({ files: ALL_ZONES }));
  let failing = false;
  const plugin = {
    ...zone,
    resolve: (query: Parameters<typeof zone.resolve>[0], signal: AbortSignal) =>
      failing ? Promise.reject(new TimeoutError('no answer')) : zone.resolve(query, signal),
  };
  const cache = withCache(plugin, { clock, ...options });
  const core = new DnsCore([cache], { random: seededRandom(7) });
  const resolver = counting(core);
  const locator = new SipLocator(resolver, { clock });
  return { clock, zone, cache, core, resolver, locator, fail: () => (failing = true) };
}

/** Counts of a locator's resolutions: planned ones (no question asked) and walks. */
function planCount(resolver: { asked: number }) {
  const counts = { walked: 0, planned: 0 };
  return {
    counts,
    async resolve(locator: SipLocator, uri: string) {
      const before = resolver.asked;
      const resolution = await locator.resolve(uri);
      if (resolver.asked === before) counts.planned++;
      else counts.walked++;
      return resolution;
    },
  };
}

describe('target plans: nominal', () => {
  it('the first resolution makes the plan from the answers its cache stored: the second uses it', async () => {
    for (const uri of ['sip:bob@biloxi.example', 'sip:bob@nonaptr.cases.example', 'sip:bob@dup.cases.example']) {
      const { resolver, locator, zone } = cached();
      const count = planCount(resolver);
      const first = await count.resolve(locator, uri);
      const backendQuestions = zone.asked.length;
      const second = await count.resolve(locator, uri);
      await count.resolve(locator, uri);
      expect(count.counts).toEqual({ walked: 1, planned: 2 });
      expect(zone.asked.length).toBe(backendQuestions);
      expect([...lines(second.targets)].sort()).toEqual([...lines(first.targets)].sort());
      expect(second).toMatchObject({ rule: first.rule, expires: first.expires, queries: first.queries });
    }
  });

  it('a planned resolution asks nothing, and the SRV order is drawn again each time', async () => {
    const { zone, resolver, locator } = cached();
    const first = await locator.resolve('sip:bob@biloxi.example'); // every answer stored: the plan is made
    expect(zone.asked.length).toBeGreaterThan(0);
    const asked = resolver.asked;
    const firsts = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const r = await locator.resolve('sip:bob@biloxi.example');
      expect(r.rule).toBe('naptr');
      expect(r.steps).toEqual([]);
      expect(r.warnings).toEqual(first.warnings);
      expect([...lines(r.targets)].sort()).toEqual([...lines(first.targets)].sort());
      // Priority 10 (sip1, sip2) before priority 20 (backup), always.
      expect(r.targets[2]!.host).toBe('backup.biloxi.example');
      firsts.set(r.targets[0]!.host, (firsts.get(r.targets[0]!.host) ?? 0) + 1);
    }
    expect(resolver.asked).toBe(asked);
    expect([...firsts.keys()].sort()).toEqual(['sip1.biloxi.example', 'sip2.biloxi.example']);
    // Weights 60:40 (RFC 2782): sip1 first more often than sip2.
    expect(firsts.get('sip1.biloxi.example')!).toBeGreaterThan(firsts.get('sip2.biloxi.example')!);
  });

  it('a planned resolution has the targets, expiry and counts of a full one', async () => {
    const { locator, clock } = cached();
    await locator.resolve('sip:bob@nonaptr.cases.example');
    const full = await locator.resolve('sip:bob@nonaptr.cases.example');
    clock.advance(1000);
    const planned = await locator.resolve('sip:bob@nonaptr.cases.example');
    expect(lines(planned.targets)).toEqual(lines(full.targets));
    expect(planned).toMatchObject({
      rule: full.rule,
      transport: full.transport,
      expires: full.expires,
      roundTrips: full.roundTrips,
      queries: full.queries,
      resolvedAt: full.resolvedAt + 1000,
      error: undefined,
      stale: false,
    });
    expect(Object.isFrozen(planned.targets)).toBe(true);
  });

  it('asked for the step-through, a resolution always walks the procedure and writes the steps', async () => {
    const { resolver, locator } = cached();
    await locator.resolve('sip:bob@biloxi.example');
    await locator.resolve('sip:bob@biloxi.example');
    const asked = resolver.asked;
    const walked = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(resolver.asked).toBeGreaterThan(asked);
    expect(walked.steps.filter((s) => s.kind === 'query').length).toBe(walked.queries);
    expect(renderStepThrough(walked)).toContain('rule naptr applies -> TLS');
  });

  it('a URI with duplicate targets keeps one of each address and port in a plan too', async () => {
    const { resolver, locator } = cached();
    await locator.resolve('sip:bob@dup.cases.example;transport=udp');
    await locator.resolve('sip:bob@dup.cases.example;transport=udp');
    const asked = resolver.asked;
    const planned = await locator.resolve('sip:bob@dup.cases.example;transport=udp');
    expect(resolver.asked).toBe(asked);
    expect(lines(planned.targets)).toEqual(['udp 192.0.2.130:5060 d1.dup.cases.example']);
  });
});

describe('target plans: off-nominal', () => {
  it('never outlives the answers it was built from: the shortest TTL ends it', async () => {
    const { resolver, locator, clock } = cached();
    await locator.resolve('sip:bob@nonaptr.cases.example');
    await locator.resolve('sip:bob@nonaptr.cases.example');
    let asked = resolver.asked;
    clock.advance(59_999); // t1's A has TTL 60
    await locator.resolve('sip:bob@nonaptr.cases.example');
    expect(resolver.asked).toBe(asked);
    clock.advance(1);
    const after = await locator.resolve('sip:bob@nonaptr.cases.example');
    expect(resolver.asked).toBeGreaterThan(asked);
    expect(lines(after.targets)).toContain('tcp 192.0.2.2:5062 t1.nonaptr.cases.example');
    asked = resolver.asked;
    await locator.resolve('sip:bob@nonaptr.cases.example'); // a fresh answer for t1: not a plan yet
    expect(resolver.asked).toBeGreaterThan(asked);
  });

  it('ends when the cache is cleared or another backend answers first', async () => {
    const { resolver, locator, cache, core } = cached();
    await locator.resolve('sip:bob@biloxi.example');
    await locator.resolve('sip:bob@biloxi.example');
    let asked = resolver.asked;
    cache.clear();
    await locator.resolve('sip:bob@biloxi.example');
    expect(resolver.asked).toBeGreaterThan(asked);
    await locator.resolve('sip:bob@biloxi.example');
    asked = resolver.asked;
    await locator.resolve('sip:bob@biloxi.example');
    expect(resolver.asked).toBe(asked);
    core.register(withCache(new ZoneResolver({ files: ALL_ZONES, name: 'front', priority: 1 })));
    await locator.resolve('sip:bob@biloxi.example');
    expect(resolver.asked).toBeGreaterThan(asked);
  });

  it('stale answers make no plan, say so, and the next resolution asks again', async () => {
    const { resolver, locator, clock, fail } = cached({ serveStale: true });
    await locator.resolve('sip:bob@nonaptr.cases.example');
    await locator.resolve('sip:bob@nonaptr.cases.example');
    clock.advance(3_600_000); // every answer expired
    fail();
    const stale = await locator.resolve('sip:bob@nonaptr.cases.example', { stepThrough: true });
    expect(stale.stale).toBe(true);
    expect(stale.targets.length).toBeGreaterThan(0);
    expect(stale.expires).toBe(clock.now() + 30_000);
    expect(stale.steps.filter((s) => s.kind === 'query' && s.stale === true).length).toBeGreaterThan(0);
    expect(renderStepThrough(stale)).toContain('STALE (the backend failed; RFC 8767)');
    expect(resolutionToJson(stale).stale).toBe(true);
    const asked = resolver.asked;
    const again = await locator.resolve('sip:bob@nonaptr.cases.example');
    expect(again.stale).toBe(true);
    expect(resolver.asked).toBeGreaterThan(asked);
  });

  it('an SRV answer cut to maxSrvRecords makes no plan: every record of the priority still comes first', async () => {
    // 6 equal records of one priority, 4 expanded: a plan would draw among the first draw's 4 only.
    let records = '';
    for (let i = 1; i <= 6; i++) records += `_sip._udp IN SRV 10 10 5060 s${i}\ns${i} IN A 192.0.2.${i}\n`;
    const zone = `$ORIGIN many.test.\n$TTL 3600\n@ IN SOA ns hostmaster 1 3600 600 86400 300\n${records}`;
    const clock = new ManualClock();
    const core = new DnsCore([withCache(new ZoneResolver({ zones: [{ text: zone }] }), { clock })], {
      random: seededRandom(3),
    });
    const resolver = counting(core);
    const locator = new SipLocator(resolver, { clock, maxSrvRecords: 4 });
    const plans = planCount(resolver);
    const first = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const resolution = await plans.resolve(locator, 'sip:many.test');
      expect(resolution.targets).toHaveLength(4);
      expect(resolution.warnings.map((w) => w.code)).toEqual(['srv-records-capped']);
      first.add(resolution.targets[0]!.address);
    }
    expect(plans.counts).toEqual({ walked: 200, planned: 0 });
    expect([...first].sort()).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5', '192.0.2.6']);
  });

  it('without a cache there is no plan: every resolution asks', async () => {
    const core = new DnsCore([new ZoneResolver({ files: ALL_ZONES })]);
    const resolver = counting(core);
    const locator = new SipLocator(resolver);
    await locator.resolve('sip:bob@biloxi.example');
    const asked = resolver.asked;
    await locator.resolve('sip:bob@biloxi.example');
    expect(resolver.asked).toBe(2 * asked);
  });

  it('keeps at most maxPlans plans', async () => {
    const clock = new ManualClock();
    const core = new DnsCore([withCache(new ZoneResolver({ files: ALL_ZONES }), { clock })]);
    const resolver = counting(core);
    const locator = new SipLocator(resolver, { clock, maxPlans: 1 });
    for (const uri of ['sip:bob@biloxi.example', 'sip:bob@nonaptr.cases.example']) {
      await locator.resolve(uri);
      await locator.resolve(uri);
    }
    let asked = resolver.asked;
    await locator.resolve('sip:bob@nonaptr.cases.example');
    expect(resolver.asked).toBe(asked);
    await locator.resolve('sip:bob@biloxi.example'); // its plan was dropped
    expect(resolver.asked).toBeGreaterThan(asked);
    asked = resolver.asked;
    expect(() => new SipLocator(resolver, { maxPlans: 0 })).toThrow(/maxPlans/);
  });
});
