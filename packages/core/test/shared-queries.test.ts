import { describe, expect, it } from 'vitest';
import { StateError } from '../src/errors.js';
import { AbortError } from '../src/errors.js';
import { SharedQueries } from '../src/shared-queries.js';

/** A shared query that settles when told to and records whether it was cancelled. */
function work() {
  const state = {
    starts: 0,
    signal: undefined as AbortSignal | undefined,
    resolve: (_v: string) => {},
    reject: (_e: Error) => {},
  };
  const start = (signal: AbortSignal): Promise<string> => {
    state.starts++;
    state.signal = signal;
    return new Promise<string>((resolve, reject) => {
      state.resolve = resolve;
      state.reject = reject;
      signal.addEventListener('abort', () => reject(new AbortError()), { once: true });
    });
  };
  return { state, start };
}

const never = new AbortController().signal;

describe('SharedQueries, nominal', () => {
  it('asks an identical question once and gives every caller the answer', async () => {
    const table = new SharedQueries<string>();
    const { state, start } = work();
    const a = table.join('q', never, start);
    const b = table.join('q', never, start);
    expect([a.joined, b.joined, state.starts, table.size]).toEqual([false, true, 1, 1]);
    state.resolve('answer');
    expect(await Promise.all([a.promise, b.promise])).toEqual(['answer', 'answer']);
    expect(table.size).toBe(0);
    const c = table.join('q', never, start);
    expect([c.joined, state.starts]).toEqual([false, 2]);
    state.resolve('again');
    expect(await c.promise).toBe('again');
  });

  it('keeps different questions apart', () => {
    const table = new SharedQueries<string>();
    const { state, start } = work();
    table.join('a', never, start);
    table.join('b', never, start);
    expect(state.starts).toBe(2);
  });
});

describe('SharedQueries, off-nominal', () => {
  it('lets a cancelled caller leave while the others keep the query', async () => {
    const table = new SharedQueries<string>();
    const { state, start } = work();
    const leaving = new AbortController();
    const a = table.join('q', leaving.signal, start);
    const b = table.join('q', never, start);
    leaving.abort();
    await expect(a.promise).rejects.toBeInstanceOf(AbortError);
    expect(state.signal!.aborted).toBe(false);
    state.resolve('kept');
    expect(await b.promise).toBe('kept');
  });

  it('cancels the shared query when the last caller leaves, and forgets it at once', async () => {
    const table = new SharedQueries<string>();
    const { state, start } = work();
    const c1 = new AbortController();
    const c2 = new AbortController();
    const a = table.join('q', c1.signal, start);
    const b = table.join('q', c2.signal, start);
    c1.abort();
    expect(state.signal!.aborted).toBe(false);
    c2.abort();
    expect(state.signal!.aborted).toBe(true);
    expect(table.size).toBe(0);
    await expect(a.promise).rejects.toBeInstanceOf(AbortError);
    await expect(b.promise).rejects.toBeInstanceOf(AbortError);
    const fresh = table.join('q', never, start);
    expect([fresh.joined, state.starts]).toEqual([false, 2]);
  });

  it('passes a failure to every caller', async () => {
    const table = new SharedQueries<string>();
    const { state, start } = work();
    const a = table.join('q', never, start);
    const b = table.join('q', never, start);
    state.reject(new Error('timeout'));
    await expect(a.promise).rejects.toThrow('timeout');
    await expect(b.promise).rejects.toThrow('timeout');
  });

  it('refuses an already aborted caller without starting anything', async () => {
    const table = new SharedQueries<string>();
    const { state, start } = work();
    await expect(table.join('q', AbortSignal.abort(), start).promise).rejects.toBeInstanceOf(AbortError);
    expect(state.starts).toBe(0);
  });

  it('abortAll cancels every shared query with the reason', () => {
    const table = new SharedQueries<string>();
    const { state, start } = work();
    const p = table.join('q', never, start).promise;
    p.catch(() => {});
    const reason = new StateError('closed');
    table.abortAll(reason);
    expect(state.signal!.reason).toBe(reason);
    expect(table.size).toBe(0);
  });
});

describe('SharedQueries, one signal shared by many callers (issue 21 item 4)', () => {
  it('holds one abort listener on the signal for 5,000 joins, none once settled', async () => {
    const { getEventListeners } = (await import('node:events')).EventEmitter;
    const table = new SharedQueries<string>();
    const { state, start } = work();
    const caller = new AbortController();
    const joins = Array.from({ length: 5_000 }, () => table.join('q', caller.signal, start).promise);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    state.resolve('answer');
    await Promise.allSettled(joins);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
