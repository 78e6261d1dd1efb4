/**
 * The libunbound backend (Asterisk's res_resolver_unbound): full recursion or stub/forward
 * resolution with DNSSEC validation, through the package's asynchronous libunbound addon. It
 * only translates: the core parses, orders, caches and falls back.
 */
import {
  ConcurrencyLimiter,
  StateError,
  throwIfAborted,
  type Availability,
  type DnsQuery,
  type PluginAnswer,
  type ResolverPlugin,
  type ServerAttempt,
  withServers,
} from '@dnscore/core/plugin';
import { queryChannel } from '@dnscore/core/diagnostics';
import { toPluginAnswer, toResolveError } from './answer.js';
import { loadUnboundBinding, type NativeClaim, type UnboundAddon, type UnboundBinding } from './binding.js';
import { createContext, reapplySettingsInForce } from './context.js';
import { probeDnssecSupport, type DnssecSupport } from './dnssec-support.js';
import { UnboundOptionError, UnboundUnavailableError } from './errors.js';
import { planContext, type ContextPlan, type UnboundOptions } from './options.js';
import { claimProcessWide } from './process-wide.js';
import { shardOf } from './shard.js';
import { LibunboundError, type UnboundContext } from './unbound-context.js';
import { Upstream } from './upstream.js';

/** The binding resolverOnBinding() hands to the constructor it calls. */
let injected: UnboundBinding | undefined;

/** Reads a resolver's contexts (set in the class's static block, which may read its private fields). */
let readContexts: (resolver: UnboundResolver) => readonly UnboundContext[];

/** One probe per libunbound build: what it can validate does not change while the process runs. */
const supportOf = new WeakMap<object, Promise<DnssecSupport>>();

export class UnboundResolver implements ResolverPlugin {
  readonly name: string;
  readonly priority: number;
  readonly #binding: UnboundBinding;
  readonly #limiter: ConcurrencyLimiter;
  #options: UnboundOptions;
  #plan: ContextPlan;
  /** Made at the first traced query of a configuration (it may read resolv.conf). */
  #upstream: Upstream | undefined;
  /** One libunbound context per thread (`threads`); a question goes to shardOf()'s. Empty: none. */
  #contexts: readonly UnboundContext[] = [];
  /** Contexts replaced by reload() that still answer questions asked before it. */
  readonly #retired = new Set<UnboundContext>();
  #generation = 0;
  #closed = false;
  /** The addon's claim on the process-wide settings in force (process-wide.ts); collected with the resolver. */
  #claim: NativeClaim | undefined;

  static {
    readContexts = (resolver) => resolver.#contexts;
  }

