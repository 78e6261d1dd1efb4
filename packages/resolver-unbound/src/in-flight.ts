/**
 * Bounds the queries handed to libunbound at once: each holds a libuv pool thread until
 * libunbound answers, even when its caller gave up, so the others wait here instead of in
 * libuv's queue, where they would also hold up fs and crypto work. A waiting query that is
 * cancelled leaves the queue at once and never starts.
 */
import { abortError } from '@dnscore/core/plugin';

interface Waiter {
  readonly grant: (release: () => void) => void;
  readonly fail: (error: Error) => void;
}

export class InFlightLimiter {
  #limit: number;
  #active = 0;
  readonly #queue: Waiter[] = [];
  #idle: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /** Changes the bound; waiting queries start at once if it grew. */
  set limit(value: number) {
    this.#limit = value;
    this.#pump();
  }

  /** Queries holding a slot (their threads still busy, cancelled or not). */
  get active(): number {
    return this.#active;
  }

  /** Queries waiting for a slot. */
  get queued(): number {
    return this.#queue.length;
  }

  /** A slot; call the returned function once the work is done (extra calls are ignored). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.#active < this.#limit && this.#queue.length === 0) return Promise.resolve(this.#take());
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
        reject(abortError(signal!));
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** Rejects every waiting query with `error` (on close); slots in use stay until released. */
  rejectWaiting(error: Error): void {
    for (const waiter of this.#queue.splice(0)) waiter.fail(error);
  }

  /** Resolves when no slot is in use. */
  drained(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #take(): () => void {
    this.#active++;
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
    while (this.#active < this.#limit && this.#queue.length > 0) this.#queue.shift()!.grant(this.#take());
  }
}
