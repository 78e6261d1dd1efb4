/**
 * The cache in front of any plugin: TTLs, RFC 2308 negative caching, secure/bogus kept, LRU
 * bound, never an expired entry, shared in-flight queries. The clock is a fake one.
 */
import { describe, expect, it, vi } from 'vitest';
import { AbortError, DnsCore, InvalidArgumentError, makeQuery, seededRandom, withCache } from '@dnscore/core';
import {
  NEVER_ABORTED,
  type AnswerSink,
  type DnsQuery,
  type PluginAnswer,
  type ResolverPlugin,
} from '@dnscore/core/plugin';
import { answerPacket, bytes, domain, srvRdata, u32 } from './support/packets.js';
import { delayedAnswer, fakePlugin } from './support/fake-plugin.js';
import { fakeClock } from './support/fake-clock.js';

const A = 1;
const soa = (ttl: number, minimum: number) => ({
  name: 'feathers',
  type: 6,
  ttl,
  rdata: bytes(domain('ns.feathers'), domain('host.feathers'), u32(1), u32(2), u32(3), u32(4), u32(minimum)),
});

const positive = (query: DnsQuery, ttls = [300, 60]): PluginAnswer => ({
  rcode: 0,
  answer: answerPacket({
    question: { name: query.name, type: query.type, class: query.class },
    answers: ttls.map((ttl, i) => ({ type: query.type, class: query.class, ttl, rdata: bytes([192, 0, 2, i + 1]) })),
  }),
});

