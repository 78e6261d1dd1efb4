/**
 * A bound on queries in flight: at most `max` run at once, the others wait in arrival order.
 * A waiter whose signal aborts leaves the queue at once and rejects with AbortError.
 */
import { abortError, onAbort as onAbortOf } from '@dnscore/core/plugin';

interface Waiter {
  readonly start: () => void;
  readonly signal: AbortSignal;
  readonly onAbort: () => void;
}

export class Limiter {
  #running = 0;
  #peak = 0;
  /** A Set keeps arrival order and lets a cancelled waiter leave in O(1). */
  readonly #queue = new Set<Waiter>();

  constructor(readonly max: number) {}

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queue.size;
  }

  get peak(): number {
    return this.#peak;
  }

  /** Runs `work` when a slot is free; the slot is given back when it settles. */
  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    await this.#acquire(signal);
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    if (this.#running < this.max) {
      this.#take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        start: () => {
          forget();
          this.#take();
          resolve();
        },
        onAbort: () => {
          this.#queue.delete(waiter);
          reject(abortError(signal));
        },
      };
      const forget = onAbortOf(signal, waiter.onAbort);
      this.#queue.add(waiter);
    });
  }

  #take(): void {
    this.#running++;
    if (this.#running > this.#peak) this.#peak = this.#running;
  }

  #release(): void {
    this.#running--;
    const next = this.#queue.values().next();
    if (next.done) return;
    this.#queue.delete(next.value);
    next.value.start();
  }
}
