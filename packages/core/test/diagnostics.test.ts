/**
 * The diagnostics channels of core: the `dnscore:query` trace and the fallback, bogus and cache
 * events, with their exact payloads and order, read by real subscribers.
 */
import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { DnsCore, NetworkError, makeQuery, withCache, type Clock } from '@dnscore/core';
import { CHANNELS, queryChannel, type QueryTraceContext } from '@dnscore/core/diagnostics';
import { answerPacket, bytes } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';

const answerA = (name: string, ttl = 300) => ({
  rcode: 0,
  answer: answerPacket({ question: { name, type: 1 }, answers: [{ type: 1, ttl, rdata: bytes([192, 0, 2, 1]) }] }),
});

/** Everything published on dnscore's channels, in order; the trace contexts as they were then. */
function record(): { seen: [string, unknown][]; stop(): void } {
  const seen: [string, unknown][] = [];
  const snapshot = (ctx: QueryTraceContext) => ({
    name: ctx.query.name,
    cache: ctx.cache,
    attempts: ctx.attempts.map((a) => ({ ...a })),
    ...(ctx.result ? { resolver: ctx.result.resolver, rcode: ctx.result.rcode, bogus: ctx.result.bogus } : {}),
    ...(ctx.error ? { error: ctx.error } : {}),
  });
  const handlers = {
    start: (ctx: QueryTraceContext) => seen.push(['query:start', snapshot(ctx)]),
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (ctx: QueryTraceContext) => seen.push(['query:asyncEnd', snapshot(ctx)]),
    error: (ctx: QueryTraceContext) => seen.push(['query:error', snapshot(ctx)]),
  };
  queryChannel.subscribe(handlers);
  const names = [CHANNELS.fallback, CHANNELS.bogus, CHANNELS.cacheHit, CHANNELS.cacheMiss];
  const listener = (message: unknown, name: string | symbol) => void seen.push([String(name), message]);
  for (const name of names) diagnostics.subscribe(name, listener);
  return {
    seen,
    stop: () => {
      queryChannel.unsubscribe(handlers);
      for (const name of names) diagnostics.unsubscribe(name, listener);
    },
  };
}

let recorder: ReturnType<typeof record> | undefined;
afterEach(() => recorder?.stop());

