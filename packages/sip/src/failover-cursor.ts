/**
 * The failover cursor: hands out a request's targets one by one (RFC 3263 section 4.3). The
 * caller reports each try: a final response of the failover set (503 by default) or a
 * transport error moves on at once, a try without any response moves on after its timer, any
 * other final response ends the walk. The whole walk is bound by the transaction timeout
 * (Timer B/F, 32 s): each try's timer is the per-target timer (6 s) capped by what is left of
 * it, and no try starts once it has run out. Failures go to the locator's penalty box as the
 * failover policy says, which every cursor of that locator reads: boxed targets are handed out
 * last. A Call-ID pinned by affinity is tried first when the resolution lists it. An expired
 * target list is resolved again before the next try (and kept, should that fail). When every
 * target of the NAPTR the resolution followed has failed (tried, or in the penalty box), the walk
 * goes on with the next NAPTR of the same order (NAPTR memory, naptr-memory.ts), never another
 * order or service.
 */
import { AbortError, InvalidArgumentError, StateError, optionError, type Clock, type Timers } from '@dnscore/core';
import { failoverChannel } from '@dnscore/core/diagnostics';
import { TargetsExhaustedError, TransactionTimeoutError } from './errors.js';
import type { CallIdAffinity } from './call-id-affinity.js';
import { naptrKey, type NaptrMemory, type NaptrMemoryMode, type NaptrSkip } from './naptr-memory.js';
import { checkFailoverOn, checkTransactionTimeout, type FailoverPolicy } from './failover-policy.js';
import { destinationKey, type PenaltyBox } from './penalty-box.js';
import type { PenaltyEntry } from './penalty-store.js';
import type { ClientCapabilities, SipResolution, SipTarget } from './resolution.js';
import { applySizeRule } from './size-rule.js';
import type { TryOutcome } from './try-outcome.js';
import type { SipUri } from './uri.js';

export type { TryOutcome } from './try-outcome.js';

export interface SipAttempt {
  /** Where to send this try (after the 1300-byte rule). */
  readonly target: SipTarget;
  /** The target as resolved. */
  readonly resolved: SipTarget;
  /** 0 for the first try. */
  readonly index: number;
  /** Declare a timeout after this long without any response: the per-target timer, or what the bound leaves. */
  readonly timeoutMs: number;
  /** The timer was cut short by the transaction bound (a timeout then boxes nothing). */
  readonly capped: boolean;
  /** Targets passed over for this one, being in the penalty box, with their entries (each once per walk). */
  readonly skipped: readonly PenaltyEntry[];
  /**
   * NAPTRs passed over for this one (each once per walk): every target of it failed in this
   * request, or it is remembered as failed until its TTL ends.
   */
  readonly skippedNaptrs: readonly NaptrSkip[];
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
  /** The request's Call-ID: a pinned destination the resolution lists is tried first, and a success pins it. */
  readonly callId?: string;
  /** The request's method: the penalty for a timeout differs for INVITE (default: not an INVITE). */
  readonly method?: string;
  /** This request's transaction bound, ms (default: the locator's, 32 s). */
  readonly transactionTimeoutMs?: number;
  /** This request's failover set (default: the locator's, [503]). */
  readonly failoverOn?: Iterable<number>;
  /** Size of the request in bytes, for the 1300-byte rule. */
  readonly messageSize?: number;
  /** Cancels resolution (AbortError). */
  readonly signal?: AbortSignal;
}

/** What a cursor needs from its locator. */
export interface CursorHost {
  resolve(
    uri: SipUri,
    options: { readonly signal?: AbortSignal; readonly failedNaptrs?: readonly NaptrSkip[] },
  ): Promise<SipResolution>;
  readonly penaltyBox: PenaltyBox;
  readonly naptrMemoryMode: NaptrMemoryMode;
  readonly naptrMemory: NaptrMemory;
  readonly dialogs: CallIdAffinity;
  readonly client: ClientCapabilities;
  readonly policy: FailoverPolicy;
  readonly targetTimeoutMs: number;
  readonly maxUdpRequestBytes: number;
  readonly clock: Clock;
  readonly timers: Timers;
}

/** The next target, and how it was chosen. */
interface TargetPick {
  readonly target: SipTarget;
  readonly penalized: boolean;
  readonly pinned: boolean;
  readonly skipped: readonly PenaltyEntry[];
}

