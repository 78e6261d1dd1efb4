/**
 * One try of the bridge's walk: a new client transaction to one target, and what it tells the
 * failover cursor. Its first response (or transport error) settles `first`; after a
 * provisional response, its final one settles `final()`. Responses the application must see
 * go to `deliver`; a final response of the failover set (503 by default) does not.
 */
import { performance } from 'node:perf_hooks';
import type { SipAttempt, TransactionAffinity, TryOutcome } from '@dnscore/sip';
import type { SipEndpoint, TryEvent, TryHandle, TryTarget } from './sip-endpoint.js';
import type { SipRequest, SipResponse, SipVia } from './sip-stack.js';
import type { AttemptOutcome, BridgeAttempt } from './send-report.js';

export interface TryContext {
  readonly endpoint: SipEndpoint;
  readonly transactions: TransactionAffinity;
  /** The application's request; its Via list is set to the current try's, as `sip` does (for a CANCEL). */
  readonly request: SipRequest;
  /** Via headers of earlier hops, under ours. */
  readonly upstream: readonly SipVia[];
  readonly deliver: (response: SipResponse) => void;
  /** Timer F after a provisional response to a non-INVITE, ms. */
  readonly timerFMs: number;
  /** Whether a final response moves the walk on (the cursor's failover set). */
  readonly failsOver: (status: number) => boolean;
  /** What is left of the transaction bound, ms: Timer F never runs past it. */
  readonly remainingMs: () => number;
  /** A response to a try whose timer ran out: the cursor boxes or frees its server (cursor.reportLate). */
  readonly reportLate: (attempt: SipAttempt, response: SipResponse) => void;
}

export interface FinalOutcome {
  readonly outcome: TryOutcome;
  readonly response?: SipResponse;
}

/** `late`: an INVITE whose timer ran out; its transaction lives on for a late final response. */
type Phase = 'waiting' | 'provisional' | 'chosen' | 'late' | 'dropped';

export class BridgeTry {
  readonly record: { -readonly [K in keyof BridgeAttempt]: BridgeAttempt[K] };
  /** Settles with the first response, rejects with the first transport error. */
  readonly first: Promise<TryOutcome>;
  firstResponse: SipResponse | undefined;
  /** The final response of the failover set this try got, if any: the application's answer when no target answered. */
  failoverResponse: SipResponse | undefined;
  readonly #ctx: TryContext;
  readonly #attempt: SipAttempt;
  readonly #started = performance.now();
  #phase: Phase = 'waiting';
  #handle: TryHandle | undefined;
  #timerF: ReturnType<typeof setTimeout> | undefined;
  #final: FinalOutcome | undefined;
  #onFinal: ((final: FinalOutcome) => void) | undefined;
  #resolveFirst!: (outcome: TryOutcome) => void;
  #rejectFirst!: (error: Error) => void;
  /** The first response this try heard, late ones too; null once it can hear none. */
  #heard: SipResponse | null | undefined;
  #onHeard: ((response: SipResponse | null) => void)[] = [];

