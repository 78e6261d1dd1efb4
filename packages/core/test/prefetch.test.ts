/**
 * Prefetch in the cache: off by default; when on, a hit in the last 10% of an answer's
 * lifetime starts one background refresh, merged with any question for it in flight; callers
 * get the cached answer without waiting, and a refresh that fails leaves the entry as it was.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, TimeoutError, withCache } from '@dnscore/core';
import type { DnsQuery, PluginAnswer } from '@dnscore/core/plugin';
import { answerPacket, bytes } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';
import { fakeClock } from './support/fake-clock.js';

const answerWith = (query: DnsQuery, last: number, ttl = 100): PluginAnswer => ({
  rcode: 0,
  answer: answerPacket({
    question: { name: query.name, type: query.type, class: query.class },
    answers: [{ type: query.type, class: query.class, ttl, rdata: bytes([192, 0, 2, last]) }],
  }),
});

/** A backend whose answers wait until the test releases them. */
function gated() {
  const pending: { resolve: (answer: PluginAnswer) => void; reject: (error: Error) => void; query: DnsQuery }[] = [];
  const plugin = fakePlugin({
    answer: (query) => new Promise<PluginAnswer>((resolve, reject) => pending.push({ resolve, reject, query })),
  });
  return { plugin, pending };
}

describe('prefetch: nominal', () => {
  it('a hit in the last 10% of the TTL starts one refresh; callers get the cached answer at once', async () => {
    const clock = fakeClock();
    const { plugin, pending } = gated();
    const cache = withCache(plugin, { clock, prefetch: true });
    const core = new DnsCore([cache]);
    const first = core.resolve('goose.feathers');
    pending.shift()!.resolve(answerWith(plugin.calls[0]!.query, 1));
    await first;
    clock.advance(89); // 11 s of 100 left: not yet
    await core.resolve('goose.feathers');
    expect(plugin.calls).toHaveLength(1);
    clock.advance(1); // 10 s left: prefetch
    const hit = await core.resolve('goose.feathers');
    expect(hit.records.map((r) => [r.data, r.ttl])).toEqual([['192.0.2.1', 10]]);
    expect(plugin.calls).toHaveLength(2);
    // More hits, and a miss-free wait: still one refresh.
    await core.resolve('goose.feathers');
    await core.resolve('goose.feathers');
    expect(plugin.calls).toHaveLength(2);
    expect(cache.stats).toMatchObject({ prefetches: 1, misses: 1 });
    pending.shift()!.resolve(answerWith(plugin.calls[1]!.query, 2));
    await new Promise((resolve) => setImmediate(resolve));
    const refreshed = await core.resolve('goose.feathers');
    expect(refreshed.records.map((r) => [r.data, r.ttl])).toEqual([['192.0.2.2', 100]]);
    expect(plugin.calls).toHaveLength(2);
  });

  it('peek() never starts a refresh: it never asks the backend', async () => {
    const clock = fakeClock();
    const { plugin, pending } = gated();
    const cache = withCache(plugin, { clock, prefetch: true });
    const first = new DnsCore([cache]).resolve('goose.feathers');
    pending.shift()!.resolve(answerWith(plugin.calls[0]!.query, 1));
    const query = (await first).query;
    clock.advance(95); // 5 s of 100 left
    expect(cache.peek(query)).toMatchObject({ rcode: 0, age: 95 });
    expect(plugin.calls).toHaveLength(1);
    expect(cache.stats).toMatchObject({ prefetches: 0 });
  });

  it('a question that misses while the refresh is out joins it', async () => {
    const clock = fakeClock();
    const { plugin, pending } = gated();
    const cache = withCache(plugin, { clock, prefetch: true });
    const core = new DnsCore([cache]);
    const first = core.resolve('goose.feathers');
    pending.shift()!.resolve(answerWith(plugin.calls[0]!.query, 1));
    await first;
    clock.advance(95);
    await core.resolve('goose.feathers'); // starts the refresh
    clock.advance(5); // expired while the refresh is out
    const waiting = core.resolve('goose.feathers');
    expect(plugin.calls).toHaveLength(2);
    pending.shift()!.resolve(answerWith(plugin.calls[1]!.query, 3));
    expect((await waiting).records[0]!.data).toBe('192.0.2.3');
    expect(cache.stats).toMatchObject({ joined: 1, prefetches: 1 });
  });
});

describe('prefetch: off-nominal', () => {
  it('is off by default', async () => {
    const clock = fakeClock();
    const plugin = fakePlugin({ answer: (q) => answerWith(q, 1) });
    const core = new DnsCore([withCache(plugin, { clock })]);
    await core.resolve('goose.feathers');
    clock.advance(99);
    await core.resolve('goose.feathers');
    expect(plugin.calls).toHaveLength(1);
  });

  it('a refresh that fails leaves the cached answer as it was, and is not retried on every hit', async () => {
    const clock = fakeClock();
    let fail = false;
    const plugin = fakePlugin({
      answer: (q) => {
        if (fail) throw new TimeoutError('timeout');
        return answerWith(q, 1);
      },
    });
    const cache = withCache(plugin, { clock, prefetch: true });
    const core = new DnsCore([cache]);
    await core.resolve('goose.feathers');
    fail = true;
    clock.advance(92);
    await core.resolve('goose.feathers');
    await new Promise((resolve) => setImmediate(resolve));
    expect(plugin.calls).toHaveLength(2);
    const after = await core.resolve('goose.feathers');
    expect(after.records.map((r) => [r.data, r.ttl])).toEqual([['192.0.2.1', 8]]);
    expect(plugin.calls).toHaveLength(2);
  });

  it('a refresh that comes back SERVFAIL leaves the cached answer as it was', async () => {
    const clock = fakeClock();
    let servfail = false;
    const plugin = fakePlugin({ answer: (q) => (servfail ? { rcode: 2 } : answerWith(q, 1)) });
    const core = new DnsCore([withCache(plugin, { clock, prefetch: true })]);
    await core.resolve('goose.feathers');
    servfail = true;
    clock.advance(95);
    await core.resolve('goose.feathers');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await core.resolve('goose.feathers')).records.map((r) => [r.data, r.ttl])).toEqual([['192.0.2.1', 5]]);
  });
});
