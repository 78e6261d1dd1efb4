/**
 * The failover policy a carrier runs: how long one request may fail over (the transaction
 * bound), which final responses move to the next target, and how long each kind of failure
 * keeps a server in the penalty box. Checked once, when the locator is made; the cursor asks
 * it what each try's outcome means.
 */
import { checkPositiveInteger, optionError } from '@dnscore/core';
import { DEFAULT_FAILOVER_ON, DEFAULT_PENALTY_MS, DEFAULT_TRANSACTION_TIMEOUT_MS } from './defaults.js';
import type { MarkOptions } from './penalty-box.js';
import type { TryOutcome } from './try-outcome.js';

/**
 * Time in the penalty box by reason: milliseconds, or false for "do not box". Each is clamped
 * to the box's cap (maxRetryAfter). Defaults are in the package README, with the reasons.
 */
export interface PenaltyPolicy {
  /** A 503 with Retry-After: box for the Retry-After (true, default) or not at all (false). */
  readonly retryAfter?: boolean;
  /** A 503 without Retry-After (default false: "as if it had received a 500"; one 503 must not ban a server). */
  readonly serviceUnavailableMs?: number | false;
  /** Another response of the failover set, such as 500 or 504 (default false: one request failed, not the server). */
  readonly failoverResponseMs?: number | false;
  /** An INVITE without any response (default 60 s: a live next hop answers 100 Trying at once). */
  readonly inviteTimeoutMs?: number | false;
  /** Any other request without any response (default false: a live hop may hold a non-INVITE without 100). */
  readonly nonInviteTimeoutMs?: number | false;
  /** Connection refused or reset, ICMP error, TLS failure (default 60 s: the host itself said no). */
  readonly transportErrorMs?: number | false;
}

export interface FailoverPolicyOptions {
  /** Bound on a request's whole failover, ms (default 64*T1 = 32 s: Timer B/F). */
  readonly transactionTimeoutMs?: number;
  /** Final responses (300..699) that move to the next target (default [503]). */
  readonly failoverOn?: Iterable<number>;
  readonly penalty?: PenaltyPolicy;
  /** The default of the durations that are on by default (inviteTimeoutMs, transportErrorMs). */
  readonly penaltyMs?: number;
}

export type ResolvedPenaltyPolicy = { readonly [K in keyof PenaltyPolicy]-?: Exclude<PenaltyPolicy[K], undefined> };

const DURATIONS = [
  'serviceUnavailableMs',
  'failoverResponseMs',
  'inviteTimeoutMs',
  'nonInviteTimeoutMs',
  'transportErrorMs',
] as const;

export class FailoverPolicy {
  readonly transactionTimeoutMs: number;
  readonly failoverOn: ReadonlySet<number>;
  readonly penalty: ResolvedPenaltyPolicy;

  constructor(options: FailoverPolicyOptions = {}) {
    this.transactionTimeoutMs = checkTransactionTimeout(options.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS);
    this.failoverOn = checkFailoverOn(options.failoverOn ?? DEFAULT_FAILOVER_ON);
    const base = options.penaltyMs ?? DEFAULT_PENALTY_MS;
    const given = options.penalty ?? {};
    if (typeof given !== 'object' || given === null) throw optionError('penalty', given, 'an object');
    const penalty: ResolvedPenaltyPolicy = {
      retryAfter: given.retryAfter ?? true,
      serviceUnavailableMs: given.serviceUnavailableMs ?? false,
      failoverResponseMs: given.failoverResponseMs ?? false,
      inviteTimeoutMs: given.inviteTimeoutMs ?? base,
      nonInviteTimeoutMs: given.nonInviteTimeoutMs ?? false,
      transportErrorMs: given.transportErrorMs ?? base,
    };
    if (typeof penalty.retryAfter !== 'boolean')
      throw optionError('penalty.retryAfter', penalty.retryAfter, 'true or false');
    for (const name of DURATIONS) {
      const value = penalty[name];
      if (value !== false && (typeof value !== 'number' || !Number.isFinite(value) || value < 0))
        throw optionError(`penalty.${name}`, value, 'a non-negative number of ms, or false');
    }
    this.penalty = Object.freeze(penalty);
  }

  /** Whether a final response moves the walk to the next target. */
  failsOver(status: number): boolean {
    return this.failoverOn.has(status);
  }

  /**
   * What the penalty box gets for a try that failed over, or undefined when this reason boxes
   * nothing. `method` tells an INVITE's timeout from another's; `timeoutMs` is the try's timer.
   */
  penaltyFor(outcome: TryOutcome, method: string | undefined, timeoutMs: number): MarkOptions | undefined {
    const p = this.penalty;
    switch (outcome.type) {
      case 'response': {
        const { status, retryAfter } = outcome;
        if (status === 503 && retryAfter !== undefined) {
          return p.retryAfter
            ? { reason: 'retry-after', retryAfter, detail: `503 Service Unavailable, Retry-After ${retryAfter} s` }
            : undefined;
        }
        if (status === 503) return mark('service-unavailable', p.serviceUnavailableMs, '503 without Retry-After');
        return mark('failover-response', p.failoverResponseMs, `${status} response`);
      }
      case 'timeout': {
        const invite = method?.toUpperCase() === 'INVITE';
        const what = `no response to ${method ? method.toUpperCase() : 'the request'} within ${timeoutMs} ms`;
        return mark('timeout', invite ? p.inviteTimeoutMs : p.nonInviteTimeoutMs, what);
      }
      case 'transport-error':
        return mark('transport-error', p.transportErrorMs, `transport error${describe(outcome.error)}`);
    }
  }
}

function mark(
  reason: NonNullable<MarkOptions['reason']>,
  durationMs: number | false,
  detail: string,
): MarkOptions | undefined {
  return durationMs === false ? undefined : { reason, durationMs, detail };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return '';
  const code = (error as { code?: unknown }).code;
  return `: ${error.message}${typeof code === 'string' && !error.message.includes(code) ? ` (${code})` : ''}`;
}

export function checkTransactionTimeout(value: number): number {
  return checkPositiveInteger(value, 'transactionTimeoutMs');
}

/**
 * A set of final response codes 300..699: a 1xx is not final and a 2xx is an answer, never a
 * failure; timeouts and transport errors always fail over, so they are not listed.
 */
export function checkFailoverOn(codes: Iterable<number>): ReadonlySet<number> {
  const expected = 'a list of final response codes 300..699';
  if (codes === null || typeof codes !== 'object' || typeof (codes as Iterable<number>)[Symbol.iterator] !== 'function')
    throw optionError('failoverOn', codes, expected);
  const set = new Set<number>();
  for (const code of codes) {
    if (!Number.isInteger(code) || code < 300 || code > 699) throw optionError('failoverOn', code, expected);
    set.add(code);
  }
  return set;
}
