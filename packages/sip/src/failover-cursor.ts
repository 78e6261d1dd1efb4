/**
 * The failover cursor: hands out a request's targets one by one (RFC 3263 section 4.3). The
 * caller reports each try: a 503 (with its Retry-After) or a transport error moves on at once,
 * a try without any response moves on after the per-target timer (default 6 s, not Timer B's
 * 32 s), any other response ends the walk. Failed destinations go to the locator's penalty box,
 * which every cursor of that locator reads: boxed targets are handed out last. A Call-ID pinned
 * by affinity is tried first. An expired target list is resolved again before the next try.
 */
import { AbortError, InvalidArgumentError, StateError, type Clock, type Timers } from '@dnscore/core';
import { failoverChannel } from '@dnscore/core/diagnostics';
import { TargetsExhaustedError } from './errors.js';
import type { CallIdAffinity } from './call-id-affinity.js';
import { normalizeDestination, destinationKey, type PenaltyBox } from './penalty-box.js';
import type { ClientCapabilities, SipResolution, SipTarget } from './resolution.js';
import { applySizeRule } from './size-rule.js';
import type { SipUri } from './uri.js';

/** The outcome of one try, as the transaction layer saw it. */
export type TryOutcome =
  /** A response; 1xx means the server is alive, 503 is a failure, any other final response ends the walk. */
  | { readonly type: 'response'; readonly status: number; readonly retryAfter?: number }
  /** ICMP error, connection refused or reset, TLS handshake failure. */
  | { readonly type: 'transport-error'; readonly error?: unknown }
  /** No response at all within the per-target timer (or Timer B/F). */
  | { readonly type: 'timeout' };

export interface SipAttempt {
  /** Where to send this try (after the 1300-byte rule). */
  readonly target: SipTarget;
  /** The target as resolved. */
  readonly resolved: SipTarget;
  /** 0 for the first try. */
  readonly index: number;
  /** Declare a timeout after this long without any response. */
  readonly timeoutMs: number;
  /** Handed out although in the penalty box: nothing better was left. */
  readonly penalized: boolean;
  /** The Call-ID's pinned destination. */
  readonly pinned: boolean;
  /** Moved from UDP to TCP by the 1300-byte rule. */
  readonly switched: boolean;
}

/** What a report means for the walk. */
export type ReportVerdict = 'success' | 'provisional' | 'failover' | 'ended';

export interface FailoverCursorOptions {
  /** The request's Call-ID: a pinned destination is tried first, and a success pins it. */
  readonly callId?: string;
  /** Size of the request in bytes, for the 1300-byte rule. */
  readonly messageSize?: number;
  /** Cancels resolution (AbortError). */
  readonly signal?: AbortSignal;
}

/** What a cursor needs from its locator. */
export interface CursorHost {
  resolve(uri: SipUri, options: { readonly signal?: AbortSignal }): Promise<SipResolution>;
  readonly penaltyBox: PenaltyBox;
  readonly dialogs: CallIdAffinity;
  readonly client: ClientCapabilities;
  readonly targetTimeoutMs: number;
  readonly maxUdpRequestBytes: number;
  readonly clock: Clock;
  readonly timers: Timers;
}

type State = 'idle' | 'trying' | 'provisional' | 'succeeded' | 'exhausted' | 'ended';

export class FailoverCursor {
  readonly #host: CursorHost;
  readonly #uri: SipUri;
  readonly #options: FailoverCursorOptions;
  readonly #tried = new Set<string>();
  readonly #tries: { readonly attempt: SipAttempt; outcome?: TryOutcome }[] = [];
  #resolution: SipResolution | undefined;
  #resolutions = 0;
  #state: State = 'idle';
  #busy = false;
  #current: SipAttempt | undefined;
  #startedAt: number | undefined;

  constructor(host: CursorHost, uri: SipUri, options: FailoverCursorOptions = {}) {
    this.#host = host;
    this.#uri = uri;
    this.#options = options;
    if (options.messageSize !== undefined) checkSize(options.messageSize);
  }

  /** The resolution the targets come from (after the first next()). */
  get resolution(): SipResolution | undefined {
    return this.#resolution;
  }

  /** How many times the URI was resolved (1, or more when the list expired during the walk). */
  get resolutions(): number {
    return this.#resolutions;
  }

  get state(): State {
    return this.#state;
  }

  /** Every try so far, with its outcome once reported. */
  get tries(): readonly { readonly attempt: SipAttempt; readonly outcome?: TryOutcome }[] {
    return this.#tries.map((t) => ({ ...t }));
  }

  /** The target that answered, once the walk succeeded. */
  get succeeded(): SipTarget | undefined {
    return this.#state === 'succeeded' ? this.#current?.target : undefined;
  }

