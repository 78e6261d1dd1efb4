/**
 * The DNS budget of one SIP resolution: each bound of RFC 3263 fan-out holds (NAPTR, SRV,
 * targets, CNAME hops) but not their product, so one URI could make thousands of queries over
 * minutes. Every question of a resolution goes through this wrapper: past `maxQueries` or
 * `maxResolutionMs`, new questions fail at once with QueryBudgetError (out of time, those out
 * are cancelled too), the resolution ends with what it found, and the locator warns
 * `query-budget`. A question counts once however many CNAME re-asks the core makes for it
 * (those are bounded by the core's maxCnameChain).
 */
import {
  abortError,
  isAbortError,
  onAbort,
  type DnsApi,
  type DnsResult,
  type ResolveOptions,
  type Timers,
} from '@dnscore/core';
import { QueryBudgetError } from './errors.js';

export class QueryBudget {
  readonly #controller = new AbortController();
  readonly #timer: unknown;
  readonly #forget: (() => void) | undefined;
  #asked = 0;
  #cut: string | undefined;

  constructor(
    private readonly inner: DnsApi,
    private readonly maxQueries: number,
    maxResolutionMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly timers: Timers,
  ) {
    this.dns = {
      resolve: this.#resolve as DnsApi['resolve'],
      ...(inner.current ? { current: (results: readonly DnsResult[]) => inner.current!(results) } : {}),
      ...(inner.random ? { random: inner.random } : {}),
    };
    // One listener on the caller's signal for the whole resolution (issue 21 item 4).
    this.#forget = signal ? onAbort(signal, () => this.#controller.abort(signal.reason)) : undefined;
    if (signal?.aborted) this.#controller.abort(signal.reason);
    this.#timer = timers.setTimeout(
      () => this.#stop(`the resolution took longer than ${maxResolutionMs} ms`, true),
      maxResolutionMs,
    );
  }

  /** Why the budget cut the resolution short, if it did. */
  get cut(): string | undefined {
    return this.#cut;
  }

  /** Questions asked through the budget. */
  get asked(): number {
    return this.#asked;
  }

  /**
   * What the resolution asks through: the resolver's resolve() within the budget, and its
   * current() and random as they are (target plans and their RFC 2782 draws keep working).
   */
  readonly dns: DnsApi;

  readonly #resolve = (name: string, type?: number | string, options?: ResolveOptions): Promise<DnsResult> => {
    if (this.#cut === undefined && this.#asked >= this.maxQueries) {
      this.#stop(`the resolution needed more than ${this.maxQueries} DNS queries`, false);
    }
    if (this.signal?.aborted) return Promise.reject(abortError(this.signal));
    if (this.#cut !== undefined) return Promise.reject(new QueryBudgetError(this.#cut, name));
    this.#asked++;
    const asked = this.inner.resolve(name, type, { ...options, signal: this.#controller.signal });
    return asked.catch((error: unknown) => {
      if (this.signal?.aborted) throw abortError(this.signal);
      if (isAbortError(error) && this.#cut !== undefined) throw new QueryBudgetError(this.#cut, name);
      throw error;
    });
  };

  /** Frees the timer and the caller's signal; the budget asks nothing more. */
  close(): void {
    this.timers.clearTimeout(this.#timer);
    this.#forget?.();
  }

  /** No new question from now on; out of time, those out are cancelled too. */
  #stop(reason: string, cancel: boolean): void {
    if (this.#cut !== undefined) return;
    this.#cut = reason;
    if (cancel) this.#controller.abort(new QueryBudgetError(reason, ''));
  }
}
