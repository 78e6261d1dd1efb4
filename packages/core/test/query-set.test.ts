/**
 * Query sets: Asterisk's tests/test_dns_query_set.c, ported; the cancel cases follow the one
 * cancel rule (reject with AbortError, nothing fires afterwards).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, DnsCore, InvalidQueryError, StateError, type DnsQuery } from '@dnscore/core';
import type { PluginAnswer } from '@dnscore/core/plugin';
import { answerPacket, bytes } from './support/packets.js';
import { delayedAnswer, fakePlugin } from './support/fake-plugin.js';

const answerFor = (query: DnsQuery): PluginAnswer => ({
  rcode: 0,
  answer: answerPacket({
    question: { name: query.name, type: query.type },
    answers: query.type === 1 ? [{ type: 1, rdata: bytes([127, 0, 0, 1]) }] : [],
  }),
});

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('query sets: nominal', () => {
  it('query_set: four queries run in parallel and all complete; each keeps its name, type and class', async () => {
    const mock = fakePlugin({ answer: (query, signal) => delayedAnswer(1000, answerFor(query))(query, signal) });
    const set = new DnsCore([mock])
      .querySet()
      .add('goose.feathers', 'A')
      .add('goose.feathers', 'AAAA')
      .add('duck.feathers', 'A')
      .add('duck.feathers', 'AAAA', { class: 'IN' });
    expect(set.size).toBe(4);
    const pending = set.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(mock.calls).toHaveLength(4); // all four asked before any answered
    await vi.advanceTimersByTimeAsync(1000);
    const outcomes = await pending;
    expect(outcomes.map((o) => [o.query.name, o.query.type, o.query.class, o.status])).toEqual([
      ['goose.feathers', 1, 1, 'fulfilled'],
      ['goose.feathers', 28, 1, 'fulfilled'],
      ['duck.feathers', 1, 1, 'fulfilled'],
      ['duck.feathers', 28, 1, 'fulfilled'],
    ]);
    expect(outcomes[0]!.status === 'fulfilled' && outcomes[0]!.result.records[0]!.data).toBe('127.0.0.1');
  });

  it('query_set_empty: an empty set settles at once', async () => {
    await expect(new DnsCore([fakePlugin()]).querySet().resolve()).resolves.toEqual([]);
  });

  it('a query that fails counts as done, with its error', async () => {
    const mock = fakePlugin({
      answer: (query) => {
        if (query.name === 'bad.feathers') throw new Error('no answer');
        return answerFor(query);
      },
    });
    const outcomes = await new DnsCore([mock]).querySet().add('bad.feathers', 'A').add('goose.feathers', 'A').resolve();
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
    expect(outcomes[0]!.status === 'rejected' && outcomes[0]!.error.message).toBe('no answer');
  });
});

describe('query sets: off-nominal', () => {
  it(
    'query_set_nominal_cancel: all four pending, cancel rejects the set with AbortError and cancels them ' + 'all',
    async () => {
      const mock = fakePlugin({ answer: (query, signal) => delayedAnswer(5000, answerFor(query))(query, signal) });
      const set = new DnsCore([mock])
        .querySet()
        .add('a.feathers', 'A')
        .add('b.feathers', 'A')
        .add('c.feathers', 'A')
        .add('d.feathers', 'A');
      const controller = new AbortController();
      const onDone = vi.fn();
      const pending = set.resolve({ signal: controller.signal }).then(onDone);
      await vi.advanceTimersByTimeAsync(10);
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(AbortError);
      expect(mock.calls.every((c) => c.signal.aborted)).toBe(true);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(onDone).not.toHaveBeenCalled();
    },
  );

  it(
    'query_set_off_nominal_cancel (inverted): two answered, two pending; cancel rejects the set, cancels the two ' +
      'still running',
    async () => {
      const mock = fakePlugin({
        answer: (query, signal) =>
          query.name.startsWith('fast') ? answerFor(query) : delayedAnswer(5000, answerFor(query))(query, signal),
      });
      const set = new DnsCore([mock])
        .querySet()
        .add('fast1.feathers', 'A')
        .add('slow1.feathers', 'A')
        .add('fast2.feathers', 'A')
        .add('slow2.feathers', 'A');
      const controller = new AbortController();
      const pending = set.resolve({ signal: controller.signal });
      await vi.advanceTimersByTimeAsync(10);
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(AbortError);
      expect(
        mock.calls
          .filter((c) => c.signal.aborted)
          .map((c) => c.query.name)
          .sort(),
      ).toEqual(['fast1.feathers', 'fast2.feathers', 'slow1.feathers', 'slow2.feathers']);
    },
  );

  it('questions are validated when added', () => {
    expect(() => new DnsCore([]).querySet().add('', 'A')).toThrow(InvalidQueryError);
  });

  it('no question can be added once the set has started, and it runs once', async () => {
    const set = new DnsCore([fakePlugin({ answer: answerFor as never })]).querySet().add('goose.feathers', 'A');
    const pending = set.resolve();
    expect(() => set.add('duck.feathers', 'A')).toThrow(StateError);
    await expect(set.resolve()).rejects.toBeInstanceOf(StateError);
    await pending;
  });

  it('an already aborted signal rejects at once and asks nothing', async () => {
    const mock = fakePlugin();
    const set = new DnsCore([mock]).querySet().add('goose.feathers', 'A');
    await expect(set.resolve({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    expect(mock.calls).toHaveLength(0);
  });
});
