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

/**
 * The shared query of joinDeferred(): its cancellation, and the one place it is settled. The
 * backend settles it (resolve or reject; later calls are ignored), which also takes it out of
 * the table: the table needs no promise step of its own per query.
 */
export class DeferredQuery<T> extends LazyAbort implements Shared<T> {
  readonly promise: Promise<T>;
  waiters = 0;
  #resolve!: (value: T) => void;
  #reject!: (error: unknown) => void;
  /** The table it leaves when settled (undefined once settled), and its key there: fields, not a closure. */
  #table: Map<string, Shared<T>> | undefined;
  readonly #key: string;

  /** Made by SharedQueries.joinDeferred(). */
  constructor(table: Map<string, Shared<T>>, key: string) {
    super();
    this.#table = table;
    this.#key = key;
    this.promise = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  get cancel(): LazyAbort {
    return this;
  }

  /** True once resolve() or reject() was called. */
  get settled(): boolean {
    return this.#table === undefined;
  }

  resolve(value: T): void {
    if (this.#settle()) this.#resolve(value);
  }

  reject(error: unknown): void {
    if (this.#settle()) this.#reject(error);
  }

  #settle(): boolean {
    const table = this.#table;
    if (table === undefined) return false;
    this.#table = undefined;
    if (table.get(this.#key) === this) table.delete(this.#key);
    return true;
  }
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

  /**
   * joinLazy() for a backend that settles the shared query itself: `start` gets it (a LazyAbort
   * with resolve() and reject()) and must settle it, also when it is aborted. A question waiting
   * for a slot holds that one object, and no promise step of the table's.
   */
  joinDeferred(
    key: string,
    signal: AbortSignal,
    start: (shared: DeferredQuery<T>) => void,
  ): { joined: boolean; promise: Promise<T> } {
    if (signal.aborted) return { joined: false, promise: Promise.reject(abortError(signal)) };
    let entry = this.#entries.get(key);
    const joined = entry !== undefined;
    if (!entry) {
      const created = new DeferredQuery<T>(this.#entries, key);
      try {
        start(created);
      } catch (error) {
        created.reject(error);
      }
      // Settled already (at once, or start threw): nothing left to share.
      if (!created.settled) this.#entries.set(key, created);
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
