/**
 * A bound on work running at once: at most `limit` slots are held, the others wait in arrival
 * order. A waiter whose signal aborts leaves the queue at once (AbortError) and never starts; a
 * slot is held until its holder releases it, even when the holder's caller gave up (a backend
 * thread or socket stays busy until it answers). Backends bound their queries in flight with it.
 * A waiting job is one small record (submit(): no promise chain, no closure): in a burst,
 * thousands wait.
 */
import { abortError, onAbort } from './abort.js';
import type { Abortable } from './lazy-abort.js';

/** Work for a slot: `run` is called when one is free, `fail` when the job leaves the queue instead. */
export interface LimiterJob {
  /** Lets the job leave the queue while it waits: an AbortSignal or a LazyAbort. */
  readonly signal?: Abortable | undefined;
  /** Starts the work; the slot is held until the returned promise settles. */
  run(): Promise<unknown>;
  /** The job never ran: its signal aborted while it waited, or rejectWaiting(). */
  fail(error: Error): void;
}

/** acquire()'s job: the slot goes to the caller, who gives it back by hand. */
class SlotRequest implements LimiterJob {
  constructor(
    readonly signal: Abortable | undefined,
    readonly grant: (release: () => void) => void,
    readonly fail: (error: Error) => void,
  ) {}

  run(): Promise<unknown> {
    throw new Error('a slot request is granted, not run');
  }
}

/**
 * A queued job; it is its own abort listener (handleEvent) on a LazyAbort, so waiting costs no
 * closure there. On an AbortSignal it joins the signal's one fanned-out listener (onAbort,
 * issue 21): many waiters on one request-scoped signal must not make adding listeners O(N^2).
 */
class Waiter {
  /** Leaves the AbortSignal's fan-out; undefined for a LazyAbort or no signal. */
  forget: (() => void) | undefined;

  constructor(
    readonly job: LimiterJob,
    private readonly queue: Set<Waiter>,
  ) {}

  handleEvent(): void {
    this.forget = undefined;
    this.queue.delete(this);
    this.job.fail(abortError(this.job.signal!));
  }

  listen(): void {
    const signal = this.job.signal;
    if (signal === undefined) return;
    if (signal instanceof AbortSignal) this.forget = onAbort(signal, () => this.handleEvent());
    else signal.addEventListener('abort', this, { once: true });
  }

  unlisten(): void {
    const signal = this.job.signal;
    if (this.forget !== undefined) {
      this.forget();
      this.forget = undefined;
    } else signal?.removeEventListener('abort', this);
  }
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
  acquire(signal?: Abortable): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.#active < this.#limit && this.#queue.size === 0) return Promise.resolve(this.#take());
    return new Promise((resolve, reject) => {
      this.#enqueue(new SlotRequest(signal, resolve, reject));
    });
  }

  /** Runs `work` when a slot is free; the slot is given back when it settles. */
  run<T>(signal: Abortable | undefined, work: () => Promise<T>): Promise<T> {
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

  /**
   * Starts `job` now if a slot is free, else queues it as one record. The slot is held until
   * the promise of `job.run()` settles; a job whose signal is aborted fails at once.
   */
  submit(job: LimiterJob): void {
    if (job.signal?.aborted) {
      job.fail(abortError(job.signal));
      return;
    }
    if (this.#active < this.#limit && this.#queue.size === 0) this.#startSoon(job);
    else this.#enqueue(job);
  }

  /** Rejects every waiter with `error` (on close); slots held stay until released. */
  rejectWaiting(error: Error): void {
    const waiting = [...this.#queue];
    this.#queue.clear();
    for (const waiter of waiting) {
      waiter.unlisten();
      waiter.job.fail(error);
    }
  }

  /** Resolves when no slot is held. */
  drained(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #enqueue(job: LimiterJob): void {
    const waiter = new Waiter(job, this.#queue);
    waiter.listen();
    this.#queue.add(waiter);
  }

  /**
   * Takes a slot now and starts the job once the caller's synchronous work is done (a
   * microtask): in a burst of questions asked in one go, a query's timer starts when the event
   * loop can read its answer, not before the rest of the burst has been set up.
   */
  #startSoon(job: LimiterJob): void {
    const release = this.#take();
    queueMicrotask(() => {
      if (job.signal?.aborted) {
        release();
        job.fail(abortError(job.signal));
        return;
      }
      this.#begin(job, release);
    });
  }

  #start(job: LimiterJob): void {
    this.#begin(job, this.#take());
  }

  #begin(job: LimiterJob, release: () => void): void {
    if (job instanceof SlotRequest) {
      job.grant(release);
      return;
    }
    let running: Promise<unknown>;
    try {
      running = job.run();
    } catch (error) {
      release();
      job.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    running.then(release, release);
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
      next.unlisten();
      this.#start(next.job);
    }
  }
}
