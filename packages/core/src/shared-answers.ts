/**
 * Identical questions in flight are asked once, for a backend that answers into sinks (the
 * plugin's ask()): a table of shared answers. Each caller is a sink of the shared answer; a
 * caller that may cancel leaves at once (AbortError), and the shared query is cancelled when
 * its last caller leaves. No promise is made here: a question waiting for a slot is one
 * object, the shared answer (a backend may extend it to be its queued job too).
 */
import { abortError, mayAbort, onAbort } from './abort.js';
import { LazyAbort } from './lazy-abort.js';
import type { AnswerSink } from './resolver-plugin.js';

/**
 * A shared query: its callers, its cancellation, and the one place it is settled. The backend
 * settles it (answer or fail; later calls are ignored), which takes it out of the table and
 * hands the outcome to every caller still there.
 */
export class SharedAnswer<T> extends LazyAbort implements AnswerSink<T> {
  /** Callers still there: one sink (the usual case), several, or none. */
  #sinks: AnswerSink<T> | AnswerSink<T>[] | undefined;
  #waiters = 0;
  /** The table it leaves when settled (undefined once settled), and its key there: fields, not a closure. */
  #table: Map<string, SharedAnswer<T>> | undefined;
  #key = '';
  #settled = false;

  /** True once answer() or fail() was called. */
  get settled(): boolean {
    return this.#settled;
  }

  answer(value: T): void {
    const sinks = this.#settle();
    if (Array.isArray(sinks)) tellEach(sinks, (sink) => sink.answer(value));
    else sinks?.answer(value);
  }

  fail(error: unknown): void {
    const sinks = this.#settle();
    if (Array.isArray(sinks)) tellEach(sinks, (sink) => sink.fail(error));
    else sinks?.fail(error);
  }

  /** Puts it in `table` under `key` (SharedAnswers.join()). */
  enter(table: Map<string, SharedAnswer<T>>, key: string): void {
    this.#table = table;
    this.#key = key;
    table.set(key, this);
  }

  /** Adds a caller. */
  add(sink: AnswerSink<T>): void {
    this.#waiters++;
    const sinks = this.#sinks;
    if (sinks === undefined) this.#sinks = sink;
    else if (Array.isArray(sinks)) sinks.push(sink);
    else this.#sinks = [sinks, sink];
  }

  /** Takes a caller away; the last one to leave cancels it with `reason`. */
  remove(sink: AnswerSink<T>, reason: unknown): void {
    const sinks = this.#sinks;
    if (sinks === sink) this.#sinks = undefined;
    else if (Array.isArray(sinks)) {
      const index = sinks.indexOf(sink);
      if (index < 0) return;
      sinks.splice(index, 1);
    } else return;
    if (--this.#waiters > 0) return;
    this.#leaveTable();
    this.abort(reason);
  }

  #settle(): AnswerSink<T> | AnswerSink<T>[] | undefined {
    if (this.#settled) return undefined;
    this.#settled = true;
    this.#leaveTable();
    const sinks = this.#sinks;
    this.#sinks = undefined;
    return sinks;
  }

  #leaveTable(): void {
    const table = this.#table;
    this.#table = undefined;
    if (table?.get(this.#key) === this) table.delete(this.#key);
  }
}

/**
 * Tells every caller, even after one threw: a caller's bug must not leave the callers after it
 * waiting forever. The first error is thrown once all were told, so the bug still shows.
 */
function tellEach<T>(sinks: readonly AnswerSink<T>[], tell: (sink: AnswerSink<T>) => void): void {
  let thrown: { readonly error: unknown } | undefined;
  for (const sink of sinks) {
    try {
      tell(sink);
    } catch (error) {
      thrown ??= { error };
    }
  }
  if (thrown !== undefined) throw thrown.error;
}

/** A caller that may cancel: it leaves the shared answer at once when its signal aborts. */
class LeavingSink<T> implements AnswerSink<T> {
  readonly #forget: () => void;

  constructor(
    private readonly sink: AnswerSink<T>,
    private readonly shared: SharedAnswer<T>,
    private readonly signal: AbortSignal,
  ) {
    this.#forget = onAbort(signal, () => this.#leave());
  }

  answer(value: T): void {
    this.#forget();
    this.sink.answer(value);
  }

  fail(error: unknown): void {
    this.#forget();
    this.sink.fail(error);
  }

  #leave(): void {
    this.sink.fail(abortError(this.signal));
    this.shared.remove(this, this.signal.reason);
  }
}

export class SharedAnswers<T> {
  readonly #entries = new Map<string, SharedAnswer<T>>();

  get size(): number {
    return this.#entries.size;
  }

  /** True while a shared answer for `key` is in flight. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /**
   * Adds `sink` to the shared answer for `key`, or makes one with `create()` and starts it with
   * `start(shared)`, which must settle it, also when it is aborted (a throw fails it). Returns
   * whether this call joined a query already in flight. An aborted `signal` fails the sink at once.
   */
  join<S extends SharedAnswer<T>>(
    key: string,
    signal: AbortSignal,
    sink: AnswerSink<T>,
    create: () => S,
    start: (shared: S) => void,
  ): boolean {
    if (signal.aborted) {
      sink.fail(abortError(signal));
      return false;
    }
    const found = this.#entries.get(key);
    if (found !== undefined) {
      found.add(mayAbort(signal) ? new LeavingSink(sink, found, signal) : sink);
      return true;
    }
    const shared = create();
    shared.add(mayAbort(signal) ? new LeavingSink(sink, shared, signal) : sink);
    shared.enter(this.#entries, key);
    try {
      start(shared);
    } catch (error) {
      shared.fail(error);
    }
    return false;
  }

  /** Cancels every shared query with `reason` (close()). */
  abortAll(reason: Error): void {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) entry.abort(reason);
  }
}
