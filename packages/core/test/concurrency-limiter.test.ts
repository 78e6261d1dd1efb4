import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from '../src/concurrency-limiter.js';
import { AbortError, StateError } from '../src/errors.js';
import { LazyAbort } from '../src/lazy-abort.js';
import type { LimiterJob } from '../src/concurrency-limiter.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const never = new AbortController().signal;

describe('ConcurrencyLimiter.run, nominal', () => {
  it('runs at most `max` at once and starts waiters in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      limiter.run(never, async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([limiter.active, limiter.queued]).toEqual([2, 2]);
    gates[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    gates[3]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect([limiter.active, limiter.queued, limiter.peak]).toEqual([0, 0, 2]);
  });

  it('gives the slot back when the work fails', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(never, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(limiter.active).toBe(0);
    expect(await limiter.run(never, async () => 'next')).toBe('next');
  });
});

describe('ConcurrencyLimiter.run, off-nominal', () => {
  it('lets a cancelled waiter leave the queue at once, and never runs it', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const first = limiter.run(never, () => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const second = limiter.run(controller.signal, async () => {
      ran = true;
    });
    const third = limiter.run(never, async () => 'third');
    expect(limiter.queued).toBe(2);
    controller.abort();
    expect(limiter.queued).toBe(1);
    await expect(second).rejects.toBeInstanceOf(AbortError);
    gate.resolve();
    await first;
    expect(await third).toBe('third');
    expect(ran).toBe(false);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(AbortSignal.abort(), async () => 1)).rejects.toBeInstanceOf(AbortError);
    expect([limiter.active, limiter.queued]).toEqual([0, 0]);
  });
});

describe('ConcurrencyLimiter.acquire: slots held until released', () => {
  it('grants up to the limit, then queues in order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const order: string[] = [];
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const third = limiter.acquire().then((release) => {
      order.push('third');
      return release;
    });
    const fourth = limiter.acquire().then((release) => {
      order.push('fourth');
      return release;
    });
    expect([limiter.active, limiter.queued]).toEqual([2, 2]);
    first();
    first(); // a second call is ignored
    const releaseThird = await third;
    expect([order, limiter.active, limiter.queued]).toEqual([['third'], 2, 1]);
    second();
    (await fourth)();
    releaseThird();
    expect([order, limiter.active, limiter.queued]).toEqual([['third', 'fourth'], 0, 0]);
  });

  it('a waiting acquire that is aborted leaves the queue with AbortError', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort('gave up');
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.active).toBe(0);
  });

  it('an already aborted signal is refused at once', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new ConcurrencyLimiter(1).acquire(controller.signal)).rejects.toMatchObject({ code: 'ABORT_ERR' });
  });

  it('raising the limit starts waiting acquires; rejectWaiting fails them', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await limiter.acquire();
    const a = limiter.acquire();
    const b = limiter.acquire();
    limiter.limit = 2;
    await a;
    expect([limiter.active, limiter.queued, limiter.limit]).toEqual([2, 1, 2]);
    limiter.rejectWaiting(new StateError('closed'));
    await expect(b).rejects.toThrow('closed');
  });

  it('drained() resolves when the last slot is released', async () => {
    const limiter = new ConcurrencyLimiter(3);
    await limiter.drained();
    const releases = await Promise.all([limiter.acquire(), limiter.acquire()]);
    let drained = false;
    const done = limiter.drained().then(() => (drained = true));
    releases[0]!();
    await Promise.resolve();
    expect(drained).toBe(false);
    releases[1]!();
    await done;
    expect(drained).toBe(true);
  });
});

describe('ConcurrencyLimiter.submit: a job is one record', () => {
  it('a job for a free slot holds it at once and starts once the caller is done', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const ran: string[] = [];
    const job = (name: string, abortable?: AbortSignal) => ({
      abortable,
      run: () => {
        ran.push(name);
        return gate.promise;
      },
      fail: (error: Error) => ran.push(`${name} failed: ${error.name}`),
    });
    limiter.submit(job('a'));
    limiter.submit(job('b'));
    // The slot is taken (b waits), but a's query has not gone out inside this burst.
    expect([ran, limiter.active, limiter.queued]).toEqual([[], 1, 1]);
    await Promise.resolve();
    expect(ran).toEqual(['a']);
    gate.resolve();
    await limiter.drained();
    expect(ran).toEqual(['a', 'b']);
  });

  it('a job cancelled before its start never runs, fails with AbortError and gives the slot back', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const controller = new AbortController();
    const outcome: string[] = [];
    limiter.submit({
      abortable: controller.signal,
      run: async () => {
        outcome.push('ran');
      },
      fail: (error) => outcome.push(error instanceof AbortError ? 'AbortError' : error.message),
    });
    controller.abort();
    await Promise.resolve();
    expect([outcome, limiter.active]).toEqual([['AbortError'], 0]);
  });
});

