/**
 * Serve-stale (RFC 8767) in the cache: off by default; when on, an expired answer is served
 * with TTL 30 and marked stale only when the backend fails (timeout, network error, SERVFAIL),
 * never for NXDOMAIN or bogus, never longer than maxStaleSeconds after expiry, and the backend
 * is not asked again for 30 s after a failure. With fallback backends after the cache, a stale
 * answer is the last resort: they are asked first. The clock is a fake one.
 */
import { describe, expect, it } from 'vitest';
import {
  DnsCore,
  InvalidArgumentError,
  NetworkError,
  STALE_TTL,
  TimeoutError,
  makeQuery,
  withCache,
} from '@dnscore/core';
import type { DnsQuery, PluginAnswer } from '@dnscore/core/plugin';
import { answerPacket, bytes, domain, u32 } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';
import { fakeClock } from './support/fake-clock.js';

const positive = (query: DnsQuery, ttls = [300, 60]): PluginAnswer => ({
  rcode: 0,
  answer: answerPacket({
    question: { name: query.name, type: query.type, class: query.class },
    answers: ttls.map((ttl, i) => ({ type: query.type, class: query.class, ttl, rdata: bytes([192, 0, 2, i + 1]) })),
  }),
});

const nxdomain = (query: DnsQuery): PluginAnswer => ({
  rcode: 3,
  answer: answerPacket({
    rcode: 3,
    question: { name: query.name, type: query.type, class: query.class },
    authorities: [
      {
        name: 'feathers',
        type: 6,
        ttl: 600,
        rdata: bytes(domain('ns.feathers'), domain('host.feathers'), u32(1), u32(2), u32(3), u32(4), u32(600)),
      },
    ],
  }),
});

/** A backend that answers until told to fail, then fails with `failure` (an error, or an answer such as SERVFAIL). */
function flaky(answer: (query: DnsQuery) => PluginAnswer = (q) => positive(q), name = 'fake', priority = 0) {
  const state: { failure: Error | PluginAnswer | undefined } = { failure: undefined };
  const plugin = fakePlugin({
    name,
    priority,
    answer: (query) => {
      const failure = state.failure;
      if (failure instanceof Error) throw failure;
      return failure ?? answer(query);
    },
  });
  return { plugin, state };
}

describe('serve-stale: nominal', () => {
  it('serves the expired answer with TTL 30, marked stale, when the backend times out', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky();
    const cache = withCache(plugin, { clock, serveStale: true });
    const core = new DnsCore([cache]);
    const fresh = await core.resolve('goose.feathers');
    expect(fresh.stale).toBe(false);
    clock.advance(61); // the answer expired (lowest TTL 60)
    state.failure = new TimeoutError('no answer within 5000 ms');
    const stale = await core.resolve('goose.feathers');
    expect(stale.stale).toBe(true);
    expect(stale.records.map((r) => [r.data, r.ttl])).toEqual([
      ['192.0.2.1', STALE_TTL],
      ['192.0.2.2', STALE_TTL],
    ]);
    expect(stale.lowestTtl).toBe(30);
    expect(stale.secure).toBe(false);
    expect(plugin.calls).toHaveLength(2);
    expect(cache.stats).toMatchObject({ stale: 1 });
  });

  it('serves stale after a network error and after SERVFAIL, but fresh once the backend recovers', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky();
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true })]);
    await core.resolve('a.feathers');
    await core.resolve('b.feathers');
    clock.advance(61);
    state.failure = new NetworkError('ECONNREFUSED');
    expect((await core.resolve('a.feathers')).stale).toBe(true);
    state.failure = { rcode: 2 };
    const servfail = await core.resolve('b.feathers');
    expect(servfail).toMatchObject({ stale: true, rcode: 0 });
    expect(servfail.records).toHaveLength(2);
    state.failure = undefined;
    clock.advance(30); // the failure recheck timer ran out: the backend is asked again
    const recovered = await core.resolve('a.feathers');
    expect(recovered.stale).toBe(false);
    expect(recovered.records.map((r) => r.ttl)).toEqual([60, 60]);
  });

  it('does not ask the backend again within 30 s of a failure (RFC 8767 failure recheck timer)', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky();
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true })]);
    await core.resolve('goose.feathers');
    clock.advance(61);
    state.failure = new TimeoutError('timeout');
    await core.resolve('goose.feathers');
    expect(plugin.calls).toHaveLength(2);
    clock.advance(29);
    expect((await core.resolve('goose.feathers')).stale).toBe(true);
    expect(plugin.calls).toHaveLength(2);
    clock.advance(1);
    expect((await core.resolve('goose.feathers')).stale).toBe(true);
    expect(plugin.calls).toHaveLength(3);
  });

  it('keeps secure only when the answer was secure when cached', async () => {
    const clock = fakeClock();
    let secure = true;
    const { plugin, state } = flaky((q) => ({ ...positive(q), secure }));
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true })]);
    await core.resolve('signed.feathers');
    secure = false;
    await core.resolve('plain.feathers');
    clock.advance(61);
    state.failure = new TimeoutError('timeout');
    expect(await core.resolve('signed.feathers')).toMatchObject({ stale: true, secure: true });
    expect(await core.resolve('plain.feathers')).toMatchObject({ stale: true, secure: false });
  });

  it('serves a cached NXDOMAIN stale with a negative TTL of at most 30', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky(nxdomain);
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true })]);
    expect((await core.resolve('gone.feathers')).negativeTtl).toBe(600);
    clock.advance(601);
    state.failure = new TimeoutError('timeout');
    const stale = await core.resolve('gone.feathers');
    expect(stale).toMatchObject({ stale: true, rcode: 3, negativeTtl: 30 });
  });
});

