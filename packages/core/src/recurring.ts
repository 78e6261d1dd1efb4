/**
 * A recurring query (Asterisk's dns_recurring.h): the first result at once, then a new one
 * whenever the lowest TTL runs out (plus a margin). Unlike Asterisk it never stops by itself:
 * TTL 0, NXDOMAIN, NODATA and errors are retried after a floor that backs off. stop() is
 * final, also while a query is in flight.
 */
import { onAbort } from './abort.js';
import { systemTimers, type Timers } from './clock.js';
import { InvalidArgumentError } from './errors.js';
import { checkNonNegativeNumber, checkPositiveNumber } from './option-checks.js';
import type { DnsQuery } from './query.js';
import type { QueryApi } from './dns-api.js';
import type { DnsResult } from './result.js';

export interface RecurringOptions {
  readonly class?: number | string;
  /** Called with every result, the first one as soon as it arrives. */
  readonly onResult: (result: DnsResult) => void;
  /** Called when a query obtained no answer; recurrence goes on after the backoff. */
  readonly onError?: (error: Error) => void;
  /** Aborting it is stop(). */
  readonly signal?: AbortSignal;
  /** Added to the TTL before re-asking (default 2000 ms, Asterisk's EXTRA_TTL). */
  readonly marginMs?: number;
  /** First retry after TTL 0, a negative answer or an error (default 5000 ms), doubling each time. */
  readonly floorMs?: number;
  /** Longest retry interval of the backoff (default 300000 ms). */
  readonly maxBackoffMs?: number;
  /** Longest interval between two queries, whatever the TTL (default one day). */
  readonly maxIntervalMs?: number;
  readonly timers?: Timers;
}

export const DEFAULT_RECURRING_MARGIN_MS = 2_000;
export const DEFAULT_RECURRING_FLOOR_MS = 5_000;
export const DEFAULT_RECURRING_MAX_BACKOFF_MS = 300_000;
/** Also keeps every delay below setTimeout's 2^31-1 ms limit, past which Node fires at once. */
export const DEFAULT_RECURRING_MAX_INTERVAL_MS = 86_400_000;

export class RecurringQuery {
  #stopped = false;
  #timer: unknown;
  #inFlight: AbortController | undefined;
  #forgetSignal: (() => void) | undefined;
  #failures = 0;
  #lastResult: DnsResult | undefined;
  #nextDelayMs: number | undefined;
  readonly #timers: Timers;
  readonly #margin: number;
  readonly #floor: number;
  readonly #maxBackoff: number;
  readonly #maxInterval: number;

  constructor(
    private readonly dns: QueryApi,
    readonly query: DnsQuery,
    private readonly options: RecurringOptions,
  ) {
    if (typeof options.onResult !== 'function')
      throw new InvalidArgumentError('a recurring query needs an onResult callback');
    this.#timers = options.timers ?? systemTimers;
    this.#margin = checkNonNegativeNumber(options.marginMs ?? DEFAULT_RECURRING_MARGIN_MS, 'marginMs', 'milliseconds');
    this.#floor = checkPositiveNumber(options.floorMs ?? DEFAULT_RECURRING_FLOOR_MS, 'floorMs', 'milliseconds');
    this.#maxBackoff = checkPositiveNumber(
      options.maxBackoffMs ?? DEFAULT_RECURRING_MAX_BACKOFF_MS,
      'maxBackoffMs',
      'milliseconds',
    );
    this.#maxInterval = Math.min(
      checkPositiveNumber(options.maxIntervalMs ?? DEFAULT_RECURRING_MAX_INTERVAL_MS, 'maxIntervalMs', 'milliseconds'),
      0x7fffffff,
    );
    if (options.signal?.aborted) {
      this.#stopped = true;
      return;
    }
    if (options.signal) this.#forgetSignal = onAbort(options.signal, () => this.stop());
    this.#run();
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** The latest result delivered. */
  get lastResult(): DnsResult | undefined {
    return this.#lastResult;
  }

  /** Milliseconds from the latest answer (or error) to the next query. */
  get nextDelayMs(): number | undefined {
    return this.#nextDelayMs;
  }

  /** Final: cancels the timer and the query in flight; no callback fires afterwards. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#inFlight?.abort();
    this.#inFlight = undefined;
    this.#forgetSignal?.();
  }

  #run(): void {
    this.#timer = undefined;
    const controller = new AbortController();
    this.#inFlight = controller;
    this.dns.resolveQuery(this.query, controller.signal).then(
      (result) => {
        if (this.#stopped || controller.signal.aborted) return;
        this.#inFlight = undefined;
        this.#lastResult = result;
        this.#schedule(this.#delayAfter(result));
        deliver(() => this.options.onResult(result));
      },
      (error: unknown) => {
        if (this.#stopped || controller.signal.aborted) return;
        this.#inFlight = undefined;
        this.#schedule(this.#backoff());
        const onError = this.options.onError;
        if (onError) deliver(() => onError(error instanceof Error ? error : new Error(String(error))));
      },
    );
  }

  #delayAfter(result: DnsResult): number {
    if (result.lowestTtl > 0 && !result.nxDomain && !result.bogus) {
      this.#failures = 0;
      return Math.min(result.lowestTtl * 1000 + this.#margin, this.#maxInterval);
    }
    return this.#backoff();
  }

  #backoff(): number {
    this.#failures++;
    return Math.min(this.#floor * 2 ** (this.#failures - 1), this.#maxBackoff, this.#maxInterval);
  }

  #schedule(delayMs: number): void {
    this.#nextDelayMs = delayMs;
    this.#timer = this.#timers.setTimeout(() => this.#run(), delayMs);
  }
}

/** A throwing callback must not end the recurrence; its error surfaces as an uncaught exception. */
function deliver(callback: () => void): void {
  try {
    callback();
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}