  /**
   * The next try, or undefined when the walk is over (success, or every target tried). Rejects
   * with the resolution's error (NoTargetsError, BogusAnswerError, ...) when there is nothing to
   * try at all, and with StateError while the previous try has not been reported.
   */
  async next(options: { readonly messageSize?: number } = {}): Promise<SipAttempt | undefined> {
    if (this.#state === 'trying' || this.#state === 'provisional')
      throw new StateError('report the outcome of the current try before asking for the next');
    if (this.#busy) throw new StateError('next() is already running for this cursor');
    if (this.#state !== 'idle') return undefined;
    const size = options.messageSize ?? this.#options.messageSize;
    if (size !== undefined) checkSize(size);
    this.#busy = true;
    let resolution: SipResolution;
    try {
      resolution = await this.#fresh();
    } finally {
      this.#busy = false;
    }
    const pick = this.#pick(resolution);
    if (failoverChannel.hasSubscribers)
      publishFailover(this.#uri, this.#tries, pick?.target, this.#startedAt ?? 0, this.#host.clock);
    if (!pick) {
      this.#state = 'exhausted';
      return undefined;
    }
    const sized =
      size === undefined
        ? { target: pick.target, switched: false }
        : applySizeRule(pick.target, size, {
            maxUdpBytes: this.#host.maxUdpRequestBytes,
            transports: this.#host.client.transports,
          });
    const attempt: SipAttempt = Object.freeze({
      target: sized.target,
      resolved: pick.target,
      index: this.#tries.length,
      timeoutMs: this.#host.targetTimeoutMs,
      penalized: pick.penalized,
      pinned: pick.pinned,
      switched: sized.switched,
    });
    this.#tried.add(destinationKey(pick.target)).add(destinationKey(sized.target));
    this.#tries.push({ attempt });
    this.#startedAt ??= this.#host.clock.now();
    this.#current = attempt;
    this.#state = 'trying';
    return attempt;
  }

  /** Reports the outcome of the current try; the verdict says what the walk does next. */
  report(attempt: SipAttempt, outcome: TryOutcome): ReportVerdict {
    if (attempt !== this.#current || (this.#state !== 'trying' && this.#state !== 'provisional')) {
      throw new StateError('this try is not the current one, or it was already reported');
    }
    const entry = this.#tries[this.#tries.length - 1]!;
    const { penaltyBox, dialogs } = this.#host;
    const target = attempt.target;
    switch (outcome?.type) {
      case 'response': {
        const { status, retryAfter } = outcome;
        if (!Number.isInteger(status) || status < 100 || status > 699)
          throw new InvalidArgumentError(`SIP status ${String(status)} is outside 100..699`);
        entry.outcome = outcome;
        if (status < 200) {
          // The server is alive: no failover on a timeout any more (RFC 3263 section 4.3).
          this.#state = 'provisional';
          return 'provisional';
        }
        if (status === 503) {
          penaltyBox.markFailed(target, {
            ...(retryAfter !== undefined ? { retryAfter } : {}),
            reason: failureReason(outcome),
          });
          this.#state = 'idle';
          return 'failover';
        }
        penaltyBox.clear(target);
        if (this.#options.callId !== undefined) dialogs.learnOutgoing(this.#options.callId, target);
        this.#state = 'succeeded';
        return 'success';
      }
      case 'transport-error':
        entry.outcome = outcome;
        penaltyBox.markFailed(target, { reason: failureReason(outcome) });
        this.#state = 'idle';
        return 'failover';
      case 'timeout':
        entry.outcome = outcome;
        if (this.#state === 'provisional') {
          this.#state = 'ended';
          return 'ended';
        }
        penaltyBox.markFailed(target, { reason: failureReason(outcome) });
        this.#state = 'idle';
        return 'failover';
      default:
        throw new InvalidArgumentError(
          `unknown outcome ${JSON.stringify(outcome)}: response, transport-error or timeout`,
        );
    }
  }

  /**
   * Walks the targets with `send`, which makes one try and resolves with its first response (a
   * 1xx counts: the server is alive) or rejects for a transport error. A try without an outcome
   * within the per-target timer is a timeout: its signal aborts and the next target is tried.
   * Resolves with the try that got a response other than 503; rejects with TargetsExhaustedError.
   */
  async run(
    send: (attempt: SipAttempt, signal: AbortSignal) => Promise<TryOutcome>,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<{ readonly attempt: SipAttempt; readonly outcome: TryOutcome }> {
    for (;;) {
      const attempt = await this.next();
      if (!attempt) {
        throw new TargetsExhaustedError(
          `every target of ${this.#uri.text} failed (${this.#tries.length} tried)`,
          this.#tries.length,
        );
      }
      const outcome = await this.#try(attempt, send, options.signal);
      const verdict = this.report(attempt, outcome);
      if (verdict === 'success' || verdict === 'provisional') return { attempt, outcome };
    }
  }

  #try(
    attempt: SipAttempt,
    send: (attempt: SipAttempt, signal: AbortSignal) => Promise<TryOutcome>,
    signal?: AbortSignal,
  ): Promise<TryOutcome> {
    const { timers } = this.#host;
    const controller = new AbortController();
    return new Promise<TryOutcome>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        timers.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        settle();
      };
      const onAbort = (): void =>
        finish(() => {
          controller.abort(signal!.reason);
          reject(new AbortError('The operation was aborted', { cause: signal!.reason }));
        });
      const timer = timers.setTimeout(
        () =>
          finish(() => {
            controller.abort(new Error(`no response within ${attempt.timeoutMs} ms`));
            resolve({ type: 'timeout' });
          }),
        attempt.timeoutMs,
      );
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let sent: Promise<TryOutcome>;
      try {
        sent = Promise.resolve(send(attempt, controller.signal));
      } catch (error) {
        sent = Promise.reject(error);
      }
      sent.then(
        (outcome) => finish(() => resolve(outcome)),
        (error: unknown) => finish(() => resolve({ type: 'transport-error', error })),
      );
    });
  }

  /** The current list, resolved again when expired. */
  async #fresh(): Promise<SipResolution> {
    const now = this.#host.clock.now();
    if (this.#resolution && now < this.#resolution.expires) return this.#resolution;
    const resolution = await this.#host.resolve(
      this.#uri,
      this.#options.signal ? { signal: this.#options.signal } : {},
    );
    this.#resolutions++;
    if (resolution.error) throw resolution.error;
    this.#resolution = resolution;
    return resolution;
  }

  /** Pinned first (unless boxed), then untried targets in order, boxed ones last. */
  #pick(resolution: SipResolution): { target: SipTarget; penalized: boolean; pinned: boolean } | undefined {
    const { penaltyBox, dialogs } = this.#host;
    const untried = resolution.targets.filter((t) => !this.#tried.has(destinationKey(t)));
    const callId = this.#options.callId;
    const pin = callId !== undefined ? dialogs.lookup(callId) : undefined;
    const { client } = this.#host;
    // Under DNSSEC policy "require" only a listed (validated) destination may be pinned.
    const requireSecure = (resolution.uri.scheme === 'sips' ? client.sipsDnssec : client.dnssec) === 'require';
    if (
      pin &&
      (!requireSecure || untried.some((t) => destinationKey(t) === destinationKey(pin))) &&
      !this.#tried.has(destinationKey(pin)) &&
      !penaltyBox.isPenalized(pin) &&
      this.#host.client.transports.has(pin.transport)
    ) {
      const key = destinationKey(pin);
      const listed = untried.find((t) => destinationKey(t) === key);
      const normalized = normalizeDestination(pin);
      const family = normalized.address.includes(':') ? 6 : 4;
      const target: SipTarget = listed ?? {
        ...normalized,
        host: pin.host ?? normalized.address,
        family,
        priority: 0,
        weight: 0,
        source: 'affinity',
        expires: Number.POSITIVE_INFINITY,
        // Pinned by a Call-ID, not found through DNS now: nothing validated.
        dnssec: 'insecure',
        links: [],
      };
      return { target, penalized: false, pinned: true };
    }
    const open = untried.find((t) => !penaltyBox.isPenalized(t));
    if (open) return { target: open, penalized: false, pinned: false };
    const boxed = untried[0];
    return boxed ? { target: boxed, penalized: true, pinned: false } : undefined;
  }
}

function checkSize(size: number): void {
  if (!Number.isInteger(size) || size < 0)
    throw new InvalidArgumentError(`a request size must be a non-negative integer, not ${String(size)}`);
}

/** Why a try failed, as the penalty box and the failover event say it. */
function failureReason(outcome: TryOutcome): string {
  if (outcome.type === 'response') return `${outcome.status}${outcome.status === 503 ? ' Service Unavailable' : ''}`;
  return outcome.type === 'timeout' ? 'no response' : 'transport error';
}

/** `dnscore:sip:failover` when the last try failed: from it to `to` (undefined: none left). */
function publishFailover(
  uri: SipUri,
  tries: readonly { readonly attempt: SipAttempt; readonly outcome?: TryOutcome }[],
  to: SipTarget | undefined,
  startedAt: number,
  clock: Clock,
): void {
  const last = tries[tries.length - 1];
  if (!last?.outcome) return;
  failoverChannel.publish({
    uri: uri.text,
    from: destinationInfo(last.attempt.target),
    to: to && destinationInfo(to),
    reason: failureReason(last.outcome),
    index: last.attempt.index,
    elapsedMs: clock.now() - startedAt,
  });
}

function destinationInfo(target: SipTarget): { transport: string; address: string; port: number; host: string } {
  return { transport: target.transport, address: target.address, port: target.port, host: target.host };
}
