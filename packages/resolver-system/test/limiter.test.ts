import { describe, expect, it } from 'vitest';
import { AbortError } from '@dnscore/core/plugin';
import { Limiter } from '../src/limiter.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const never = new AbortController().signal;

describe('Limiter, nominal', () => {
  it('runs at most `max` at once and starts waiters in arrival order', async () => {
    const limiter = new Limiter(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      limiter.run(never, async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([limiter.running, limiter.queued]).toEqual([2, 2]);
    gates[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    gates[3]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect([limiter.running, limiter.queued, limiter.peak]).toEqual([0, 0, 2]);
  });

  it('gives the slot back when the work fails', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(never, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(limiter.running).toBe(0);
    expect(await limiter.run(never, async () => 'next')).toBe('next');
  });
});

describe('Limiter, off-nominal', () => {
  it('lets a cancelled waiter leave the queue at once, and never runs it', async () => {
    const limiter = new Limiter(1);
    const gate = deferred();
    const first = limiter.run(never, () => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const second = limiter.run(controller.signal, async () => {
      ran = true;
    });
    const third = limiter.run(never, async () => 'third');
    expect(limiter.queued).toBe(2);
    controller.abort();
    expect(limiter.queued).toBe(1);
    await expect(second).rejects.toBeInstanceOf(AbortError);
    gate.resolve();
    await first;
    expect(await third).toBe('third');
    expect(ran).toBe(false);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(AbortSignal.abort(), async () => 1)).rejects.toBeInstanceOf(AbortError);
    expect([limiter.running, limiter.queued]).toEqual([0, 0]);
  });
});
