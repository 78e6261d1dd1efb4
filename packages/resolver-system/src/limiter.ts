/**
 * A bound on queries in flight: at most `max` run at once, the others wait in arrival order.
 * A waiter whose signal aborts leaves the queue at once and fails with AbortError. A waiting
 * job is one small record (no promise chain): in a burst, thousands wait.
 */
import { abortError } from '@dnscore/core/plugin';
import type { Abortable } from './lazy-abort.js';

/** Work for a slot: `run` is called when one is free, `fail` when the job leaves the queue instead. */
export interface LimiterJob {
  readonly signal: Abortable;
  run(): Promise<unknown>;
  fail(error: Error): void;
}

/** A queued job; it is its own abort listener (handleEvent), so waiting costs no closure. */
class Waiter {
  constructor(
    readonly job: LimiterJob,
    private readonly queue: Set<Waiter>,
  ) {}

  handleEvent(): void {
    this.queue.delete(this);
    this.job.fail(abortError(this.job.signal));
  }
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
  run<T>(signal: Abortable, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.submit({
        signal,
        run: () => {
          const running = work();
          running.then(resolve, reject);
          return running;
        },
        fail: reject,
      });
    });
  }

  /** Starts `job` now if a slot is free, else queues it. */
  submit(job: LimiterJob): void {
    if (job.signal.aborted) {
      job.fail(abortError(job.signal));
      return;
    }
    if (this.#running < this.max) {
      this.#start(job);
      return;
    }
    const waiter = new Waiter(job, this.#queue);
    job.signal.addEventListener('abort', waiter, { once: true });
    this.#queue.add(waiter);
  }

  #start(job: LimiterJob): void {
    this.#running++;
    if (this.#running > this.#peak) this.#peak = this.#running;
    let running: Promise<unknown>;
    try {
      running = job.run();
    } catch (error) {
      this.#release();
      job.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const release = (): void => this.#release();
    running.then(release, release);
  }

  #release(): void {
    this.#running--;
    const next = this.#queue.values().next();
    if (next.done) return;
    this.#queue.delete(next.value);
    next.value.job.signal.removeEventListener('abort', next.value);
    this.#start(next.value.job);
  }
}