describe('serve-stale: off-nominal', () => {
  it('is off by default: the failure is the answer', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky();
    const core = new DnsCore([withCache(plugin, { clock })]);
    await core.resolve('goose.feathers');
    clock.advance(61);
    state.failure = new TimeoutError('timeout');
    await expect(core.resolve('goose.feathers')).rejects.toBeInstanceOf(TimeoutError);
    state.failure = { rcode: 2 };
    expect(await core.resolve('goose.feathers')).toMatchObject({ rcode: 2, stale: false });
  });

  it('never serves stale longer than maxStaleSeconds after expiry', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky();
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true, maxStaleSeconds: 120 })]);
    await core.resolve('goose.feathers');
    state.failure = new TimeoutError('timeout');
    clock.advance(60 + 119);
    expect((await core.resolve('goose.feathers')).stale).toBe(true);
    clock.advance(1); // 120 s after expiry
    await expect(core.resolve('goose.feathers')).rejects.toBeInstanceOf(TimeoutError);
  });

  it('never answers an NXDOMAIN or a bogus answer from the backend with stale data', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky();
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true })]);
    await core.resolve('a.feathers');
    await core.resolve('b.feathers');
    clock.advance(61);
    state.failure = nxdomain(makeQuery('a.feathers', 'A'));
    expect(await core.resolve('a.feathers')).toMatchObject({ rcode: 3, stale: false, records: [] });
    state.failure = { ...positive(makeQuery('b.feathers', 'A')), bogus: true, whyBogus: 'signature expired' };
    expect(await core.resolve('b.feathers')).toMatchObject({ bogus: true, stale: false, records: [] });
  });

  it('a bogus verdict said as SERVFAIL without a packet is the answer, not a failure to serve stale over', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky();
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true })]);
    await core.resolve('goose.feathers');
    clock.advance(61);
    state.failure = { rcode: 2, bogus: true, whyBogus: 'signature expired', ede: 7 };
    expect(await core.resolve('goose.feathers')).toMatchObject({
      rcode: 2,
      bogus: true,
      secure: false,
      whyBogus: 'signature expired',
      ede: 7,
      stale: false,
      records: [],
    });
    // The backend's verdict replaced the expired data: a timeout after it serves nothing stale.
    state.failure = new TimeoutError('timeout');
    await expect(core.resolve('goose.feathers')).rejects.toBeInstanceOf(TimeoutError);
  });

  it('an answer it cannot cache (NXDOMAIN without SOA, TTL 0) replaces the expired data served stale', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky();
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true })]);
    await core.resolve('gone.feathers');
    await core.resolve('zero.feathers');
    clock.advance(61);
    state.failure = { rcode: 3, answer: answerPacket({ rcode: 3, question: { name: 'gone.feathers', type: 1 } }) };
    expect(await core.resolve('gone.feathers')).toMatchObject({ rcode: 3, stale: false, records: [] });
    state.failure = positive(makeQuery('zero.feathers', 'A'), [0]);
    const zero = await core.resolve('zero.feathers');
    expect(zero.records.map((r) => [r.data, r.ttl])).toEqual([['192.0.2.1', 0]]);
    expect(zero.stale).toBe(false);
    state.failure = new TimeoutError('timeout');
    await expect(core.resolve('gone.feathers')).rejects.toBeInstanceOf(TimeoutError);
    await expect(core.resolve('zero.feathers')).rejects.toBeInstanceOf(TimeoutError);
  });

  it('never serves a bogus entry stale', async () => {
    const clock = fakeClock();
    const { plugin, state } = flaky((q) => ({ ...positive(q), bogus: true, whyBogus: 'no signature' }));
    const core = new DnsCore([withCache(plugin, { clock, serveStale: true })]);
    await core.resolve('bad.feathers');
    clock.advance(61);
    state.failure = new TimeoutError('timeout');
    await expect(core.resolve('bad.feathers')).rejects.toBeInstanceOf(TimeoutError);
  });

  it('validates maxStaleSeconds', () => {
    expect(() => withCache(fakePlugin(), { serveStale: true, maxStaleSeconds: 0 })).toThrow(InvalidArgumentError);
    expect(() => withCache(fakePlugin(), { maxStaleSeconds: 1.5 })).toThrow(/maxStaleSeconds/);
  });
});

