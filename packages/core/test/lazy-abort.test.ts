/** LazyAbort: the cancellation a waiting question holds, a real AbortSignal only when asked for one. */
import { describe, expect, it } from 'vitest';
import { NEVER_ABORTED } from '../src/abort.js';
import { ConcurrencyLimiter } from '../src/concurrency-limiter.js';
import { AbortError } from '../src/errors.js';
import { LazyAbort } from '../src/lazy-abort.js';

describe('LazyAbort, nominal', () => {
  it('aborts its signal, made before or after, with the reason; listeners run once', () => {
    const before = new LazyAbort();
    const early = before.signal;
    let calls = 0;
    before.addEventListener('abort', () => calls++);
    const reason = new Error('closed');
    before.abort(reason);
    before.abort(new Error('again'));
    expect([early.aborted, early.reason, before.aborted, before.reason, calls]).toEqual([
      true,
      reason,
      true,
      reason,
      1,
    ]);
    const after = new LazyAbort();
    after.abort(reason);
    expect([after.signal.aborted, after.signal.reason]).toEqual([true, reason]);
  });

  it('a removed listener does not run', () => {
    const lazy = new LazyAbort();
    let calls = 0;
    const listener = (): void => {
      calls++;
    };
    lazy.addEventListener('abort', listener);
    lazy.removeEventListener('abort', listener);
    lazy.abort(new Error('x'));
    expect(calls).toBe(0);
  });

  it('runs one, two or three listeners in the order added, less the removed one', () => {
    const order: string[] = [];
    const one = (): void => {
      order.push('one');
    };
    const two = { handleEvent: (): void => void order.push('two') };
    const three = (): void => {
      order.push('three');
    };
    const lazy = new LazyAbort();
    lazy.addEventListener('abort', one);
    lazy.addEventListener('abort', two);
    lazy.addEventListener('abort', three);
    lazy.removeEventListener('abort', two);
    lazy.abort(new Error('x'));
    const single = new LazyAbort();
    single.addEventListener('abort', two);
    single.abort(new Error('y'));
    expect(order).toEqual(['one', 'three', 'two']);
  });
});

describe('LazyAbort with the limiter and the shared queries, off-nominal', () => {
  it('a queued job leaves the limiter when its LazyAbort aborts, and never runs', async () => {
    const limiter = new ConcurrencyLimiter(1);
    let release!: () => void;
    const first = limiter.run(
      NEVER_ABORTED,
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    const lazy = new LazyAbort();
    let ran = false;
    const second = limiter.run(lazy, async () => {
      ran = true;
    });
    expect(limiter.queued).toBe(1);
    lazy.abort(new Error('gone'));
    expect(limiter.queued).toBe(0);
    await expect(second).rejects.toBeInstanceOf(AbortError);
    release();
    await first;
    expect(ran).toBe(false);
  });
});
