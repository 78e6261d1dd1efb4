/**
 * Issue 21 item 4: many resolutions sharing one AbortSignal (a request- or shutdown-scoped
 * one). EventTarget scans a signal's listeners on every add, so a listener per call made
 * 20,000 calls start in 32 s. The signal now holds one listener whatever the number of calls;
 * no timing is asserted, the listener count is.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortError, DnsCore, withCache } from '@dnscore/core';
import type { PluginAnswer } from '@dnscore/core/plugin';
import { onAbort } from '../src/abort.js';
import { answerPacket, bytes } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';

const CALLS = 5_000;

/** A plugin whose answers wait until `release()`. */
function heldPlugin() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const plugin = fakePlugin({
    answer: async (query): Promise<PluginAnswer> => {
      await gate;
      return {
        rcode: 0,
        answer: answerPacket({
          question: { name: query.name, type: 1 },
          answers: [{ type: 1, ttl: 60, rdata: bytes([192, 0, 2, 1]) }],
        }),
      };
    },
  });
  return { plugin, release };
}

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('one signal, many resolutions', () => {
  it(`${CALLS} calls through the cache hold one listener on the caller's signal, none once settled`, async () => {
    const { plugin, release } = heldPlugin();
    const core = new DnsCore([withCache(plugin)]);
    const caller = new AbortController();
    const calls = Array.from({ length: CALLS }, (_, i) =>
      core.resolve(`h${i % 500}.example`, 'A', { signal: caller.signal }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(listeners(caller.signal)).toBe(1);
    expect(plugin.calls).toHaveLength(500); // identical questions merged
    release();
    const results = await Promise.all(calls);
    expect(results.every((r) => r.records[0]?.data === '192.0.2.1')).toBe(true);
    expect(listeners(caller.signal)).toBe(0);
  });

  it(`aborting the shared signal rejects all ${CALLS} calls with AbortError and cancels the backend`, async () => {
    const { plugin } = heldPlugin();
    const core = new DnsCore([withCache(plugin)]);
    const caller = new AbortController();
    const calls = Array.from({ length: CALLS }, (_, i) =>
      core.resolve(`h${i}.example`, 'A', { signal: caller.signal }).then(
        () => 'resolved',
        (error: unknown) => (error instanceof AbortError ? error.code : String(error)),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(listeners(caller.signal)).toBe(1);
    caller.abort();
    const outcomes = await Promise.all(calls);
    expect(new Set(outcomes)).toEqual(new Set(['ABORT_ERR']));
    expect(plugin.calls.every((c) => c.signal.aborted)).toBe(true);
    expect(listeners(caller.signal)).toBe(0);
  });
});

describe('onAbort', () => {
  it('calls every callback once, in order, and forgets those removed', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    onAbort(controller.signal, () => seen.push('a'));
    const forgetB = onAbort(controller.signal, () => seen.push('b'));
    const same = () => seen.push('c');
    onAbort(controller.signal, same);
    onAbort(controller.signal, same);
    forgetB();
    forgetB();
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    controller.abort();
    expect(seen).toEqual(['a', 'c', 'c']);
  });

  it('a callback that throws does not keep the others from running', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const reported = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    onAbort(controller.signal, () => {
      throw new Error('boom');
    });
    onAbort(controller.signal, () => seen.push('after'));
    controller.abort();
    expect(seen).toEqual(['after']);
    expect(((await reported) as Error).message).toBe('boom');
  });
});
