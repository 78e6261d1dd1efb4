/**
 * What `SipBridge.send()` reports: every try (target, outcome, status, time, why it was chosen)
 * and who answered. A contract file: the bridge and each try write these, callers read them.
 */
import type { NaptrSkip, PenaltyEntry, SipTarget } from '@dnscore/sip';
import type { NextHop } from './route.js';
import type { SipResponse } from './sip-stack.js';

/** What became of one try: an answer, a final response of the failover set, silence, or a transport error. */
export type AttemptOutcome = 'response' | 'failover' | 'timeout' | 'transport-error';

export interface BridgeAttempt {
  readonly target: SipTarget;
  readonly outcome: AttemptOutcome;
  /** The status that decided the try; null for a timeout or a transport error. */
  readonly status: number | null;
  /** From sending to the outcome. */
  readonly ms: number;
  /** Handed out from the penalty box (nothing better was left). */
  readonly penalized: boolean;
  /** Chosen by Call-ID affinity. */
  readonly pinned: boolean;
  /** Moved from UDP to TCP by the 1300-byte rule. */
  readonly switched: boolean;
  /** The try's timer: the per-target timer, or what was left of the transaction bound. */
  readonly timeoutMs: number;
  /** The timer was cut short by the transaction bound. */
  readonly capped: boolean;
  /** Targets passed over for this one because they are in the penalty box (target, reason, until). */
  readonly skipped: readonly PenaltyEntry[];
  /** NAPTRs passed over for this one: every target failed in this request, or remembered until its TTL ends. */
  readonly skippedNaptrs: readonly NaptrSkip[];
  readonly error?: Error;
}

export interface SendReport {
  readonly hop: NextHop;
  readonly attempts: readonly BridgeAttempt[];
  /** The target whose final response (outside the failover set) the application got. */
  readonly answeredBy: SipTarget | null;
  /**
   * The final response handed to the callback: a real one, or one the bridge made (408 after
   * silence, 503 otherwise).
   */
  readonly response: SipResponse | null;
  /** Why no target answered: TransactionTimeoutError, TargetsExhaustedError, NoTargetsError, BogusAnswerError, ... */
  readonly error?: Error;
  /** ACK only: where it was sent. */
  readonly sentTo?: SipTarget;
}