/** An answer of backend `b`: its own address and TTL, told apart from the cached one. */
const fromB = (query: DnsQuery): PluginAnswer => ({
  rcode: 0,
  answer: answerPacket({
    question: { name: query.name, type: query.type, class: query.class },
    answers: [{ type: query.type, class: query.class, ttl: 120, rdata: bytes([198, 51, 100, 7]) }],
  }),
});

/** `[withCache(a, { serveStale: true }), b]`, with a's answer to goose.feathers cached and expired. */
async function chainWithExpiredEntry(bAnswer: (query: DnsQuery) => PluginAnswer) {
  const clock = fakeClock();
  const a = flaky(positive, 'a');
  const bState: { failure: Error | undefined } = { failure: undefined };
  const b = fakePlugin({
    name: 'b',
    priority: 1,
    answer: (query) => {
      if (bState.failure) throw bState.failure;
      return bAnswer(query);
    },
  });
  const cache = withCache(a.plugin, { clock, serveStale: true });
  const core = new DnsCore([cache, b]);
  expect((await core.resolve('goose.feathers')).resolver).toBe('a');
  clock.advance(61);
  return { clock, a, b, bState, cache, core };
}

describe('serve-stale with fallback backends: the stale answer is the last resort', () => {
  it('asks the next backend when the cached one fails after expiry: its fresh answer wins', async () => {
    for (const failure of [new TimeoutError('timeout'), new NetworkError('ECONNREFUSED'), { rcode: 2 }]) {
      const { a, b, core } = await chainWithExpiredEntry(fromB);
      a.state.failure = failure;
      const result = await core.resolve('goose.feathers');
      expect(result).toMatchObject({ resolver: 'b', stale: false, rcode: 0 });
      expect(result.records.map((r) => [r.data, r.ttl])).toEqual([['198.51.100.7', 120]]);
      expect([a.plugin.calls.length, b.calls.length]).toEqual([2, 1]);
    }
  });

  it('serves the stale answer, TTL 30, once every backend after it failed', async () => {
    const { a, b, bState, cache, core } = await chainWithExpiredEntry(fromB);
    a.state.failure = new TimeoutError('timeout');
    bState.failure = new NetworkError('ECONNREFUSED');
    const result = await core.resolve('goose.feathers');
    expect(result).toMatchObject({ resolver: 'a', stale: true, rcode: 0, lowestTtl: 30 });
    expect(result.records.map((r) => [r.data, r.ttl])).toEqual([
      ['192.0.2.1', STALE_TTL],
      ['192.0.2.2', STALE_TTL],
    ]);
    expect([a.plugin.calls.length, b.calls.length]).toEqual([2, 1]);
    expect(cache.stats).toMatchObject({ stale: 1 });
  });

  it('serves the stale answer over a SERVFAIL of the next backend, not over its bogus verdict', async () => {
    const servfail = await chainWithExpiredEntry(() => ({ rcode: 2 }));
    servfail.a.state.failure = new TimeoutError('timeout');
    expect(await servfail.core.resolve('goose.feathers')).toMatchObject({ resolver: 'a', stale: true, rcode: 0 });
    const verdict = await chainWithExpiredEntry(() => ({ rcode: 2, bogus: true, whyBogus: 'signature expired' }));
    verdict.a.state.failure = new TimeoutError('timeout');
    expect(await verdict.core.resolve('goose.feathers')).toMatchObject({
      resolver: 'b',
      stale: false,
      bogus: true,
      rcode: 2,
      whyBogus: 'signature expired',
      records: [],
    });
  });

  it('never replaces an NXDOMAIN or a bogus answer of the next backend with stale data', async () => {
    const gone = await chainWithExpiredEntry(nxdomain);
    gone.a.state.failure = new TimeoutError('timeout');
    expect(await gone.core.resolve('goose.feathers')).toMatchObject({
      resolver: 'b',
      stale: false,
      rcode: 3,
      negativeTtl: 600,
      records: [],
    });
    const bogus = await chainWithExpiredEntry((q) => ({ ...fromB(q), bogus: true, whyBogus: 'no signature' }));
    bogus.a.state.failure = new TimeoutError('timeout');
    expect(await bogus.core.resolve('goose.feathers')).toMatchObject({
      resolver: 'b',
      stale: false,
      bogus: true,
      records: [],
    });
  });

  it('within the failure recheck time asks only the next backend, then the failing one again after 30 s', async () => {
    const { clock, a, b, bState, core } = await chainWithExpiredEntry(fromB);
    a.state.failure = new TimeoutError('timeout');
    bState.failure = new TimeoutError('timeout');
    expect(await core.resolve('goose.feathers')).toMatchObject({ resolver: 'a', stale: true });
    expect([a.plugin.calls.length, b.calls.length]).toEqual([2, 1]);
    clock.advance(29);
    bState.failure = undefined;
    expect(await core.resolve('goose.feathers')).toMatchObject({ resolver: 'b', stale: false });
    expect([a.plugin.calls.length, b.calls.length]).toEqual([2, 2]);
    bState.failure = new TimeoutError('timeout');
    expect(await core.resolve('goose.feathers')).toMatchObject({ resolver: 'a', stale: true });
    expect([a.plugin.calls.length, b.calls.length]).toEqual([2, 3]);
    clock.advance(1);
    a.state.failure = undefined;
    const fresh = await core.resolve('goose.feathers');
    expect(fresh).toMatchObject({ resolver: 'a', stale: false });
    expect(fresh.records.map((r) => r.ttl)).toEqual([60, 60]);
    expect([a.plugin.calls.length, b.calls.length]).toEqual([3, 3]);
  });

  it("of two caches serving stale, the first backend's stale answer is used", async () => {
    const clock = fakeClock();
    const a = flaky(positive, 'a');
    const b = flaky(fromB, 'b', 1);
    const core = new DnsCore([
      withCache(a.plugin, { clock, serveStale: true }),
      withCache(b.plugin, { clock, serveStale: true }),
    ]);
    a.state.failure = new NetworkError('ECONNREFUSED');
    expect((await core.resolve('goose.feathers')).resolver).toBe('b');
    a.state.failure = undefined;
    expect((await core.resolve('goose.feathers')).resolver).toBe('a');
    clock.advance(121); // both expired (TTLs 60 and 120)
    a.state.failure = new TimeoutError('timeout');
    b.state.failure = new NetworkError('ECONNREFUSED');
    const result = await core.resolve('goose.feathers');
    expect(result).toMatchObject({ resolver: 'a', stale: true });
    expect(result.records.map((r) => [r.data, r.ttl])).toEqual([
      ['192.0.2.1', STALE_TTL],
      ['192.0.2.2', STALE_TTL],
    ]);
    expect([a.plugin.calls.length, b.plugin.calls.length]).toEqual([3, 2]);
  });
});