  /**
   * Applies every option to a new libunbound context and finalizes it, so a bad option throws
   * UnboundOptionError here, naming it; so does a setting libunbound keeps for the whole process
   * that differs from a live resolver's (README: "Some settings are one per process"). Without
   * the addon, it builds nothing and `available()` says why.
   */
  constructor(options: UnboundOptions = {}) {
    this.#plan = planContext(options);
    this.#options = options;
    this.name = this.#plan.name;
    this.priority = this.#plan.priority;
    this.#binding = injected ?? loadUnboundBinding();
    this.#limiter = new ConcurrencyLimiter(this.#plan.maxInFlight);
    if (this.#binding.available) {
      [this.#contexts, this.#claim] = createContexts(this.#binding.addon, this.#plan);
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

  /** libunbound's version ("1.17.1"), when the addon loaded. */
  get version(): string | undefined {
    return this.#binding.available ? this.#binding.version : undefined;
  }

  /**
   * The DNSSEC algorithms and DS digest types this libunbound validates, found out by trying
   * each (dnssec-support.ts; about 0.1-2 s once per process). A zone signed only with
   * algorithms it lacks is insecure here (RFC 4035 section 5.2). Rejects with
   * UnboundUnavailableError without the addon.
   */
  dnssecSupport(): Promise<DnssecSupport> {
    if (!this.#binding.available) return Promise.reject(new UnboundUnavailableError(this.#binding.reason));
    const { addon } = this.#binding;
    let support = supportOf.get(addon);
    if (!support) {
      support = probeDnssecSupport(addon);
      supportOf.set(addon, support);
    }
    return support;
  }

  /** Where the trust anchors come from: "options", the root.ds file or "built-in". */
  get trustAnchorSource(): string {
    return this.#plan.anchorSource;
  }

  /** Counts configurations: 1 after construction, +1 per reload (0 without the addon). */
  get generation(): number {
    return this.#generation;
  }

  /** Questions handed to libunbound and not settled yet (a cancelled one leaves at once). */
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
   * `name` and `priority` are fixed at construction; `threads` may change.
   */
  reload(options: UnboundOptions = this.#options): void {
    if (this.#closed) throw new StateError('reload() after close()');
    const plan = planContext(options);
    if (plan.name !== this.name) throw new UnboundOptionError('name', 'cannot change on reload');
    if (plan.priority !== this.priority) throw new UnboundOptionError('priority', 'cannot change on reload');
    if (this.#binding.available) {
      const old = this.#contexts;
      [this.#contexts, this.#claim] = createContexts(this.#binding.addon, plan, this.#claim);
      this.#generation++;
      for (const context of old) this.#retire(context);
    }
    this.#plan = plan;
    this.#upstream = undefined;
    this.#options = options;
    this.#limiter.limit = plan.maxInFlight;
  }

  /**
   * Asks libunbound. Rejects with UnboundResolveError when libunbound returns no result,
   * InsecureAnswerError for an insecure answer under `requireSecure`, and AbortError at once
   * on `signal` (the question is cancelled inside libunbound: ub_cancel).
   */
  async resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
    throwIfAborted(signal);
    if (this.#closed) throw new StateError('resolve() after close()');
    if (!this.#binding.available) throw new UnboundUnavailableError(this.#binding.reason);
    const release = await this.#limiter.acquire(signal);
    // The context and the rules of the moment the query starts: a reload does not move it.
    const contexts = this.#contexts;
    const context = contexts[shardOf(query.name, query.type, query.class, contexts.length)];
    const { requireSecure, cleanAdditional } = this.#plan;
    if (this.#closed || !context) {
      release();
      throw new StateError('resolve() after close()');
    }
    // For the trace, only while someone listens: what libunbound was set to ask.
    const asked = queryChannel.hasSubscribers ? this.#asked(query) : undefined;
    let work: Promise<PluginAnswer>;
    try {
      work = context.resolve(query.name, query.type, query.class, signal).then(
        (raw) => {
          let answer: PluginAnswer;
          try {
            answer = toPluginAnswer(query, raw, requireSecure, cleanAdditional);
          } catch (error) {
            // InsecureAnswerError: libunbound answered; the backend refused what it said.
            if (asked && error instanceof Error)
              withServers(error, [{ ...asked, outcome: 'answer', rcode: raw.rcode }]);
            throw error;
          }
          return asked ? { ...answer, servers: [{ ...asked, outcome: 'answer', rcode: answer.rcode }] } : answer;
        },
        (error: unknown) => {
          // AbortError and StateError pass as they are; libunbound's own errors are mapped.
          const failure = error instanceof LibunboundError ? toResolveError(query, error) : error;
          if (asked && failure instanceof Error)
            withServers(failure, [{ ...asked, outcome: 'error', error: failure.message }]);
          throw failure;
        },
      );
    } catch (error) {
      release();
      throw toResolveError(query, error);
    }
    // The slot is given back when the question settles: answered, failed, cancelled or closed.
    void work.then(release, release);
    return work;
  }

  #asked(query: DnsQuery): Pick<ServerAttempt, 'server' | 'transport'> {
    this.#upstream ??= new Upstream(this.#plan.upstream);
    return { server: this.#upstream.describe(query), transport: 'libunbound' };
  }

  /**
   * Resolves once every libunbound context of the current configuration has made its worker
   * (its outgoing sockets' table, buffers and mesh: milliseconds, on each context's own thread,
   * started at construction and reload): a question asked then waits for no setup. Questions
   * asked before it are answered all the same. Rejects with StateError when the resolver is
   * closed first; a reload meanwhile waits for the new contexts. Without the addon it resolves
   * at once (nothing to make; `available()` says why).
   */
  async ready(): Promise<void> {
    for (;;) {
      if (this.#closed) throw new StateError('ready() after close()');
      const contexts = this.#contexts;
      try {
        await Promise.all(contexts.map((context) => context.ready()));
      } catch (error) {
        if (this.#closed) throw new StateError('the unbound resolver was closed before it was ready');
        if (contexts === this.#contexts) throw error;
      }
      if (contexts === this.#contexts) return;
    }
  }

  /** Resolves when every question handed to libunbound has settled. */
  drained(): Promise<void> {
    return this.#limiter.drained();
  }

  /**
   * Stops at once: waiting questions and those in libunbound reject with StateError, and every
   * libunbound context is freed (its threads joined), so the process is free to exit.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const error = new StateError('the unbound resolver was closed');
    this.#limiter.rejectWaiting(error);
    for (const context of [...this.#contexts, ...this.#retired]) context.close(error);
    this.#retired.clear();
    this.#contexts = [];
    this.#claim?.release();
    this.#claim = undefined;
  }

  /** An old context answers the questions it has, then closes. */
  #retire(context: UnboundContext): void {
    context.retire();
    for (const old of this.#retired) if (old.closed) this.#retired.delete(old);
    if (!context.closed) this.#retired.add(context);
  }
}

/**
 * `plan.threads` finalized contexts and the claim on their process-wide settings, which must
 * agree with the other live resolvers' (process-wide.ts; `held`, the resolver's claim so far, is
 * released once the new one is made). A failure closes those made before it, releases the new
 * claim, gives the live resolvers their settings back (the failed one's were applied to the
 * process when it was finalized) and throws (the first context fails on a bad option, before
 * any other is made).
 */
function createContexts(addon: UnboundAddon, plan: ContextPlan, held?: NativeClaim): [UnboundContext[], NativeClaim] {
  // Claimed first: check and claim are one step, so another thread cannot slip in between.
  const claim = claimProcessWide(addon, plan.processWide, held);
  const contexts: UnboundContext[] = [];
  try {
    for (let i = 0; i < plan.threads; i++) contexts.push(createContext(addon, plan.steps, plan.anchorZones));
  } catch (error) {
    for (const context of contexts) context.close();
    claim.release();
    reapplySettingsInForce(addon);
    throw error;
  }
  held?.release();
  return [contexts, claim];
}

/** The resolver's libunbound contexts, in shard order: for the package's tests. Not exported by the package. */
export function contextsOf(resolver: UnboundResolver): readonly UnboundContext[] {
  return readContexts(resolver);
}

/**
 * A resolver on another build of the addon, or on none (`loadUnboundBinding(dir)`): for the
 * package's tests, which check the fallback and the build's reasons. Not exported by the
 * package: an application always uses the addon the package built.
 */
export function resolverOnBinding(binding: UnboundBinding, options: UnboundOptions = {}): UnboundResolver {
  injected = binding;
  try {
    return new UnboundResolver(options);
  } finally {
    injected = undefined;
  }
}