describe('cache: nominal', () => {
  it('serves a positive answer for its smallest TTL, with the TTLs aged', async () => {
    const clock = fakeClock();
    const inner = fakePlugin({ answer: (q) => positive(q) });
    const cached = withCache(inner, { clock });
    const core = new DnsCore([cached]);
    await core.resolve('goose.feathers');
    clock.advance(40);
    const hit = await core.resolve('GOOSE.feathers.');
    expect(inner.calls).toHaveLength(1);
    // One RRset with TTLs 300 and 60: both are 60 (RFC 2181 section 5.2), aged 40.
    expect(hit.records.map((r) => r.ttl)).toEqual([20, 20]);
    expect(hit.age).toBe(40);
    expect(hit.lowestTtl).toBe(20);
    clock.advance(20); // exactly at expiry: never served
    await core.resolve('goose.feathers');
    expect(inner.calls).toHaveLength(2);
    expect(cached.stats).toMatchObject({ hits: 1, misses: 2 });
  });

  it('draws the SRV order again on every hit, though the packet is parsed once', async () => {
    const answer = answerPacket({
      question: { name: '_sip._udp.feathers', type: 33 },
      answers: [
        { type: 33, ttl: 600, rdata: srvRdata(10, 50, 5060, 'a.feathers') },
        { type: 33, ttl: 600, rdata: srvRdata(10, 50, 5060, 'b.feathers') },
      ],
    });
    const inner = fakePlugin({ answer: { rcode: 0, answer } });
    const core = new DnsCore([withCache(inner)], { random: seededRandom(5) });
    const firsts = new Set<string>();
    for (let i = 0; i < 40; i++) firsts.add((await core.resolve('_sip._udp.feathers', 'SRV')).records[0]!.data.target);
    expect([...firsts].sort()).toEqual(['a.feathers', 'b.feathers']);
    expect(inner.calls).toHaveLength(1);
  });

  it('caches NXDOMAIN and NODATA for min(SOA TTL, SOA MINIMUM) (RFC 2308 section 5)', async () => {
    const clock = fakeClock();
    const inner = fakePlugin({
      answer: (q) => ({
        rcode: q.name === 'nx.feathers' ? 3 : 0,
        answer: answerPacket({
          rcode: q.name === 'nx.feathers' ? 3 : 0,
          question: { name: q.name, type: q.type },
          authorities: [soa(900, 120)],
        }),
      }),
    });
    const core = new DnsCore([withCache(inner, { clock })]);
    await core.resolve('nx.feathers');
    await core.resolve('nodata.feathers');
    clock.advance(119);
    expect((await core.resolve('nx.feathers')).nxDomain).toBe(true);
    expect((await core.resolve('nodata.feathers')).noData).toBe(true);
    expect(inner.calls).toHaveLength(2);
    clock.advance(1);
    await core.resolve('nx.feathers');
    expect(inner.calls).toHaveLength(3);
  });

  it('keeps secure and bogus with the entry; a bogus entry lives briefly', async () => {
    const clock = fakeClock();
    let bogus = false;
    const inner = fakePlugin({
      answer: (q) => ({
        ...positive(q, [3600]),
        secure: !bogus,
        bogus,
        ...(bogus ? { whyBogus: 'bad signature' } : {}),
      }),
    });
    const core = new DnsCore([withCache(inner, { clock, maxBogusTtl: 30 })]);
    await core.resolve('secure.feathers');
    expect((await core.resolve('secure.feathers')).secure).toBe(true);
    bogus = true;
    await core.resolve('bogus.feathers');
    const hit = await core.resolve('bogus.feathers');
    expect(hit).toMatchObject({ bogus: true, whyBogus: 'bad signature', records: [] });
    expect(inner.calls).toHaveLength(2);
    clock.advance(30);
    await core.resolve('bogus.feathers');
    expect(inner.calls).toHaveLength(3);
  });

  it('never keeps a bogus answer past its own TTL: TTL 10 lives 10 s, TTL 0 is not cached', async () => {
    const clock = fakeClock();
    const inner = fakePlugin({
      answer: (q) => ({ ...positive(q, [q.name === 'zero.feathers' ? 0 : 10]), bogus: true, whyBogus: 'bad sig' }),
    });
    const cached = withCache(inner, { clock });
    const core = new DnsCore([cached]);
    expect(await core.resolve('zero.feathers')).toMatchObject({ bogus: true, whyBogus: 'bad sig', records: [] });
    expect(cached.stats.size).toBe(0);
    await core.resolve('zero.feathers');
    expect(inner.calls).toHaveLength(2);
    await core.resolve('ten.feathers');
    clock.advance(9);
    expect(await core.resolve('ten.feathers')).toMatchObject({ bogus: true, secure: false, whyBogus: 'bad sig' });
    expect(inner.calls).toHaveLength(3);
    clock.advance(1);
    await core.resolve('ten.feathers');
    expect(inner.calls).toHaveLength(4);
  });

  it('caps lifetimes (maxTtl, maxNegativeTtl)', async () => {
    const clock = fakeClock();
    const inner = fakePlugin({ answer: (q) => positive(q, [999_999]) });
    const core = new DnsCore([withCache(inner, { clock, maxTtl: 60 })]);
    await core.resolve('goose.feathers');
    clock.advance(60);
    await core.resolve('goose.feathers');
    expect(inner.calls).toHaveLength(2);
  });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    const inner = fakePlugin({ answer: (q) => positive(q) });
    const cached = withCache(inner, { maxEntries: 2 });
    const core = new DnsCore([cached]);
    await core.resolve('a.feathers');
    await core.resolve('b.feathers');
    await core.resolve('a.feathers'); // a is now the most recent
    await core.resolve('c.feathers'); // evicts b
    expect(cached.stats.size).toBe(2);
    await core.resolve('a.feathers');
    expect(inner.calls).toHaveLength(3);
    await core.resolve('b.feathers');
    expect(inner.calls).toHaveLength(4);
  });

  it('never evicts the answer it has just stored, even when every other entry was hit', async () => {
    const inner = fakePlugin({ answer: (q) => positive(q) });
    const cached = withCache(inner, { maxEntries: 2 });
    const core = new DnsCore([cached]);
    await core.resolve('a.feathers');
    await core.resolve('b.feathers');
    await core.resolve('a.feathers');
    await core.resolve('b.feathers'); // both hit: a is the least recently used
    const c = await core.resolve('c.feathers');
    expect(c.cacheEntry?.current()).toBe(true);
    expect(cached.stats.size).toBe(2);
    await core.resolve('c.feathers');
    await core.resolve('b.feathers');
    expect(inner.calls.map((call) => call.query.name)).toEqual(['a.feathers', 'b.feathers', 'c.feathers']);
    await core.resolve('a.feathers');
    expect(inner.calls.map((call) => call.query.name)).toEqual([
      'a.feathers',
      'b.feathers',
      'c.feathers',
      'a.feathers',
    ]);
  });

  it('keys on name, type and class', async () => {
    const inner = fakePlugin({ answer: (q) => positive(q) });
    const core = new DnsCore([withCache(inner)]);
    await core.resolve('goose.feathers', 'A');
    await core.resolve('goose.feathers', 'MX').catch(() => undefined);
    await core.resolve('goose.feathers', 'A', { class: 'CH' });
    expect(inner.calls).toHaveLength(3);
  });

  it('identical questions in flight share one backend query', async () => {
    vi.useFakeTimers();
    try {
      const inner = fakePlugin({ answer: (q, s) => delayedAnswer(100, positive(q))(q, s) });
      const cached = withCache(inner);
      const core = new DnsCore([cached]);
      const all = Promise.all([
        core.resolve('goose.feathers'),
        core.resolve('goose.feathers'),
        core.resolve('Goose.Feathers'),
      ]);
      await vi.advanceTimersByTimeAsync(100);
      expect((await all).map((r) => r.records.length)).toEqual([2, 2, 2]);
      expect(inner.calls).toHaveLength(1);
      expect(cached.stats.joined).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a waiter that gives up leaves; the shared query is cancelled only when the last one has', async () => {
    vi.useFakeTimers();
    try {
      const inner = fakePlugin({ answer: (q, s) => delayedAnswer(100, positive(q))(q, s) });
      const core = new DnsCore([withCache(inner)]);
      const first = new AbortController();
      const second = new AbortController();
      const a = core.resolve('goose.feathers', 'A', { signal: first.signal });
      const b = core.resolve('goose.feathers', 'A', { signal: second.signal });
      first.abort();
      await expect(a).rejects.toBeInstanceOf(AbortError);
      expect(inner.calls[0]!.signal.aborted).toBe(false);
      second.abort();
      await expect(b).rejects.toBeInstanceOf(AbortError);
      expect(inner.calls[0]!.signal.aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('cache: misses in flight as sinks', () => {
  /** A backend with ask(): each question waits as its sink until answered by hand. */
  function askingPlugin() {
    const asked: { query: DnsQuery; signal: AbortSignal; sink: AnswerSink }[] = [];
    const plugin: ResolverPlugin = {
      name: 'asking',
      priority: 0,
      available: () => true,
      resolve: () => Promise.reject(new Error('resolve() is not the way in when ask() is there')),
      ask: (query, signal, sink) => {
        asked.push({ query, signal, sink });
      },
      close: () => {},
    };
    return { plugin, asked };
  }

  it('asks the backend into one shared flight, stores its answer, then answers every caller', async () => {
    const { plugin, asked } = askingPlugin();
    const cached = withCache(plugin);
    const core = new DnsCore([cached]);
    const all = Promise.all([core.resolve('goose.feathers'), core.resolve('GOOSE.feathers')]);
    expect(asked).toHaveLength(1);
    // Nobody can cancel these questions: the backend gets the signal that never aborts.
    expect(asked[0]!.signal).toBe(NEVER_ABORTED);
    asked[0]!.sink.answer(positive(asked[0]!.query));
    expect((await all).map((r) => r.records.map((x) => x.data))).toEqual([
      ['192.0.2.1', '192.0.2.2'],
      ['192.0.2.1', '192.0.2.2'],
    ]);
    expect(cached.stats).toMatchObject({ misses: 2, joined: 1, size: 1 });
    expect((await core.resolve('goose.feathers')).age).toBe(0);
    expect(asked).toHaveLength(1);
  });

  it('gives the backend a real signal when a caller may cancel, and aborts it when the last one has', async () => {
    const { plugin, asked } = askingPlugin();
    const core = new DnsCore([withCache(plugin)]);
    const first = new AbortController();
    const second = new AbortController();
    const a = core.resolve('goose.feathers', 'A', { signal: first.signal });
    const b = core.resolve('goose.feathers', 'A', { signal: second.signal });
    expect(asked).toHaveLength(1);
    const backend = asked[0]!.signal;
    expect(backend).not.toBe(NEVER_ABORTED);
    first.abort();
    await expect(a).rejects.toBeInstanceOf(AbortError);
    expect(backend.aborted).toBe(false);
    second.abort();
    await expect(b).rejects.toBeInstanceOf(AbortError);
    expect(backend.aborted).toBe(true);
    // A late answer of the cancelled query is still stored; the next question is a hit.
    asked[0]!.sink.answer(positive(asked[0]!.query));
    expect((await core.resolve('goose.feathers')).records).toHaveLength(2);
    expect(asked).toHaveLength(1);
  });

  it('a prefetch is a caller that stays: a question that joins it and gives up does not cancel it', async () => {
    const clock = fakeClock();
    const { plugin, asked } = askingPlugin();
    const cached = withCache(plugin, { clock, prefetch: true });
    const core = new DnsCore([cached]);
    const warm = core.resolve('goose.feathers');
    asked[0]!.sink.answer(positive(asked[0]!.query, [100]));
    await warm;
    clock.advance(95); // the last 10% of 100 s: this hit starts the refresh
    expect((await core.resolve('goose.feathers')).age).toBe(95);
    expect(asked).toHaveLength(2);
    expect(asked[1]!.signal).toBe(NEVER_ABORTED);
    clock.advance(6); // expired: a question now joins the refresh in flight
    const leaving = new AbortController();
    const joined = core.resolve('goose.feathers', 'A', { signal: leaving.signal });
    expect(asked).toHaveLength(2);
    leaving.abort();
    await expect(joined).rejects.toBeInstanceOf(AbortError);
    asked[1]!.sink.answer(positive(asked[1]!.query, [100]));
    expect((await core.resolve('goose.feathers')).age).toBe(0);
    expect(cached.stats).toMatchObject({ prefetches: 1, joined: 1 });
  });
});

describe('cache: off-nominal', () => {
  it('never caches a truncated answer (RFC 2181 section 9: its RRsets may be partial; ask again)', async () => {
    const clock = fakeClock();
    const truncated = (query: DnsQuery): PluginAnswer => {
      const packet = answerPacket({
        flags: 0x8600, // QR, AA and TC
        question: { name: query.name, type: query.type, class: query.class },
        answers: [{ type: query.type, class: query.class, ttl: 300, rdata: bytes([192, 0, 2, 1]) }],
      });
      return { rcode: 0, answer: packet };
    };
    const inner = fakePlugin({ answer: truncated });
    const cached = withCache(inner, { clock });
    const core = new DnsCore([cached]);
    expect((await core.resolve('goose.feathers')).records.map((r) => [r.data, r.ttl])).toEqual([['192.0.2.1', 300]]);
    await core.resolve('goose.feathers');
    expect(inner.calls).toHaveLength(2);
    expect(cached.stats).toMatchObject({ hits: 0, misses: 2, size: 0 });
  });

  it('never caches a packet that is no response (QR clear), which no result is built from', async () => {
    const clock = fakeClock();
    const query = makeQuery('goose.feathers', 'A');
    const notResponse = answerPacket({
      flags: 0x0400, // AA without QR
      question: { name: query.name, type: query.type, class: query.class },
      answers: [{ type: A, class: 1, ttl: 300, rdata: bytes([192, 0, 2, 1]) }],
    });
    const inner = fakePlugin({ answer: { rcode: 0, answer: notResponse } });
    const cached = withCache(inner, { clock });
    await expect(new DnsCore([cached]).resolve('goose.feathers')).rejects.toThrow(
      'answer to goose.feathers IN A is not a response',
    );
    expect(cached.stats.size).toBe(0);
  });

  it('does not cache errors, SERVFAIL, TTL 0, or a negative answer without SOA', async () => {
    const answers: Array<PluginAnswer | Error> = [
      new Error('timeout'),
      { rcode: 2 },
      positive(makeQuery('goose.feathers', 'A'), [0]),
      { rcode: 3, answer: answerPacket({ rcode: 3 }) },
    ];
    let i = 0;
    const inner = fakePlugin({
      answer: () => {
        const next = answers[i++ % answers.length]!;
        if (next instanceof Error) throw next;
        return next;
      },
    });
    const core = new DnsCore([withCache(inner)]);
    for (let k = 0; k < 4; k++) await core.resolve('goose.feathers').catch(() => undefined);
    await core.resolve('goose.feathers').catch(() => undefined);
    expect(inner.calls).toHaveLength(5);
  });

  it('never caches an answer whose question is not the one asked (a forged answer)', async () => {
    const forged = {
      rcode: 0,
      answer: answerPacket({
        question: { name: 'victim.feathers', type: A },
        answers: [{ type: A, rdata: bytes([6, 6, 6, 6]) }],
      }),
    };
    const inner = fakePlugin({ answer: forged });
    const cached = withCache(inner);
    await new DnsCore([cached]).resolve('goose.feathers').catch(() => undefined);
    expect(cached.stats.size).toBe(0);
  });

  it('validates its options', () => {
    expect(() => withCache(fakePlugin(), { maxEntries: 0 })).toThrow(InvalidArgumentError);
    expect(() => withCache(fakePlugin(), { maxTtl: -1 })).toThrow(InvalidArgumentError);
  });

  it('passes availability through and clears on close', async () => {
    const inner = fakePlugin({ available: { available: false, reason: 'down' }, answer: (q) => positive(q) });
    const cached = withCache(inner);
    expect(cached.available()).toEqual({ available: false, reason: 'down' });
    expect(cached.name).toBe(inner.name);
    await cached.close();
    expect(inner.closed).toBe(1);
  });
});
