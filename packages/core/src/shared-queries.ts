/**
 * Identical questions in flight are asked once: a backend's table of shared queries. Each
 * caller waits on the shared query with its own signal: a cancelled caller leaves at once
 * (AbortError), and the shared query is cancelled when its last caller leaves, so its socket
 * and timers are released.
 */
import { abortError, mayAbort, onAbort as onAbortOf } from './abort.js';
import { LazyAbort } from './lazy-abort.js';

/** A shared query: what its callers wait on, how many they are, and its cancellation. */
interface Shared<T> {
  readonly cancel: LazyAbort;
  readonly promise: Promise<T>;
  waiters: number;
}

export class SharedQueries<T> {
  readonly #entries = new Map<string, Shared<T>>();

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Joins the query for `key`, or starts it with `start(sharedSignal)`, aborted when the last
   * caller leaves. Returns whether this call joined an existing one, and the caller's promise.
   */
  join(
    key: string,
    signal: AbortSignal,
    start: (signal: AbortSignal) => Promise<T>,
  ): { joined: boolean; promise: Promise<T> } {
    return this.joinLazy(key, signal, (shared) => start(shared.signal));
  }

  /**
   * join() for a backend that makes its AbortSignal late: `start` gets the shared cancellation
   * as a LazyAbort, which makes an AbortController only when asked for its `signal` (a query
   * that waits for a slot first holds none).
   */
  joinLazy(
    key: string,
    signal: AbortSignal,
    start: (shared: LazyAbort) => Promise<T>,
  ): { joined: boolean; promise: Promise<T> } {
    if (signal.aborted) return { joined: false, promise: Promise.reject(abortError(signal)) };
    let entry = this.#entries.get(key);
    const joined = entry !== undefined;
    if (!entry) {
      const cancel = new LazyAbort();
      const created: Shared<T> = { cancel, promise: start(cancel), waiters: 0 };
      const forget = (): void => {
        if (this.#entries.get(key) === created) this.#entries.delete(key);
      };
      created.promise.then(forget, forget);
      this.#entries.set(key, created);
      entry = created;
    }
    return { joined, promise: this.#wait(key, entry, signal) };
  }

  /** Cancels every shared query with `reason` (close()). */
  abortAll(reason: Error): void {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) entry.cancel.abort(reason);
  }

  #wait(key: string, entry: Shared<T>, signal: AbortSignal): Promise<T> {
    entry.waiters++;
    // A caller that cannot leave waits on the shared promise itself: no listener, no promise of its own.
    if (!mayAbort(signal)) return entry.promise;
    return new Promise<T>((resolve, reject) => {
      let left = false;
      const onAbort = (): void => {
        left = true;
        reject(abortError(signal));
        if (--entry.waiters === 0) {
          if (this.#entries.get(key) === entry) this.#entries.delete(key);
          entry.cancel.abort(signal.reason);
        }
      };
      const forget = onAbortOf(signal, onAbort);
      entry.promise.then(
        (value) => {
          forget();
          if (!left) resolve(value);
        },
        (error: unknown) => {
          forget();
          if (!left) reject(error);
        },
      );
    });
  }
}