/** `exhausted`: every target tried; `expired`: the transaction bound ran out; `ended`: silence after a 1xx. */
type State = 'idle' | 'trying' | 'provisional' | 'succeeded' | 'exhausted' | 'expired' | 'ended';

export class FailoverCursor {
  readonly #host: CursorHost;
  readonly #uri: SipUri;
  readonly #options: FailoverCursorOptions;
  readonly #tried = new Set<string>();
  readonly #skipped = new Set<string>();
  /** Resolving the expired list again failed: the walk goes on with the list it has. */
  #keepList = false;
  /** NAPTRs whose targets all failed in this walk, by naptrKey. */
  readonly #failedNaptrs = new Map<string, NaptrSkip>();
  /** The resolutions of the NAPTRs this walk left, in the order it left them: their boxed targets are still due. */
  readonly #leftNaptrs: SipResolution[] = [];
  readonly #skippedNaptrs = new Set<string>();
  readonly #transactionTimeoutMs: number;
  readonly #failoverOn: ReadonlySet<number> | undefined;
  #deadline: number | undefined;
  readonly #tries: { readonly attempt: SipAttempt; outcome?: TryOutcome }[] = [];
  #resolution: SipResolution | undefined;
  #resolutions = 0;
  #state: State = 'idle';
  #busy = false;
  #current: SipAttempt | undefined;
  /** The size of the request next() is picking for (the 1300-byte rule decides its destinations). */
  #size: number | undefined;

  constructor(host: CursorHost, uri: SipUri, options: FailoverCursorOptions = {}) {
    this.#host = host;
    this.#uri = uri;
    this.#options = options;
    if (options.messageSize !== undefined) checkSize(options.messageSize);
    this.#transactionTimeoutMs =
      options.transactionTimeoutMs === undefined
        ? host.policy.transactionTimeoutMs
        : checkTransactionTimeout(options.transactionTimeoutMs);
    this.#failoverOn = options.failoverOn === undefined ? undefined : checkFailoverOn(options.failoverOn);
    if (options.method !== undefined && (typeof options.method !== 'string' || options.method === ''))
      throw optionError('method', options.method, 'a non-empty string');
  }

  /**
   * Clock time (ms) when the transaction bound runs out: set by the first next(), so the
   * lookups count; undefined before.
   */
  get deadline(): number | undefined {
    return this.#deadline;
  }

