/**
 * DnsCore's hit path: a fresh hit in the first plugin's cache is answered from the cache entry
 * without calling the plugin; the same entry at the same age gives the same immutable result;
 * `current()` says whether results built from cache entries would still be the answer.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, InvalidQueryError, withCache } from '@dnscore/core';
import type { DnsQuery, PluginAnswer } from '@dnscore/core/plugin';
import { answerPacket, bytes } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';
import { fakeClock } from './support/fake-clock.js';

const positive = (query: DnsQuery, ttl = 60): PluginAnswer => ({
  rcode: 0,
  answer: answerPacket({
    question: { name: query.name, type: query.type, class: query.class },
    answers: [{ type: query.type, class: query.class, ttl, rdata: bytes([192, 0, 2, 1]) }],
  }),
});

describe('DnsCore hit path: nominal', () => {
  it('answers a hit without calling the plugin, the same result within a second, aged after', async () => {
    const clock = fakeClock();
    const inner = fakePlugin({ answer: (q) => positive(q) });
    const cache = withCache(inner, { clock });
    const core = new DnsCore([cache]);
    const miss = await core.resolve('goose.feathers', 'A');
    // The backend's answer holds the entry the cache stored from it: what a hit is built from.
    expect(miss.cacheEntry?.current()).toBe(true);
    const hit = await core.resolve('goose.feathers', 'A');
    expect(hit.cacheEntry).toBe(miss.cacheEntry);
    expect(await core.resolve('goose.feathers', 'A')).toBe(hit);
    clock.advanceMs(999);
    expect(await core.resolve('goose.feathers', 'A')).toBe(hit);
    clock.advanceMs(1);
    const older = await core.resolve('goose.feathers', 'A');
    expect(older).not.toBe(hit);
    expect(older.records.map((r) => r.ttl)).toEqual([59]);
    expect(older.age).toBe(1);
    expect(inner.calls).toHaveLength(1);
    expect(cache.stats).toMatchObject({ hits: 4, misses: 1 });
  });

  it('a hit asked with another spelling of the name answers that question', async () => {
    const inner = fakePlugin({ answer: (q) => positive(q) });
    const core = new DnsCore([withCache(inner)]);
    await core.resolve('goose.feathers');
    const hit = await core.resolve('GOOSE.Feathers.');
    expect(hit.query.name).toBe('GOOSE.Feathers');
    expect(hit.records[0]!.data).toBe('192.0.2.1');
    expect(inner.calls).toHaveLength(1);
  });

  it('a hit asked in another spelling gets its canonical name in that spelling', async () => {
    let bogus = false;
    const inner = fakePlugin({
      answer: (q) => ({
        ...positive(q),
        canonical: q.name,
        ...(bogus ? { bogus: true, whyBogus: 'no signature' } : {}),
      }),
    });
    const core = new DnsCore([withCache(inner)]);
    expect((await core.resolve('Goose.Feathers')).canonical).toBe('Goose.Feathers');
    const hit = await core.resolve('goose.feathers');
    expect(hit).toMatchObject({ canonical: 'goose.feathers', query: { name: 'goose.feathers' } });
    expect(hit.records.map((r) => r.data)).toEqual(['192.0.2.1']);
    bogus = true;
    expect((await core.resolve('Bad.Feathers')).canonical).toBe('Bad.Feathers');
    expect(await core.resolve('BAD.feathers')).toMatchObject({ bogus: true, canonical: 'BAD.feathers', records: [] });
    expect(inner.calls).toHaveLength(2);
  });

  it('current() holds while every entry is the one served, by the plugin that answers first', async () => {
    const clock = fakeClock();
    const cache = withCache(fakePlugin({ answer: (q) => positive(q, 10) }), { clock });
    const core = new DnsCore([cache]);
    await core.resolve('a.feathers');
    await core.resolve('b.feathers');
    const a = await core.resolve('a.feathers');
    const b = await core.resolve('b.feathers');
    expect(core.current([a, b])).toBe(true);
    clock.advanceMs(10_000);
    expect(core.current([a])).toBe(false);
    const again = await core.resolve('a.feathers');
    expect(core.current([again])).toBe(true); // a backend answer, as the cache stored it
    const hit = await core.resolve('a.feathers');
    expect(core.current([hit, again])).toBe(true);
    cache.clear();
    expect(core.current([hit])).toBe(false);
  });

  it('current() turns false when another plugin answers first', async () => {
    const cache = withCache(fakePlugin({ name: 'slow', priority: 50, answer: (q) => positive(q) }));
    const core = new DnsCore([cache]);
    await core.resolve('a.feathers');
    const hit = await core.resolve('a.feathers');
    expect(core.current([hit])).toBe(true);
    const front = fakePlugin({ name: 'front', priority: 10, answer: (q) => positive(q) });
    core.register(front);
    expect(core.current([hit])).toBe(false);
    front.availability = false;
    expect(core.current([hit])).toBe(true);
  });
});

describe('DnsCore hit path: off-nominal', () => {
  it('an entry replaced by a new answer is no longer current', async () => {
    const clock = fakeClock();
    const cache = withCache(fakePlugin({ answer: (q) => positive(q, 10) }), { clock });
    const core = new DnsCore([cache]);
    await core.resolve('a.feathers');
    const hit = await core.resolve('a.feathers');
    clock.advanceMs(10_000);
    await core.resolve('a.feathers'); // stores a new entry
    expect(core.current([hit])).toBe(false);
    expect(core.current([await core.resolve('a.feathers')])).toBe(true);
  });

  it('bad input still rejects, hit or not; an aborted signal rejects before the cache', async () => {
    const inner = fakePlugin({ answer: (q) => positive(q) });
    const core = new DnsCore([withCache(inner)]);
    await expect(core.resolve('')).rejects.toBeInstanceOf(InvalidQueryError);
    await expect(core.resolve('a..feathers')).rejects.toBeInstanceOf(InvalidQueryError);
    await core.resolve('a.feathers');
    const controller = new AbortController();
    controller.abort();
    await expect(core.resolve('a.feathers', 'A', { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('a backend answer the cache did not store (TTL 0), or whose entry was replaced, is not current', async () => {
    const clock = fakeClock();
    const cache = withCache(fakePlugin({ answer: (q) => positive(q, q.name.startsWith('zero') ? 0 : 10) }), {
      clock,
    });
    const core = new DnsCore([cache]);
    const uncached = await core.resolve('zero.feathers');
    expect(uncached.cacheEntry).toBeUndefined();
    expect(core.current([uncached])).toBe(false);
    const first = await core.resolve('a.feathers');
    clock.advanceMs(10_000);
    const replacing = await core.resolve('a.feathers');
    expect(core.current([first])).toBe(false);
    expect(core.current([replacing])).toBe(true);
    expect(cache.cache.stored?.({ rcode: 0, answer: replacing.answer })).toBeUndefined(); // a copy: not stored
  });

  it('a plugin without a cache is always asked', async () => {
    const inner = fakePlugin({ answer: (q) => positive(q) });
    const core = new DnsCore([inner]);
    await core.resolve('a.feathers');
    const second = await core.resolve('a.feathers');
    expect(inner.calls).toHaveLength(2);
    expect(core.current([second])).toBe(false);
  });
});
