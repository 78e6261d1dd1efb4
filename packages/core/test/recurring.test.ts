/**
 * Recurring queries: Asterisk's tests/test_dns_recurring.c, ported with fake timers, and what
 * Asterisk gets wrong (it stops on TTL 0, NXDOMAIN or a failed re-query; it calls back after
 * a cancel during a query).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DnsCore, InvalidArgumentError, InvalidQueryError, type DnsResult } from '@dnscore/core';
import type { PluginAnswer } from '@dnscore/core/plugin';
import { answerPacket, bytes } from './support/packets.js';
import { delayedAnswer, fakePlugin } from './support/fake-plugin.js';

/** Two A records with the TTLs of the moment, as the Asterisk test's resolver gives. */
function ttlAnswer(ttls: { ttl1: number; ttl2: number }): PluginAnswer {
  return {
    rcode: 0,
    answer: answerPacket({
      answers: [
        { type: 1, ttl: ttls.ttl1, rdata: bytes([127, 0, 0, 1]) },
        { type: 1, ttl: ttls.ttl2, rdata: bytes([127, 0, 0, 2]) },
      ],
    }),
  };
}

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('recurring queries: nominal', () => {
  it('recurring_query: at once, then after the lowest TTL + 2 s, following the latest TTLs', async () => {
    const ttls = { ttl1: 5, ttl2: 20 };
    const mock = fakePlugin({ answer: () => ttlAnswer(ttls) });
    const results: number[] = [];
    const recurring = new DnsCore([mock]).resolveRecurring('goose.feathers', 'A', {
      onResult: (r) => results.push(r.lowestTtl),
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(results).toEqual([5]);
    ttls.ttl1 = 45;
    ttls.ttl2 = 10;
    await vi.advanceTimersByTimeAsync(6999);
    expect(results).toEqual([5]);
    await vi.advanceTimersByTimeAsync(1);
    expect(results).toEqual([5, 10]); // 5 s TTL + 2 s margin
    await vi.advanceTimersByTimeAsync(11_999);
    expect(results).toEqual([5, 10]);
    await vi.advanceTimersByTimeAsync(1);
    expect(results).toEqual([5, 10, 10]); // the lowest TTL of the latest result, 10 s + 2 s
    expect(recurring.nextDelayMs).toBe(12_000);
    recurring.stop();
  });

  it('keeps going on TTL 0 with a floor that backs off, where Asterisk stops', async () => {
    const mock = fakePlugin({ answer: () => ttlAnswer({ ttl1: 0, ttl2: 0 }) });
    const onResult = vi.fn();
    const recurring = new DnsCore([mock]).resolveRecurring('goose.feathers', 'A', {
      onResult,
      floorMs: 1000,
      maxBackoffMs: 4000,
    });
    await vi.advanceTimersByTimeAsync(0);
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      delays.push(recurring.nextDelayMs!);
      await vi.advanceTimersByTimeAsync(recurring.nextDelayMs!);
    }
    expect(delays).toEqual([1000, 2000, 4000, 4000, 4000]);
    expect(onResult).toHaveBeenCalledTimes(6);
    recurring.stop();
  });

  it('keeps going after NXDOMAIN and after errors, and resets the backoff once a TTL comes back', async () => {
    let step = 0;
    const mock = fakePlugin({
      answer: () => {
        step++;
        if (step === 1) return { rcode: 3 };
        if (step === 2) throw new Error('timeout');
        return ttlAnswer({ ttl1: 30, ttl2: 60 });
      },
    });
    const onResult = vi.fn<(r: DnsResult) => void>();
    const onError = vi.fn();
    const recurring = new DnsCore([mock]).resolveRecurring('goose.feathers', 'A', { onResult, onError, floorMs: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(onResult.mock.calls[0]![0].nxDomain).toBe(true);
    expect(recurring.nextDelayMs).toBe(1000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(recurring.nextDelayMs).toBe(2000);
    await vi.advanceTimersByTimeAsync(2000);
    expect(onResult).toHaveBeenCalledTimes(2);
    expect(recurring.nextDelayMs).toBe(32_000);
    recurring.stop();
  });

  it('clamps a huge TTL to the longest interval (setTimeout overflows past 2^31-1 ms)', async () => {
    const mock = fakePlugin({ answer: () => ttlAnswer({ ttl1: 2147483647, ttl2: 2147483647 }) });
    const recurring = new DnsCore([mock]).resolveRecurring('goose.feathers', 'A', { onResult() {} });
    await vi.advanceTimersByTimeAsync(0);
    expect(recurring.nextDelayMs).toBe(86_400_000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(mock.calls).toHaveLength(1);
    recurring.stop();
  });

  it('a throwing callback does not end the recurrence', async () => {
    const mock = fakePlugin({ answer: () => ttlAnswer({ ttl1: 1, ttl2: 1 }) });
    const errors: unknown[] = [];
    const onUncaught = (error: unknown): void => void errors.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const recurring = new DnsCore([mock]).resolveRecurring('goose.feathers', 'A', {
        onResult: () => {
          throw new Error('callback bug');
        },
      });
      await vi.advanceTimersByTimeAsync(3000);
      expect(mock.calls).toHaveLength(2);
      recurring.stop();
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});

describe('recurring queries: off-nominal', () => {
  it('recurring_query_off_nominal: invalid input throws at once', () => {
    const core = new DnsCore([fakePlugin()]);
    expect(() => core.resolveRecurring('', 'A', { onResult() {} })).toThrow(InvalidQueryError);
    expect(() => core.resolveRecurring('goose.feathers', 65536, { onResult() {} })).toThrow(InvalidQueryError);
    expect(() => core.resolveRecurring('goose.feathers', 'A', {} as never)).toThrow(InvalidArgumentError);
    expect(() => core.resolveRecurring('goose.feathers', 'A', { onResult() {}, floorMs: 0 })).toThrow(
      InvalidArgumentError,
    );
  });

  it('recurring_query_cancel_between: stop after the first result; no callback afterwards', async () => {
    const mock = fakePlugin({ answer: () => ttlAnswer({ ttl1: 5, ttl2: 5 }) });
    const onResult = vi.fn();
    const recurring = new DnsCore([mock]).resolveRecurring('goose.feathers', 'A', { onResult });
    await vi.advanceTimersByTimeAsync(0);
    recurring.stop();
    expect(recurring.stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onResult).toHaveBeenCalledTimes(1);
    expect(mock.calls).toHaveLength(1);
  });

  it(
    'recurring_query_cancel_during (inverted): stop while a query is in flight cancels it; no callback at ' + 'all',
    async () => {
      const mock = fakePlugin({ answer: delayedAnswer(2000, ttlAnswer({ ttl1: 5, ttl2: 5 })) });
      const onResult = vi.fn();
      const recurring = new DnsCore([mock]).resolveRecurring('goose.feathers', 'A', { onResult });
      await vi.advanceTimersByTimeAsync(1000);
      recurring.stop();
      expect(mock.calls[0]!.signal.aborted).toBe(true);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(onResult).not.toHaveBeenCalled();
    },
  );

  it('stopping through the signal is the same as stop()', async () => {
    const mock = fakePlugin({ answer: () => ttlAnswer({ ttl1: 1, ttl2: 1 }) });
    const controller = new AbortController();
    const recurring = new DnsCore([mock]).resolveRecurring('goose.feathers', 'A', {
      onResult() {},
      signal: controller.signal,
    });
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    expect(recurring.stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(mock.calls).toHaveLength(1);
  });
});
