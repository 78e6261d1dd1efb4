/**
 * A bound on work running at once: at most `limit` slots are held, the others wait in arrival
 * order. A waiter whose signal aborts leaves the queue at once (AbortError) and never starts; a
 * slot is held until its holder releases it, even when the holder's caller gave up (a backend
 * thread or socket stays busy until it answers). Backends bound their queries in flight with it.
 */
import { abortError, onAbort as onAbortOf } from './abort.js';

interface Waiter {
  readonly grant: (release: () => void) => void;
  readonly fail: (error: Error) => void;
}

export class ConcurrencyLimiter {
  #limit: number;
  #active = 0;
  #peak = 0;
  /** A Set keeps arrival order and lets a cancelled waiter leave in O(1). */
  readonly #queue = new Set<Waiter>();
  #idle: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /** Changes the bound; waiters start at once if it grew. */
  set limit(value: number) {
    this.#limit = value;
    this.#pump();
  }

  /** Slots held. */
  get active(): number {
    return this.#active;
  }

  /** Waiters for a slot. */
  get queued(): number {
    return this.#queue.size;
  }

  /** Most slots held at once so far. */
  get peak(): number {
    return this.#peak;
  }

  /** A slot; call the returned function once the work is done (extra calls are ignored). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.#active < this.#limit && this.#queue.size === 0) return Promise.resolve(this.#take());
    return new Promise((resolve, reject) => {
      // One listener per signal however many waiters share it (issue 21): see onAbort.
      const forget = signal
        ? onAbortOf(signal, () => {
            this.#queue.delete(waiter);
            reject(abortError(signal));
          })
        : () => {};
      const waiter: Waiter = {
        grant: (release) => {
          forget();
          resolve(release);
        },
        fail: (error) => {
          forget();
          reject(error);
        },
      };
      this.#queue.add(waiter);
    });
  }

  /** Runs `work` when a slot is free; the slot is given back when it settles. */
  async run<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Rejects every waiter with `error` (on close); slots held stay until released. */
  rejectWaiting(error: Error): void {
    const waiting = [...this.#queue];
    this.#queue.clear();
    for (const waiter of waiting) waiter.fail(error);
  }

  /** Resolves when no slot is held. */
  drained(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #take(): () => void {
    this.#active++;
    if (this.#active > this.#peak) this.#peak = this.#active;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      this.#pump();
      if (this.#active === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
  }

  #pump(): void {
    while (this.#active < this.#limit && this.#queue.size > 0) {
      const next = this.#queue.values().next().value!;
      this.#queue.delete(next);
      next.grant(this.#take());
    }
  }
}