describe('dnscore:query and the cache events', () => {
  it('traces a miss (the backend asked) and then a hit (none asked), with the entry age', async () => {
    let now = 5_000_000;
    const clock: Clock = { now: () => now };
    const stub = fakePlugin({ name: 'stub', answer: answerA('goose.feathers') });
    const core = new DnsCore([withCache(stub, { clock })]);
    recorder = record();
    await core.resolve('goose.feathers', 'A');
    now += 7_000;
    await core.resolve('goose.feathers', 'A');
    const query = makeQuery('goose.feathers', 'A');
    expect(recorder.seen).toEqual([
      ['query:start', { name: 'goose.feathers', cache: 'miss', attempts: [] }],
      [CHANNELS.cacheMiss, { query, backend: 'stub', joined: false }],
      [
        'query:asyncEnd',
        {
          name: 'goose.feathers',
          cache: 'miss',
          attempts: [{ backend: 'stub' }],
          resolver: 'stub',
          rcode: 0,
          bogus: false,
        },
      ],
      ['query:start', { name: 'goose.feathers', cache: 'miss', attempts: [] }],
      [CHANNELS.cacheHit, { query, backend: 'stub', age: 7 }],
      [
        'query:asyncEnd',
        { name: 'goose.feathers', cache: 'hit', attempts: [], resolver: 'stub', rcode: 0, bogus: false },
      ],
    ]);
  });

  it('says a question that joined one in flight is a joined miss', async () => {
    let release: () => void = () => {};
    const stub = fakePlugin({
      name: 'stub',
      answer: () => new Promise((resolve) => (release = () => resolve(answerA('goose.feathers')))),
    });
    const core = new DnsCore([withCache(stub)]);
    recorder = record();
    const both = Promise.all([core.resolve('goose.feathers'), core.resolve('goose.feathers')]);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await both;
    const misses = recorder.seen.filter(([name]) => name === CHANNELS.cacheMiss).map(([, m]) => m);
    const query = makeQuery('goose.feathers', 'A');
    expect(misses).toEqual([
      { query, backend: 'stub', joined: false },
      { query, backend: 'stub', joined: true },
    ]);
  });

  it('lists every backend asked, the failed ones with their error, and publishes the fallback', async () => {
    const refused = new NetworkError('ECONNREFUSED');
    const a = fakePlugin({
      name: 'a',
      priority: 1,
      answer: () => {
        throw refused;
      },
    });
    const b = fakePlugin({ name: 'b', priority: 2, answer: answerA('goose.feathers') });
    recorder = record();
    await new DnsCore([a, b]).resolve('goose.feathers');
    expect(recorder.seen).toEqual([
      ['query:start', { name: 'goose.feathers', cache: 'miss', attempts: [] }],
      [CHANNELS.fallback, { query: makeQuery('goose.feathers', 'A'), plugin: 'a', error: refused, next: 'b' }],
      [
        'query:asyncEnd',
        {
          name: 'goose.feathers',
          cache: 'miss',
          attempts: [{ backend: 'a', error: refused }, { backend: 'b' }],
          resolver: 'b',
          rcode: 0,
          bogus: false,
        },
      ],
    ]);
  });

  it('ends the trace with the error when no backend answers', async () => {
    const refused = new NetworkError('ECONNREFUSED');
    const a = fakePlugin({
      name: 'a',
      answer: () => {
        throw refused;
      },
    });
    recorder = record();
    await expect(new DnsCore([a]).resolve('goose.feathers')).rejects.toBe(refused);
    expect(recorder.seen).toEqual([
      ['query:start', { name: 'goose.feathers', cache: 'miss', attempts: [] }],
      [CHANNELS.fallback, { query: makeQuery('goose.feathers', 'A'), plugin: 'a', error: refused, next: undefined }],
      [
        'query:error',
        { name: 'goose.feathers', cache: 'miss', attempts: [{ backend: 'a', error: refused }], error: refused },
      ],
      // Node ends every traced promise with asyncEnd, a rejected one too.
      [
        'query:asyncEnd',
        { name: 'goose.feathers', cache: 'miss', attempts: [{ backend: 'a', error: refused }], error: refused },
      ],
    ]);
  });

  it('publishes a bogus answer with its EDE code and reason', async () => {
    const validator = fakePlugin({
      name: 'validator',
      answer: { ...answerA('dnssec-failed.feathers'), bogus: true, ede: 7, whyBogus: 'signature expired' },
    });
    recorder = record();
    const result = await new DnsCore([validator]).resolve('dnssec-failed.feathers');
    expect(result.bogus).toBe(true);
    expect(recorder.seen.filter(([name]) => name === CHANNELS.bogus)).toEqual([
      [
        CHANNELS.bogus,
        {
          query: makeQuery('dnssec-failed.feathers', 'A'),
          resolver: 'validator',
          ede: 7,
          whyBogus: 'signature expired',
        },
      ],
    ]);
  });

  it('publishes each hit of the fast path (no query trace listening); the hit is still the same result', async () => {
    let now = 5_000_000;
    const clock: Clock = { now: () => now };
    const stub = fakePlugin({ name: 'stub', answer: answerA('goose.feathers') });
    const core = new DnsCore([withCache(stub, { clock })]);
    await core.resolve('goose.feathers', 'A');
    const hits: unknown[] = [];
    const listener = (message: unknown) => void hits.push(message);
    diagnostics.subscribe(CHANNELS.cacheHit, listener);
    try {
      expect(queryChannel.hasSubscribers).toBe(false);
      now += 2_000;
      const first = await core.resolve('goose.feathers', 'A');
      const second = await core.resolve('goose.feathers', 'A');
      expect(second).toBe(first);
      const query = makeQuery('goose.feathers', 'A');
      expect(hits).toEqual([
        { query, backend: 'stub', age: 2 },
        { query, backend: 'stub', age: 2 },
      ]);
    } finally {
      diagnostics.unsubscribe(CHANNELS.cacheHit, listener);
    }
  });

  it('publishes nothing, and traces nothing, once the subscribers left', async () => {
    const stub = fakePlugin({ name: 'stub', answer: answerA('goose.feathers') });
    recorder = record();
    recorder.stop();
    await new DnsCore([withCache(stub)]).resolve('goose.feathers');
    expect(recorder.seen).toEqual([]);
    expect(queryChannel.hasSubscribers).toBe(false);
  });
});