  constructor(ctx: TryContext, attempt: SipAttempt, target: TryTarget, signal: AbortSignal) {
    this.#ctx = ctx;
    this.#attempt = attempt;
    this.record = {
      target: attempt.target,
      outcome: 'timeout',
      status: null,
      ms: 0,
      penalized: attempt.penalized,
      pinned: attempt.pinned,
      switched: attempt.switched,
      timeoutMs: attempt.timeoutMs,
      capped: attempt.capped,
      skipped: attempt.skipped,
      skippedNaptrs: attempt.skippedNaptrs,
    };
    this.first = new Promise<TryOutcome>((resolve, reject) => {
      this.#resolveFirst = resolve;
      this.#rejectFirst = reject;
    });
    const via: SipVia[] = [{ params: {} }, ...ctx.upstream];
    ctx.request.headers.via = via;
    try {
      this.#handle = ctx.endpoint.attempt(
        { ...ctx.request, headers: { ...ctx.request.headers, via } },
        target,
        (event) => this.#onEvent(event),
      );
      // Retransmissions ride the transaction; a CANCEL or non-2xx ACK finds the target by branch.
      if (this.#handle.branch)
        ctx.transactions.bind(this.#handle.branch, {
          ...attempt.target,
          ...(target.serverName ? { serverName: target.serverName } : {}),
        });
    } catch (error) {
      this.#phase = 'dropped';
      this.#heard = null;
      this.#rejectFirst(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    // The cursor's per-target timer ran out without any response.
    signal.addEventListener(
      'abort',
      () => {
        if (this.#phase !== 'waiting') return;
        this.#settle('timeout', null);
        if (ctx.request.method === 'INVITE') {
          // The server may still answer: its transaction ACKs a late non-2xx, and a late 2xx goes
          // to the application, whose core must ACK it (and may BYE it) (RFC 3261 13.2.2.4).
          this.#phase = 'late';
          return;
        }
        this.#phase = 'dropped';
        this.#handle?.stop();
        this.#hear(null);
      },
      { once: true },
    );
  }

  /** The Via branch of this try's client transaction ('' when it was not sent). */
  get branch(): string {
    return this.#handle?.branch ?? '';
  }

  /**
   * Calls `then` with the first response this try hears (a late one too), or null when it will
   * hear none (a transport error, or a try stopped unanswered); at once if that is known. A
   * CANCEL waits here for a provisional response (RFC 3261 section 9.1).
   */
  whenHeard(then: (response: SipResponse | null) => void): void {
    if (this.#heard !== undefined) then(this.#heard);
    else this.#onHeard.push(then);
  }

  #hear(response: SipResponse | null): void {
    if (this.#heard !== undefined) return;
    this.#heard = response;
    for (const then of this.#onHeard.splice(0)) then(response);
  }

  /** The final outcome after a provisional response. */
  final(): Promise<FinalOutcome> {
    return this.#final ? Promise.resolve(this.#final) : new Promise((resolve) => (this.#onFinal = resolve));
  }

  /** Clears Timer F (the walk is over). */
  dispose(): void {
    clearTimeout(this.#timerF);
  }

  #onEvent(event: TryEvent): void {
    if (this.#phase === 'dropped') return;
    this.#hear(event.type === 'response' ? event.response : null);
    if (this.#phase === 'late') {
      const late = event.type === 'response' ? event.response : undefined;
      if (!late) return;
      // Late, it still says how the server is: a 503 with Retry-After boxes it, any other frees it.
      // Not a 408: `sip` makes one itself when Timer B ends a silent INVITE (RFC 3261 17.1.1.2).
      if (late.status !== 408) this.#ctx.reportLate(this.#attempt, late);
      if (late.status >= 200 && late.status < 300) this.#ctx.deliver(late);
      return;
    }
    if (event.type === 'transport-error') {
      if (this.#phase === 'chosen') return;
      const first = this.#phase === 'waiting';
      this.#phase = 'dropped';
      this.dispose();
      this.#settle('transport-error', null, event.error);
      if (first) this.#rejectFirst(event.error);
      else this.#finish({ outcome: { type: 'transport-error', error: event.error } });
      return;
    }
    const response = event.response;
    const { deliver, request, failsOver } = this.#ctx;
    // 2xx retransmissions: the application ACKs each.
    if (this.#phase === 'chosen' || (this.#phase === 'provisional' && response.status < 200)) {
      deliver(response);
      return;
    }
    if (response.status >= 200) {
      const failover = failsOver(response.status);
      this.dispose();
      this.#settle(failover ? 'failover' : 'response', response.status);
      this.#phase = failover ? 'dropped' : 'chosen';
      if (failover) this.failoverResponse = response;
      if (response.status < 300 && request.method === 'INVITE') {
        // The ACK of a 2xx is a new transaction: it must not follow this branch.
        if (this.#handle?.branch) this.#ctx.transactions.release(this.#handle.branch);
      }
    }
    if (this.#phase !== 'dropped') deliver(response);
    const outcome: TryOutcome = { type: 'response', status: response.status, ...retryAfter(response) };
    if (this.firstResponse === undefined) {
      this.firstResponse = response;
      if (response.status < 200) {
        this.#phase = 'provisional';
        this.#startTimerF();
      }
      this.#resolveFirst(outcome);
    } else {
      this.#finish({ outcome, response });
    }
  }

  #finish(final: FinalOutcome): void {
    this.#final = final;
    this.#onFinal?.(final);
  }

  #settle(outcome: AttemptOutcome, status: number | null, error?: Error): void {
    Object.assign(this.record, {
      outcome,
      status,
      ms: Math.round(performance.now() - this.#started),
      ...(error ? { error } : {}),
    });
  }

  /**
   * `sip` 0.0.6 drops Timer F on a 1xx; a non-INVITE must still end (RFC 3261 section 17.1.2.2),
   * and no later than the request's transaction bound.
   */
  #startTimerF(): void {
    if (this.#ctx.request.method === 'INVITE') return; // an INVITE waits for its final response or a CANCEL
    const elapsed = performance.now() - this.#started;
    const left = Math.max(0, Math.min(this.#ctx.timerFMs - elapsed, this.#ctx.remainingMs()));
    this.#timerF = setTimeout(() => {
      if (this.#phase !== 'provisional') return;
      this.#phase = 'dropped';
      this.#settle('timeout', null);
      this.#handle?.stop();
      this.#finish({ outcome: { type: 'timeout' } });
    }, left);
  }
}

/** The Retry-After seconds of a 503 (RFC 3261 section 20.33), when it has one. */
export function retryAfter(response: SipResponse): { retryAfter?: number } {
  if (response.status !== 503) return {};
  const value = response.headers['retry-after'];
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  const match = /^\s*(\d{1,9})/.exec(text);
  return match ? { retryAfter: Number(match[1]) } : {};
}