  /** What is left of the transaction bound, ms (all of it before the first next()). */
  get remainingMs(): number {
    if (this.#deadline === undefined) return this.#transactionTimeoutMs;
    return Math.max(0, this.#deadline - this.#host.clock.now());
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

  /** Whether a final response moves this walk to the next target (its own failover set, else the locator's). */
  failsOver(status: number): boolean {
    return this.#failoverOn ? this.#failoverOn.has(status) : this.#host.policy.failsOver(status);
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
    this.#size = size;
    this.#deadline ??= this.#host.clock.now() + this.#transactionTimeoutMs;
    let resolution: SipResolution;
    let pick: TargetPick | undefined;
    try {
      resolution = await this.#fresh();
      pick = this.#pick(resolution);
      // Every target of this NAPTR failed: the next NAPTR of the same order, as long as one is left.
      const boxed: PenaltyEntry[] = [];
      while (this.#host.naptrMemoryMode !== 'off' && (!pick || pick.penalized)) {
        const passed = this.#boxed(resolution);
        const next = await this.#leaveNaptr(resolution);
        if (!next) break;
        boxed.push(...passed);
        resolution = next;
        pick = this.#pick(resolution);
      }
      // Every NAPTR of the order left: the targets not tried yet of all of them, in the order they were
      // followed, boxed ones last; never only those of the NAPTR left last (a NAPTR is never dropped).
      if (this.#host.naptrMemoryMode !== 'off' && (!pick || pick.penalized)) {
        const behind = this.#leftBehind(resolution);
        // The try's NAPTR is the one its target came from: an answer forgets that one.
        if (behind) [pick, resolution, this.#resolution] = [behind[0], behind[1], behind[1]];
      }
      // The boxed targets of the NAPTRs left behind were passed over too.
      if (pick && !pick.penalized && boxed.length > 0)
        pick = { ...pick, skipped: Object.freeze([...this.#once(boxed), ...pick.skipped]) };
    } finally {
      this.#busy = false;
    }
    const left = this.remainingMs;
    if (left <= 0) {
      // Timer B/F has fired: the transaction is over, whatever targets are left.
      this.#state = 'expired';
      return undefined;
    }
    if (failoverChannel.hasSubscribers)
      publishFailover(
        this.#uri,
        this.#tries,
        pick?.target,
        this.#deadline! - this.#transactionTimeoutMs,
        this.#host.clock,
      );
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
      timeoutMs: Math.min(this.#host.targetTimeoutMs, left),
      capped: left < this.#host.targetTimeoutMs,
      skipped: pick.skipped,
      skippedNaptrs: this.#naptrsOnce(resolution),
      penalized: pick.penalized,
      pinned: pick.pinned,
      switched: sized.switched,
    });
    this.#tried.add(destinationKey(pick.target)).add(destinationKey(sized.target));
    this.#tries.push({ attempt });
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
        checkResponse(outcome);
        const { status } = outcome;
        entry.outcome = outcome;
        if (status < 200) {
          // The server is alive: no failover on a timeout any more (RFC 3263 section 4.3).
          this.#state = 'provisional';
          return 'provisional';
        }
        if (this.failsOver(status)) return this.#failover(attempt, outcome);
        penaltyBox.clear(target);
        // A remembered NAPTR whose server answered is alive again.
        const naptr = this.#resolution?.naptr;
        if (naptr) this.#host.naptrMemory.forget(naptr.chosen);
        // The server as listed: a dialog's small requests go back to it over UDP after a large one went over TCP.
        if (this.#options.callId !== undefined) dialogs.learnOutgoing(this.#options.callId, attempt.resolved);
        this.#state = 'succeeded';
        return 'success';
      }
      case 'transport-error':
        entry.outcome = outcome;
        return this.#failover(attempt, outcome);
      case 'timeout':
        entry.outcome = outcome;
        if (this.#state === 'provisional') {
          this.#state = 'ended';
          return 'ended';
        }
        // A try whose timer the transaction bound cut short did not get the time any server gets: not boxed.
        return this.#failover(attempt, attempt.capped ? undefined : outcome);
      default:
        throw new InvalidArgumentError(
          `unknown outcome ${JSON.stringify(outcome)}: response, transport-error or timeout`,
        );
    }
  }

  /**
   * A response to an earlier try of this walk that arrived after its timer ran out: the server
   * was slow, not silent. The walk goes on as it was; only the penalty box learns. A response of
   * the failover set boxes the destination as the policy says (a 503 with Retry-After: RFC 3261
   * 21.5.4, "SHOULD NOT forward any other requests to that server for the duration"); any other
   * response proves the server alive and takes it out of the box, where its timeout may have put
   * it. Returns the entry made, or undefined.
   */
  reportLate(attempt: SipAttempt, outcome: TryOutcome): PenaltyEntry | undefined {
    const entry = this.#tries.find((t) => t.attempt === attempt);
    if (entry?.outcome?.type !== 'timeout')
      throw new StateError('a late response is for a try of this walk whose timer ran out');
    if (outcome?.type !== 'response') throw new InvalidArgumentError('a late outcome must be a response');
    checkResponse(outcome);
    const { penaltyBox, policy } = this.#host;
    if (outcome.status >= 200 && this.failsOver(outcome.status)) {
      const mark = policy.penaltyFor(outcome, this.#options.method, attempt.timeoutMs);
      return mark && penaltyBox.markFailed(attempt.target, mark);
    }
    penaltyBox.clear(attempt.target);
    return undefined;
  }

  /** Boxes the target as the policy says for `outcome` (nothing when undefined) and moves on. */
  #failover(attempt: SipAttempt, outcome: TryOutcome | undefined): 'failover' {
    const mark = outcome && this.#host.policy.penaltyFor(outcome, this.#options.method, attempt.timeoutMs);
    if (mark) this.#host.penaltyBox.markFailed(attempt.target, mark);
    this.#state = 'idle';
    return 'failover';
  }

  /**
   * Walks the targets with `send`, which makes one try and resolves with its first response (a
   * 1xx counts: the server is alive) or rejects for a transport error. A try without an outcome
   * within its timer is a timeout: its signal aborts and the next target is tried. Resolves
   * with the try that got a 1xx or a final response outside the failover set; rejects with
   * TransactionTimeoutError when the bound ran out, TargetsExhaustedError when no target is left.
   */
  async run(
    send: (attempt: SipAttempt, signal: AbortSignal) => Promise<TryOutcome>,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<{ readonly attempt: SipAttempt; readonly outcome: TryOutcome }> {
    for (;;) {
      const attempt = await this.next();
      if (!attempt && this.#state === 'expired') {
        throw new TransactionTimeoutError(
          `no answer from ${this.#uri.text} within the transaction bound of ${this.#transactionTimeoutMs} ms ` +
            `(${this.#tries.length} tried)`,
          this.#tries.length,
          this.#transactionTimeoutMs,
        );
      }
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

  /**
   * The current list, resolved again when expired. When that fails (a timeout, SERVFAIL, a bogus
   * or negative answer), the walk keeps the list it has for the rest of its transaction: those
   * servers are the best it knows, and asking again before each try would spend the bound on DNS.
   * A cancel still ends the walk.
   */
  async #fresh(): Promise<SipResolution> {
    const now = this.#host.clock.now();
    if (this.#resolution && (this.#keepList || now < this.#resolution.expires)) return this.#resolution;
    const resolution = await this.#resolve();
    if (resolution.error) {
      if (!this.#resolution || resolution.error instanceof AbortError) throw resolution.error;
      this.#keepList = true;
      return this.#resolution;
    }
    this.#resolution = resolution;
    return resolution;
  }

  #resolve(): Promise<SipResolution> {
    this.#resolutions++;
    return this.#host.resolve(this.#uri, {
      ...(this.#options.signal ? { signal: this.#options.signal } : {}),
      ...(this.#failedNaptrs.size > 0 ? { failedNaptrs: [...this.#failedNaptrs.values()] } : {}),
    });
  }

  /**
   * Every target of the resolution's NAPTR failed: notes it (and remembers it until its TTL
   * ends in mode 'ttl', when its targets are all in the penalty box), and resolves again so
   * the next NAPTR of the same order comes first. Undefined when there is no NAPTR, no other
   * of its order is left, or the new resolution has no targets (the walk keeps what it had).
   */
  async #leaveNaptr(resolution: SipResolution): Promise<SipResolution | undefined> {
    const naptr = resolution.naptr;
    if (!naptr) return undefined;
    const key = naptrKey(naptr.chosen);
    if (this.#failedNaptrs.has(key)) return undefined;
    this.#leftNaptrs.push(resolution);
    const { naptrMemory, naptrMemoryMode, clock } = this.#host;
    const entries = resolution.targets.map((t) => this.#entry(t));
    const detail = `every target failed: ${resolution.targets.map((t, i) => this.#failure(t, entries[i])).join(', ')}`;
    const remember = naptrMemoryMode === 'ttl' && entries.every(Boolean) && naptr.expires > clock.now();
    const until = remember ? naptrMemory.remember(naptr.chosen, naptr.expires, detail).until : undefined;
    this.#failedNaptrs.set(
      key,
      Object.freeze({ ...naptr.chosen, reason: 'failed' as const, detail, ...(until !== undefined ? { until } : {}) }),
    );
    if (naptr.candidates.every((c) => this.#failedNaptrs.has(naptrKey(c)))) return undefined;
    const next = await this.#resolve();
    if (next.error || next.targets.length === 0) return undefined;
    this.#resolution = next;
    return next;
  }

  /**
   * The first target not tried in this walk among the NAPTRs left (in the order they were left)
   * and `current`, with its resolution: one out of the penalty box first, else a boxed one.
   * Undefined when none is left.
   */
  #leftBehind(current: SipResolution): [TargetPick, SipResolution] | undefined {
    if (this.#leftNaptrs.length === 0) return undefined;
    let boxed: [TargetPick, SipResolution] | undefined;
    for (const resolution of [...this.#leftNaptrs, current]) {
      for (const target of resolution.targets) {
        if (this.#tried.has(destinationKey(target))) continue;
        if (!this.#entry(target)) return [{ target, penalized: false, pinned: false, skipped: [] }, resolution];
        boxed ??= [{ target, penalized: true, pinned: false, skipped: [] }, resolution];
      }
    }
    return boxed;
  }

  /** The penalty entries of the resolution's targets not tried in this walk. */
  #boxed(resolution: SipResolution): PenaltyEntry[] {
    return resolution.targets.flatMap((t) => {
      const entry = this.#tried.has(destinationKey(t)) ? undefined : this.#entry(t);
      return entry ? [entry] : [];
    });
  }

  /** "tls 192.0.2.1:5061 (transport error)": how one target of a NAPTR failed. */
  #failure(target: SipTarget, entry: PenaltyEntry | undefined): string {
    const key = destinationKey(target);
    const tried = this.#tries.findLast((t) => destinationKey(t.attempt.target) === key)?.outcome;
    const how = tried ? failureReason(tried) : entry ? `in the penalty box: ${entry.detail}` : 'failed';
    return (
      `${target.transport} ${target.address.includes(':') ? `[${target.address}]` : target.address}:` +
      `${target.port} (${how})`
    );
  }

  /** The NAPTRs the resolution passed over, each reported with the first try after it. */
  #naptrsOnce(resolution: SipResolution): readonly NaptrSkip[] {
    const passed = resolution.naptr?.passed ?? [];
    const fresh = passed.filter((skip) => !this.#skippedNaptrs.has(naptrKey(skip)));
    for (const skip of fresh) this.#skippedNaptrs.add(naptrKey(skip));
    return Object.freeze(fresh);
  }

  /**
   * Pinned first (when listed and not boxed), then untried targets in order, boxed ones last.
   * A pin is used only when this resolution lists it: affinity keeps a dialog on one server of
   * its next hop (the IPVS idea: the real servers of one service), never sends a request to a
   * server the next hop does not list (an IP literal, another domain, a route set through a proxy).
   */
  #pick(resolution: SipResolution): TargetPick | undefined {
    const { dialogs } = this.#host;
    const untried = resolution.targets.filter((t) => !this.#tried.has(destinationKey(t)));
    const callId = this.#options.callId;
    const pin = callId !== undefined ? dialogs.lookup(callId) : undefined;
    // Listed only, whatever the DNSSEC policy: a listed target carries the status of its answers.
    if (pin) {
      const key = destinationKey(pin);
      const listed = untried.find((t) => destinationKey(t) === key);
      if (listed && !this.#entry(listed)) return { target: listed, penalized: false, pinned: true, skipped: [] };
    }
    const skipped: PenaltyEntry[] = [];
    for (const target of untried) {
      const entry = this.#entry(target);
      if (!entry) return { target, penalized: false, pinned: false, skipped: this.#once(skipped) };
      skipped.push(entry);
    }
    const boxed = untried[0];
    return boxed ? { target: boxed, penalized: true, pinned: false, skipped: [] } : undefined;
  }

  /**
   * Where this request would reach `target`: its TCP destination when the 1300-byte rule moves
   * it off UDP. That destination is the one boxed when it fails, so it is the one read.
   */
  #sized(target: SipTarget): SipTarget {
    const size = this.#size;
    const { maxUdpRequestBytes, client } = this.#host;
    if (target.transport !== 'udp' || size === undefined || size <= maxUdpRequestBytes || !client.transports.has('tcp'))
      return target;
    return { ...target, transport: 'tcp' };
  }

  /**
   * The penalty entry of the destination this request would use for `target`; for a UDP target
   * moved to TCP, else the target's own (a 503 or a dead host over UDP says the server is out).
   */
  #entry(target: SipTarget): PenaltyEntry | undefined {
    const { penaltyBox } = this.#host;
    const sized = this.#sized(target);
    return penaltyBox.get(sized) ?? (sized === target ? undefined : penaltyBox.get(target));
  }

  /** Each skipped destination is reported with the first try that passed it over. */
  #once(entries: readonly PenaltyEntry[]): readonly PenaltyEntry[] {
    const fresh = entries.filter((e) => !this.#skipped.has(destinationKey(e)));
    for (const e of fresh) this.#skipped.add(destinationKey(e));
    return Object.freeze(fresh);
  }
}

/** A status 100..699 and a Retry-After of non-negative seconds, or InvalidArgumentError. */
function checkResponse({ status, retryAfter }: { readonly status: number; readonly retryAfter?: number }): void {
  if (!Number.isInteger(status) || status < 100 || status > 699)
    throw new InvalidArgumentError(`SIP status ${String(status)} is outside 100..699`);
  if (retryAfter !== undefined && (!Number.isFinite(retryAfter) || retryAfter < 0))
    throw new InvalidArgumentError(`Retry-After must be a non-negative number of seconds, not ${String(retryAfter)}`);
}

function checkSize(size: number): void {
  if (!Number.isInteger(size) || size < 0)
    throw new InvalidArgumentError(`a request size must be a non-negative integer, not ${String(size)}`);
}

/** Why a try failed, as the failover event says it. */
function failureReason(outcome: TryOutcome): string {
  if (outcome.type === 'response')
    return outcome.status === 503 ? '503 Service Unavailable' : `${outcome.status} response`;
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
