/**
 * A bound on work running at once: at most `limit` slots are held, the others wait in arrival
 * order. A waiter whose cancellation aborts leaves the queue at once (AbortError) and never
 * starts; a slot is held until its holder releases it, even when the holder's caller gave up (a
 * backend thread or socket stays busy until it answers). Backends bound their queries in flight
 * with it. A waiting job costs one slot of an array, and a small record only when its
 * cancellation is not the job itself (submit(): no promise chain, no closure): in a burst,
 * thousands wait.
 */
import { abortError, onAbort } from './abort.js';
import type { Abortable } from './lazy-abort.js';

/** Work for a slot: `run` is called when one is free, `fail` when the job leaves the queue instead. */
export interface LimiterJob {
  /**
   * Lets the job leave the queue while it waits: an AbortSignal or a LazyAbort. A job that is
   * its own LazyAbort (`abortable === job`) waits as itself, with no record of the limiter's.
   */
  readonly abortable?: Abortable | undefined;
  /** Starts the work; the slot is held until the returned promise settles. */
  run(): Promise<unknown>;
  /** The job never ran: it was aborted while it waited, or rejectWaiting(). */
  fail(error: Error): void;
}

/** acquire()'s job: the slot goes to the caller, who gives it back by hand. */
class SlotRequest implements LimiterJob {
  constructor(
    readonly abortable: Abortable | undefined,
    readonly grant: (release: () => void) => void,
    readonly fail: (error: Error) => void,
  ) {}

  run(): Promise<unknown> {
    throw new Error('a slot request is granted, not run');
  }
}

/**
 * A queued job whose cancellation is not the job itself. It is its own abort listener
 * (handleEvent) on a LazyAbort, so waiting costs no closure there. On an AbortSignal it joins
 * the signal's one fanned-out listener (onAbort, issue 21): many waiters on one request-scoped
 * signal must not make adding listeners O(N^2).
 */
class Waiter {
  /** Leaves the AbortSignal's fan-out; undefined for a LazyAbort. */
  forget: (() => void) | undefined;
  /** Aborted while queued: the queue skips it. */
  left = false;

  constructor(
    readonly job: LimiterJob,
    private readonly leave: (job: LimiterJob) => void,
  ) {}

  handleEvent(): void {
    this.forget = undefined;
    this.left = true;
    this.leave(this.job);
  }

  listen(): void {
    const abortable = this.job.abortable!;
    if (abortable instanceof AbortSignal) this.forget = onAbort(abortable, () => this.handleEvent());
    else abortable.addEventListener('abort', this, { once: true });
  }

  unlisten(): void {
    if (this.forget !== undefined) {
      this.forget();
      this.forget = undefined;
    } else this.job.abortable!.removeEventListener('abort', this);
  }
}

type Entry = LimiterJob | Waiter;

/** True for a job that is its own LazyAbort: it waits as itself. */
function ownAbort(job: LimiterJob): boolean {
  return (job.abortable as unknown) === job;
}

/** Entries passed at the head before the queue is compacted (and never below this). */
const COMPACT_AFTER = 1024;

