/**
 * The libunbound backend (Asterisk's res_resolver_unbound): full recursion or stub/forward
 * resolution with DNSSEC validation, through the optional `unbound` binding. It only
 * translates: the core parses, orders, caches and falls back.
 */
import {
  ConcurrencyLimiter,
  StateError,
  raceAbort,
  throwIfAborted,
  type Availability,
  type DnsQuery,
  type PluginAnswer,
  type ResolverPlugin,
} from '@dnscore/core/plugin';
import { toPluginAnswer, toResolveError } from './answer.js';
import { loadUnboundBinding, type UnboundBinding, type UnboundContext } from './binding.js';
import { createContext } from './context.js';
import { probeDnssecSupport, type DnssecSupport } from './dnssec-support.js';
import { UnboundOptionError, UnboundUnavailableError } from './errors.js';
import { planContext, type ContextPlan, type UnboundOptions } from './options.js';

/** One probe per libunbound build: what it can validate does not change while the process runs. */
const supportOf = new WeakMap<object, Promise<DnssecSupport>>();

export class UnboundResolver implements ResolverPlugin {
  readonly name: string;
  readonly priority: number;
  readonly #binding: UnboundBinding;
  readonly #limiter: ConcurrencyLimiter;
  #options: UnboundOptions;
  #plan: ContextPlan;
  #context: UnboundContext | undefined;
  #generation = 0;
  #closed = false;

  /**
   * Applies every option to a new libunbound context and finalizes it, so a bad option throws
   * UnboundOptionError here, naming it. Without the binding, it builds nothing and
   * `available()` says why.
   */
  constructor(options: UnboundOptions = {}) {
    this.#plan = planContext(options);
    this.#options = options;
    this.name = this.#plan.name;
    this.priority = this.#plan.priority;
    this.#binding = options.binding ?? loadUnboundBinding();
    this.#limiter = new ConcurrencyLimiter(this.#plan.maxInFlight);
    if (this.#binding.available) {
      this.#context = createContext(this.#binding.Unbound, this.#plan.steps);
      this.#generation = 1;
    }
  }

  available(): Availability {
    if (this.#closed) return { available: false, reason: 'the unbound resolver is closed' };
    if (!this.#binding.available) {
      // Validation asked for (own anchors, requireSecure): no unvalidated backend may stand in.
      const anchors = (this.#options.trustAnchors?.length ?? 0) + (this.#options.trustAnchorFiles?.length ?? 0);
      const asked = this.#plan.requireSecure || anchors > 0;
      return { available: false, reason: this.#binding.reason, ...(asked ? { failClosed: true } : {}) };
    }
    return { available: true };
  }

  /** libunbound's version ("1.17.1"), when the binding loaded. */
  get version(): string | undefined {
    return this.#binding.available ? this.#binding.version : undefined;
  }

  /**
   * The DNSSEC algorithms and DS digest types this libunbound validates, found out by trying
   * each (dnssec-support.ts; about 0.1-2 s once per process). A zone signed only with
   * algorithms it lacks is insecure here (RFC 4035 section 5.2). Rejects with
   * UnboundUnavailableError without the binding.
   */
  dnssecSupport(): Promise<DnssecSupport> {
    if (!this.#binding.available) return Promise.reject(new UnboundUnavailableError(this.#binding.reason));
    const { Unbound } = this.#binding;
    let support = supportOf.get(Unbound);
    if (!support) {
      support = probeDnssecSupport(Unbound);
      supportOf.set(Unbound, support);
    }
    return support;
  }

  /** Where the trust anchors come from: "options", the root.ds file or "built-in". */
  get trustAnchorSource(): string {
    return this.#plan.anchorSource;
  }

  /** Counts configurations: 1 after construction, +1 per reload (0 without the binding). */
  get generation(): number {
    return this.#generation;
  }

  /** Queries holding a thread-pool thread now (cancelled ones included, until libunbound returns). */
  get inFlight(): number {
    return this.#limiter.active;
  }

  /** Queries waiting for one of the `maxInFlight` slots. */
  get queued(): number {
    return this.#limiter.queued;
  }

  /**
   * Swaps in a new configuration (a new libunbound context, Asterisk's reload): queries already
   * handed to libunbound finish on the old context; later ones use the new one. Without
   * arguments, the same options are applied again (files such as resolv.conf, hosts and trust
   * anchor files are read again). A bad option throws and keeps the current configuration.
   * `name`, `priority` and `binding` are fixed at construction.
   */
  reload(options: UnboundOptions = this.#options): void {
    if (this.#closed) throw new StateError('reload() after close()');
    const plan = planContext(options);
    if (plan.name !== this.name) throw new UnboundOptionError('name', 'cannot change on reload');
    if (plan.priority !== this.priority) throw new UnboundOptionError('priority', 'cannot change on reload');
    if (options.binding !== undefined && options.binding !== this.#binding) {
      throw new UnboundOptionError('binding', 'cannot change on reload');
    }
    if (this.#binding.available) {
      this.#context = createContext(this.#binding.Unbound, plan.steps);
      this.#generation++;
    }
    this.#plan = plan;
    this.#options = options;
    this.#limiter.limit = plan.maxInFlight;
  }

  /**
   * Asks libunbound. Rejects with UnboundResolveError when libunbound returns no result,
   * InsecureAnswerError for an insecure answer under `requireSecure`, and AbortError at once
   * on `signal` (the binding cannot cancel: the late result is discarded).
   */
  async resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
    throwIfAborted(signal);
    if (this.#closed) throw new StateError('resolve() after close()');
    if (!this.#binding.available) throw new UnboundUnavailableError(this.#binding.reason);
    const release = await this.#limiter.acquire(signal);
    // The context and the rules of the moment the query starts: a reload does not move it.
    const context = this.#context;
    const requireSecure = this.#plan.requireSecure;
    if (this.#closed || !context) {
      release();
      throw new StateError('resolve() after close()');
    }
    let work: Promise<PluginAnswer>;
    try {
      work = context.resolve(query.name, query.type, query.class).then(
        (raw) => toPluginAnswer(query, raw, requireSecure),
        (error: unknown) => {
          throw toResolveError(query, error);
        },
      );
    } catch (error) {
      release();
      throw toResolveError(query, error);
    }
    // The slot is given back when libunbound returns, not when the caller stops waiting.
    void work.then(release, release);
    return raceAbort(work, signal);
  }

  /** Resolves when every query handed to libunbound has returned (cancelled ones included). */
  drained(): Promise<void> {
    return this.#limiter.drained();
  }

  /**
   * Stops taking queries: waiting ones reject with StateError; those in libunbound finish
   * (nothing can stop them) and the context is freed when the last one returns.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#context = undefined;
    this.#limiter.rejectWaiting(new StateError('the unbound resolver was closed'));
  }
}
