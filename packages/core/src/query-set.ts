/**
 * A query set (Asterisk's dns_query_set.h): several questions asked at once, settled when all
 * are done. Cancelling rejects the set with AbortError and cancels the queries still running.
 */
import { abortError, onAbort, raceAbort, throwIfAborted } from './abort.js';
import { StateError } from './errors.js';
import { makeQuery, type DnsQuery } from './query.js';
import type { QueryApi } from './dns-api.js';
import type { DnsResult } from './result.js';

export type QueryOutcome =
  | { readonly query: DnsQuery; readonly status: 'fulfilled'; readonly result: DnsResult }
  | { readonly query: DnsQuery; readonly status: 'rejected'; readonly error: Error };

export class QuerySet {
  readonly #queries: DnsQuery[] = [];
  #started = false;

  constructor(private readonly dns: QueryApi) {}

  /** Adds a question (validated now); only before resolve(). */
  add(name: string, type: number | string, options: { readonly class?: number | string } = {}): this {
    if (this.#started) throw new StateError('a query set cannot take new questions once it has started');
    this.#queries.push(makeQuery(name, type, options.class));
    return this;
  }

  get size(): number {
    return this.#queries.length;
  }

  get queries(): readonly DnsQuery[] {
    return [...this.#queries];
  }

  /**
   * Asks every question in parallel and settles when all are done, each with its result or
   * error, in the order they were added. An empty set settles at once. Runs once.
   */
  async resolve(options: { readonly signal?: AbortSignal } = {}): Promise<QueryOutcome[]> {
    if (this.#started) throw new StateError('a query set runs once');
    this.#started = true;
    const { signal } = options;
    throwIfAborted(signal);
    const running = new AbortController();
    const cancel = (): void => running.abort(signal ? abortError(signal) : undefined);
    const forget = signal ? onAbort(signal, cancel) : undefined;
    const all = Promise.all(
      this.#queries.map(
        (query): Promise<QueryOutcome> =>
          this.dns.resolveQuery(query, running.signal).then(
            (result) => ({ query, status: 'fulfilled', result }),
            (error: unknown) => ({
              query,
              status: 'rejected',
              error: error instanceof Error ? error : new Error(String(error)),
            }),
          ),
      ),
    );
    try {
      return await raceAbort(all, signal);
    } finally {
      forget?.();
    }
  }
}