export class ConcurrencyLimiter {
  #limit: number;
  #active = 0;
  #peak = 0;
  /**
   * Arrival order, from #head: a job (no cancellation, or its own) or a Waiter. An array, not a
   * Set: a waiting question costs one slot. An entry that left stays until passed or compacted.
   */
  #queue: (Entry | undefined)[] = [];
  #head = 0;
  /** Entries still waiting: not left, not started. */
  #queued = 0;
  #idle: (() => void)[] = [];
  /** The abort listener of every job that is its own LazyAbort: one object, nothing per job. */
  readonly #selfLeave = { handleEvent: (source?: unknown): void => this.#leave(source as LimiterJob) };
  readonly #waiterLeave = (job: LimiterJob): void => this.#leave(job);

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
    return this.#queued;
  }

  /** Most slots held at once so far. */
  get peak(): number {
    return this.#peak;
  }

  /** A slot; call the returned function once the work is done (extra calls are ignored). */
  acquire(abortable?: Abortable): Promise<() => void> {
    if (abortable?.aborted) return Promise.reject(abortError(abortable));
    if (this.#active < this.#limit && this.#queued === 0) return Promise.resolve(this.#take());
    return new Promise((resolve, reject) => {
      this.#enqueue(new SlotRequest(abortable, resolve, reject));
    });
  }

  /** Runs `work` when a slot is free; the slot is given back when it settles. */
  run<T>(abortable: Abortable | undefined, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.submit({
        abortable,
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
   * Starts `job` now if a slot is free, else queues it. The slot is held until the promise of
   * `job.run()` settles; a job already aborted fails at once.
   */
  submit(job: LimiterJob): void {
    if (job.abortable?.aborted) {
      job.fail(abortError(job.abortable));
      return;
    }
    if (this.#active < this.#limit && this.#queued === 0) this.#startSoon(job);
    else this.#enqueue(job);
  }

  /** Rejects every waiter with `error` (on close); slots held stay until released. */
  rejectWaiting(error: Error): void {
    const waiting: LimiterJob[] = [];
    for (let i = this.#head; i < this.#queue.length; i++) {
      const job = this.#unlisten(this.#queue[i]!);
      if (job !== undefined) waiting.push(job);
    }
    this.#queue = [];
    this.#head = 0;
    this.#queued = 0;
    for (const job of waiting) job.fail(error);
  }

  /** Resolves when no slot is held. */
  drained(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #enqueue(job: LimiterJob): void {
    const abortable = job.abortable;
    if (abortable === undefined) this.#queue.push(job);
    else if (ownAbort(job)) {
      abortable.addEventListener('abort', this.#selfLeave, { once: true });
      this.#queue.push(job);
    } else {
      const waiter = new Waiter(job, this.#waiterLeave);
      waiter.listen();
      this.#queue.push(waiter);
    }
    this.#queued++;
  }

  /** A waiting job was aborted: it fails at once; its entry is skipped when reached. */
  #leave(job: LimiterJob): void {
    this.#queued--;
    job.fail(abortError(job.abortable!));
    // Most entries left while the head stands still (every slot stuck): drop them now.
    if (this.#queue.length - this.#head > COMPACT_AFTER && this.#queued * 2 < this.#queue.length - this.#head)
      this.#compact();
  }

  /** The entry's job, no longer listening, or undefined when it left. */
  #unlisten(entry: Entry): LimiterJob | undefined {
    if (entry instanceof Waiter) {
      if (entry.left) return undefined;
      entry.unlisten();
      return entry.job;
    }
    if (ownAbort(entry)) {
      if (entry.abortable!.aborted) return undefined;
      entry.abortable!.removeEventListener('abort', this.#selfLeave);
    }
    return entry;
  }

  /** Keeps only the entries still waiting, in order. */
  #compact(): void {
    const kept: Entry[] = [];
    for (let i = this.#head; i < this.#queue.length; i++) {
      const entry = this.#queue[i]!;
      if (entry instanceof Waiter ? !entry.left : !(ownAbort(entry) && entry.abortable!.aborted)) kept.push(entry);
    }
    this.#queue = kept;
    this.#head = 0;
  }

  /**
   * Takes a slot now and starts the job once the caller's synchronous work is done (a
   * microtask): in a burst of questions asked in one go, a query's timer starts when the event
   * loop can read its answer, not before the rest of the burst has been set up.
   */
  #startSoon(job: LimiterJob): void {
    const release = this.#take();
    queueMicrotask(() => {
      if (job.abortable?.aborted) {
        release();
        job.fail(abortError(job.abortable));
        return;
      }
      this.#begin(job, release);
    });
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
    while (this.#active < this.#limit && this.#queued > 0) {
      const entry = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined;
      const job = this.#unlisten(entry);
      if (job === undefined) continue;
      this.#queued--;
      this.#begin(job, this.#take());
    }
    if (this.#queued === 0) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > COMPACT_AFTER && this.#head * 2 > this.#queue.length) this.#compact();
  }
}