describe('ConcurrencyLimiter, one signal shared by many waiters (issue 21 item 4)', () => {
  it('holds one abort listener on the signal for 5,000 waiters, none once they start', async () => {
    const { getEventListeners } = (await import('node:events')).EventEmitter;
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const caller = new AbortController();
    const first = limiter.run(caller.signal, () => gate.promise);
    const waiting = Array.from({ length: 5_000 }, (_, i) => limiter.run(caller.signal, async () => i));
    expect(limiter.queued).toBe(5_000);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    gate.resolve();
    await first;
    expect((await Promise.all(waiting)).at(-1)).toBe(4_999);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('aborting the shared signal rejects every waiter with AbortError and empties the queue', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const caller = new AbortController();
    const held = limiter.run(never, () => gate.promise);
    const waiting = Array.from({ length: 100 }, () => limiter.run(caller.signal, async () => 'ran'));
    caller.abort();
    const settled = await Promise.allSettled(waiting);
    expect(settled.every((s) => s.status === 'rejected' && s.reason instanceof AbortError)).toBe(true);
    expect(limiter.queued).toBe(0);
    gate.resolve();
    await held;
  });
});

/** A job that is its own cancellation, as the system backend's pending queries are. */
class SelfJob extends LazyAbort implements LimiterJob {
  readonly outcome: string[] = [];
  constructor(
    readonly name: string,
    private readonly gate: Promise<void>,
  ) {
    super();
  }
  get abortable(): LazyAbort {
    return this;
  }
  run(): Promise<void> {
    this.outcome.push('ran');
    return this.gate;
  }
  fail(error: Error): void {
    this.outcome.push(error.name);
  }
}

describe('ConcurrencyLimiter, jobs that are their own LazyAbort', () => {
  it('queues such a job as itself, lets it leave on abort, and runs the others in order', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const jobs = ['a', 'b', 'c', 'd'].map((name) => new SelfJob(name, gate.promise));
    for (const job of jobs) limiter.submit(job);
    expect([limiter.active, limiter.queued]).toEqual([1, 3]);
    jobs[1]!.abort(new Error('gone'));
    expect([limiter.queued, jobs[1]!.outcome]).toEqual([2, ['AbortError']]);
    // A second abort is not a second leave.
    jobs[1]!.abort(new Error('again'));
    expect(limiter.queued).toBe(2);
    gate.resolve();
    await limiter.drained();
    expect(jobs.map((job) => job.outcome)).toEqual([['ran'], ['AbortError'], ['ran'], ['ran']]);
  });

  it('a job that ran holds no listener of the limiter: aborting it later is not a leave', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const [first, second] = [new SelfJob('a', gate.promise), new SelfJob('b', gate.promise)];
    limiter.submit(first);
    limiter.submit(second);
    await Promise.resolve();
    gate.resolve();
    await limiter.drained();
    second.abort(new Error('late'));
    expect([second.outcome, limiter.queued, limiter.active]).toEqual([['ran'], 0, 0]);
  });

  it('drops the entries of thousands that left while every slot was stuck; the rest keep their order', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const gate = deferred();
    const stuck = new SelfJob('stuck', gate.promise);
    limiter.submit(stuck);
    const jobs = Array.from({ length: 5000 }, (_, i) => new SelfJob(`j${i}`, Promise.resolve()));
    for (const job of jobs) limiter.submit(job);
    for (const [i, job] of jobs.entries()) if (i % 10 !== 0) job.abort(new Error('gone'));
    expect(limiter.queued).toBe(500);
    const started: string[] = [];
    for (const job of jobs)
      job.run = () => {
        started.push(job.name);
        return Promise.resolve();
      };
    gate.resolve();
    await limiter.drained();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(started).toEqual(jobs.filter((_, i) => i % 10 === 0).map((job) => job.name));
    expect(limiter.queued).toBe(0);
  });

  it('rejectWaiting fails every job still waiting, once, and none that left', () => {
    const limiter = new ConcurrencyLimiter(1);
    const jobs = ['a', 'b', 'c'].map((name) => new SelfJob(name, new Promise(() => {})));
    for (const job of jobs) limiter.submit(job);
    jobs[1]!.abort(new Error('gone'));
    limiter.rejectWaiting(new StateError('closed'));
    jobs[2]!.abort(new Error('after close'));
    expect([jobs.map((job) => job.outcome), limiter.queued]).toEqual([[[], ['AbortError'], ['StateError']], 0]);
  });
});
