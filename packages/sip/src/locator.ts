/**
 * SipLocator: RFC 3263 server location over any DnsApi (a DnsCore with any backend).
 * One locator holds what its cursors share: the failover policy, the penalty box, transaction
 * affinity and Call-ID affinity. Options are checked once, here.
 */
import {
  InvalidArgumentError,
  checkPositiveInteger,
  defaultRandom,
  isAbortError,
  systemClock,
  systemTimers,
  type Clock,
  type DnsApi,
  type RandomSource,
  type Timers,
} from '@dnscore/core';
import { sipLocateChannel } from '@dnscore/core/diagnostics';
import { CallIdAffinity } from './call-id-affinity.js';
import { applyDnssecPolicy } from './dnssec-policy.js';
import { ResolutionContext } from './context.js';
import {
  DEFAULT_CALL_ID_PERSISTENCE_MS,
  DEFAULT_DNSSEC_POLICY,
  DEFAULT_MAX_CNAME_HOPS,
  DEFAULT_MAX_NAPTR_RECORDS,
  DEFAULT_MAX_SRV_RECORDS,
  DEFAULT_MAX_QUERIES,
  DEFAULT_MAX_RESOLUTION_MS,
  DEFAULT_MAX_RETRY_AFTER_S,
  DEFAULT_MAX_TARGETS,
  DEFAULT_MAX_UDP_REQUEST_BYTES,
  DEFAULT_NAPTR_MEMORY,
  DEFAULT_PENALTY_MS,
  DEFAULT_PREFER_IPV6,
  DEFAULT_TARGET_TIMEOUT_MS,
  DEFAULT_TRANSACTION_AFFINITY_MS,
  DEFAULT_TRANSPORTS,
} from './defaults.js';
import { NoTargetsError, SipError } from './errors.js';
import { FailoverCursor, type CursorHost, type FailoverCursorOptions } from './failover-cursor.js';
import { FailoverPolicy, type PenaltyPolicy } from './failover-policy.js';
import { Lookups } from './lookups.js';
import {
  NaptrMemory,
  checkNaptrMemoryMode,
  naptrKey,
  naptrOrder,
  type NaptrChoice,
  type NaptrMemoryMode,
  type NaptrSkip,
} from './naptr-memory.js';
import { QueryBudget } from './query-budget.js';
import { PenaltyBox } from './penalty-box.js';
import type { PenaltyStore } from './penalty-store.js';
import { runProcedure } from './procedure.js';
import type {
  ClientCapabilities,
  DnssecPolicy,
  SelectionRule,
  SipResolution,
  SipStep,
  SipTarget,
} from './resolution.js';
import { capTargets, capWarning, type CappedTargets } from './target-cap.js';
import { layOut, type TargetSegment } from './target-segments.js';
import { DEFAULT_MAX_TARGET_PLANS, TargetPlans, variantOf, type TargetPlan } from './target-plan.js';
import { TransactionAffinity } from './transaction-affinity.js';
import { isSipTransport, type SipTransport } from './transport.js';
import { parseSipUri, uriTarget, type SipUri } from './uri.js';

export interface SipLocatorOptions {
  /** Transports the client supports (default udp, tcp, tls). Only these are asked about. */
  readonly transports?: readonly SipTransport[];
  /** IPv4 on (default true): A records are asked. */
  readonly ipv4?: boolean;
  /** IPv6 on (default true): AAAA records are asked. */
  readonly ipv6?: boolean;
  /** AAAA targets before A targets of the same host (default true). */
  readonly preferIpv6?: boolean;
  /**
   * DNSSEC policy for sip: URIs (default 'off'): 'prefer' warns about targets whose NAPTR, SRV
   * or A/AAAA answers were not all secure, 'require' drops them. Every target reports its status.
   */
  readonly dnssec?: DnssecPolicy;
  /** DNSSEC policy for sips: URIs (default: the `dnssec` option). */
  readonly sipsDnssec?: DnssecPolicy;
  /** Most targets per resolution (default 32). */
  readonly maxTargets?: number;
  /** Longest CNAME chain followed from an SRV target or host (default 8). */
  readonly maxCnameHops?: number;
  /** Most usable NAPTR records of one order followed (default 16). */
  readonly maxNaptrRecords?: number;
  /** Most records of one SRV answer expanded to addresses (default 16). */
  readonly maxSrvRecords?: number;
  /** Most DNS queries one resolution makes (default 128); past it, it ends with what it found. */
  readonly maxQueries?: number;
  /** Longest one resolution may take, ms (default 60000); past it, it ends with what it found. */
  readonly maxResolutionMs?: number;
  /** Per-target timer of the failover cursor, ms (default 6000). */
  readonly targetTimeoutMs?: number;
  /** Bound on a request's whole failover, ms (default 64*T1 = 32000: Timer B/F). */
  readonly transactionTimeoutMs?: number;
  /** Final responses that move to the next target (default [503]); timeouts and transport errors always do. */
  readonly failoverOn?: Iterable<number>;
  /** Time in the penalty box by reason (see PenaltyPolicy), ms or false. */
  readonly penalty?: PenaltyPolicy;
  /** Default time in the penalty box: INVITE timeouts, transport errors, manual marks, ms (default 60000). */
  readonly penaltyMs?: number;
  /** Where penalty entries live (default: in this process). */
  readonly penaltyStore?: PenaltyStore;
  /**
   * When every target of the NAPTR a request followed failed: 'off' ends the walk there;
   * 'request' (default) goes on with the next NAPTR of the same order; 'ttl' also remembers
   * the NAPTR (when all its targets are in the penalty box) until its TTL ends, for every request.
   */
  readonly naptrMemory?: NaptrMemoryMode;
  /** Cap on Retry-After and on any penalty, seconds (default 300). */
  readonly maxRetryAfter?: number;
  /** Call-ID affinity persistence, ms (default 180000). */
  readonly callIdPersistenceMs?: number;
  /** Transaction affinity lifetime after last use, ms (default 212000). */
  readonly transactionAffinityMs?: number;
  /** Largest request sent over UDP, bytes (default 1300). */
  readonly maxUdpRequestBytes?: number;
  readonly clock?: Clock;
  /** Timers of the cursor's per-target timer (fake timers in tests). */
  readonly timers?: Timers;
  /** Random source of the RFC 2782 draw of a target plan (default: the resolver's, else Math.random). */
  readonly random?: RandomSource;
  /** Target plans kept at most, one per URI (default 10000). */
  readonly maxPlans?: number;
}

export interface SipResolveOptions {
  /** Cancels the resolution (AbortError). */
  readonly signal?: AbortSignal;
  /**
   * Write the step-through (`steps`: each query and answer, the rules, the reasons), as
   * `dnscore sip` prints it. Off by default: it costs a full walk of the procedure.
   */
  readonly stepThrough?: boolean;
  /**
   * NAPTRs whose targets all failed in this request: tried after the others of their order
   * (the failover cursor passes them; RFC 3403 section 4.1 keeps the walk in one order).
   */
  readonly failedNaptrs?: readonly NaptrSkip[];
}

const NO_STEPS: readonly SipStep[] = Object.freeze([]);
const NOT_PASSED = (_key: string): undefined => undefined;
const NO_SKIPS: readonly undefined[] = Object.freeze([]);

export class SipLocator implements CursorHost {
  readonly client: ClientCapabilities;
  /** The transaction bound, the failover set and the penalty durations by reason. */
  readonly policy: FailoverPolicy;
  readonly penaltyBox: PenaltyBox;
  /** What a request does when every target of its NAPTR failed (the naptrMemory option). */
  readonly naptrMemoryMode: NaptrMemoryMode;
  /** NAPTRs remembered as failed until their TTL ends (mode 'ttl'): list, add, remove. */
  readonly naptrMemory: NaptrMemory;
  /** Via branch -> target: retransmissions, CANCEL and non-2xx ACK go where the request went. */
  readonly transactions: TransactionAffinity;
  /** Call-ID -> destination: every request of a dialog to one server. */
  readonly dialogs: CallIdAffinity;
  readonly maxTargets: number;
  readonly maxCnameHops: number;
  readonly maxNaptrRecords: number;
  readonly maxSrvRecords: number;
  readonly maxQueries: number;
  readonly maxResolutionMs: number;
  readonly targetTimeoutMs: number;
  readonly maxUdpRequestBytes: number;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly #random: RandomSource;
  readonly #plans: TargetPlans;
  /** The NAPTR choice last handed out from a plan variant, and the skips it was made of. */
  readonly #lastPassed = new WeakMap<
    TargetPlan,
    { readonly skips: readonly (NaptrSkip | undefined)[]; readonly naptr: NaptrChoice }
  >();

  constructor(
    private readonly dns: DnsApi,
    options: SipLocatorOptions = {},
  ) {
    if (!dns || typeof dns.resolve !== 'function')
      throw new InvalidArgumentError('SipLocator needs a DnsApi (a DnsCore)');
    const transports = options.transports ?? DEFAULT_TRANSPORTS;
    if (!Array.isArray(transports) || transports.length === 0 || !transports.every(isSipTransport)) {
      throw new InvalidArgumentError(
        `transports must be a non-empty list of udp, tcp, tls (got ${JSON.stringify(transports)})`,
      );
    }
    const ipv4 = options.ipv4 ?? true;
    const ipv6 = options.ipv6 ?? true;
    if (!ipv4 && !ipv6) throw new InvalidArgumentError('IPv4 and IPv6 cannot both be off');
    this.client = Object.freeze({
      transports: new Set(transports),
      ipv4,
      ipv6,
      preferIpv6: options.preferIpv6 ?? DEFAULT_PREFER_IPV6,
      dnssec: dnssecPolicy(options.dnssec ?? DEFAULT_DNSSEC_POLICY, 'dnssec'),
      sipsDnssec: dnssecPolicy(options.sipsDnssec ?? options.dnssec ?? DEFAULT_DNSSEC_POLICY, 'sipsDnssec'),
    });
    this.maxTargets = checkPositiveInteger(options.maxTargets ?? DEFAULT_MAX_TARGETS, 'maxTargets');
    this.maxCnameHops = checkPositiveInteger(options.maxCnameHops ?? DEFAULT_MAX_CNAME_HOPS, 'maxCnameHops');
    this.maxNaptrRecords = checkPositiveInteger(
      options.maxNaptrRecords ?? DEFAULT_MAX_NAPTR_RECORDS,
      'maxNaptrRecords',
    );
    this.maxSrvRecords = checkPositiveInteger(options.maxSrvRecords ?? DEFAULT_MAX_SRV_RECORDS, 'maxSrvRecords');
    this.maxQueries = checkPositiveInteger(options.maxQueries ?? DEFAULT_MAX_QUERIES, 'maxQueries');
    this.maxResolutionMs = checkPositiveInteger(
      options.maxResolutionMs ?? DEFAULT_MAX_RESOLUTION_MS,
      'maxResolutionMs',
    );
    this.targetTimeoutMs = checkPositiveInteger(
      options.targetTimeoutMs ?? DEFAULT_TARGET_TIMEOUT_MS,
      'targetTimeoutMs',
    );
    this.maxUdpRequestBytes = checkPositiveInteger(
      options.maxUdpRequestBytes ?? DEFAULT_MAX_UDP_REQUEST_BYTES,
      'maxUdpRequestBytes',
    );
    this.clock = options.clock ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.#random = options.random ?? dns.random ?? defaultRandom;
    this.#plans = new TargetPlans(checkPositiveInteger(options.maxPlans ?? DEFAULT_MAX_TARGET_PLANS, 'maxPlans'));
    const penaltyMs = options.penaltyMs ?? DEFAULT_PENALTY_MS;
    this.penaltyBox = new PenaltyBox({
      penaltyMs,
      maxRetryAfter: options.maxRetryAfter ?? DEFAULT_MAX_RETRY_AFTER_S,
      clock: this.clock,
      ...(options.penaltyStore !== undefined ? { store: options.penaltyStore } : {}),
    });
    this.naptrMemoryMode = checkNaptrMemoryMode(options.naptrMemory ?? DEFAULT_NAPTR_MEMORY);
    this.naptrMemory = new NaptrMemory({ clock: this.clock });
    this.policy = new FailoverPolicy({
      penaltyMs,
      ...(options.transactionTimeoutMs !== undefined ? { transactionTimeoutMs: options.transactionTimeoutMs } : {}),
      ...(options.failoverOn !== undefined ? { failoverOn: options.failoverOn } : {}),
      ...(options.penalty !== undefined ? { penalty: options.penalty } : {}),
    });
    this.transactions = new TransactionAffinity({
      lifetimeMs: options.transactionAffinityMs ?? DEFAULT_TRANSACTION_AFFINITY_MS,
      clock: this.clock,
    });
    this.dialogs = new CallIdAffinity({
      persistenceMs: options.callIdPersistenceMs ?? DEFAULT_CALL_ID_PERSISTENCE_MS,
      clock: this.clock,
    });
  }

  /**
   * Resolves a URI to its ordered targets, with the warnings (and the steps, when asked).
   * Throws InvalidSipUriError for a bad URI and AbortError when cancelled; every other reason
   * for having no targets (no records, bogus DNSSEC, SIPS without TLS, ...) is
   * `resolution.error`. While the answers a resolution was built from are still what the
   * resolver's cache serves, the next one reuses its plan: a new RFC 2782 draw, nothing else.
   */
  resolve(input: string | SipUri, options: SipResolveOptions = {}): Promise<SipResolution> {
    const passed = this.#passedOver(options.failedNaptrs);
    if (options.stepThrough !== true) {
      const planned = this.#planned(input, options.signal, passed);
      if (planned !== undefined)
        return sipLocateChannel.hasSubscribers
          ? sipLocateChannel.tracePromise(async () => planned, { uri: planned.uri.text, planned: true })
          : Promise.resolve(planned);
    }
    return this.#walk(input, options, passed);
  }

  /** Why a NAPTR is passed over: it failed in this request, else it is remembered (mode 'ttl'). */
  #passedOver(failed: readonly NaptrSkip[] | undefined): (key: string) => NaptrSkip | undefined {
    if (failed !== undefined && !Array.isArray(failed))
      throw new InvalidArgumentError('failedNaptrs must be a list of NAPTRs passed over');
    const byKey = failed && failed.length > 0 ? new Map(failed.map((skip) => [naptrKey(skip), skip])) : undefined;
    const memory = this.naptrMemoryMode === 'ttl' ? this.naptrMemory : undefined;
    if (!memory) return byKey ? (key) => byKey.get(key) : NOT_PASSED;
    return byKey ? (key) => byKey.get(key) ?? memory.passedOver(key) : this.#remembered;
  }

  readonly #remembered = (key: string): NaptrSkip | undefined => this.naptrMemory.passedOver(key);

  /** A resolution from a live plan of the current NAPTR memory, or undefined. */
  #planned(
    input: string | SipUri,
    signal: AbortSignal | undefined,
    passedOver: (key: string) => NaptrSkip | undefined,
  ): SipResolution | undefined {
    const key = typeof input === 'string' ? input : input?.text;
    const variants = typeof key === 'string' ? this.#plans.variants(key) : undefined;
    if (variants === undefined || signal?.aborted) return undefined;
    const skips = passedOver === NOT_PASSED ? NO_SKIPS : variants.keys.map(passedOver);
    const variant = skips === NO_SKIPS ? '' : variantOf(variants.keys, skips);
    const plan = variants.byVariant.get(variant);
    if (plan === undefined) return undefined;
    const now = this.clock.now();
    if (now >= plan.expires || this.dns.current?.(plan.results) !== true) {
      this.#plans.delete(key!, variant);
      return undefined;
    }
    const laid = layOut(plan.segments, this.#random);
    const { targets, replaced } = this.#cap(laid);
    // The penalty box changes while a plan lives: the cap's warning says what this cap did.
    const warnings =
      laid.length > this.maxTargets
        ? Object.freeze(
            plan.warnings.map((w) =>
              w.code === 'targets-capped' ? capWarning(laid.length, this.maxTargets, replaced) : w,
            ),
          )
        : plan.warnings;
    let naptr = plan.naptr;
    if (naptr && variant !== '') {
      // Same NAPTRs passed over for the same reasons; the details and ends are today's (the
      // memory hands out the same skip until it changes, so the last choice is usually reused).
      const last = this.#lastPassed.get(plan);
      if (last && last.skips.length === skips.length && last.skips.every((skip, i) => skip === skips[i])) {
        naptr = last.naptr;
      } else {
        const chosen = variants.keys[naptr.candidates.indexOf(naptr.chosen)];
        const passed = naptrOrder(skips).flatMap((i) => (skips[i] && variants.keys[i] !== chosen ? [skips[i]!] : []));
        naptr = Object.freeze({ ...naptr, passed: Object.freeze(passed) });
        this.#lastPassed.set(plan, { skips, naptr });
      }
    }
    return Object.freeze({
      uri: plan.uri,
      target: plan.target,
      rule: plan.rule,
      transport: targets[0]?.transport,
      targets: Object.freeze(targets),
      steps: NO_STEPS,
      warnings,
      resolvedAt: now,
      expires: plan.expires,
      roundTrips: plan.roundTrips,
      queries: plan.queries,
      client: this.client,
      error: undefined,
      stale: false,
      ...(naptr ? { naptr } : {}),
    });
  }

  /** RFC 3263 section 4, question by question; a plan is made when every answer is what the cache serves. */
  async #walk(
    input: string | SipUri,
    options: SipResolveOptions,
    passed: (key: string) => NaptrSkip | undefined,
  ): Promise<SipResolution> {
    const uri = typeof input === 'string' ? parseSipUri(input) : input;
    if (sipLocateChannel.hasSubscribers)
      return sipLocateChannel.tracePromise(() => this.#resolve(uri, options, passed), { uri: uri.text });
    return this.#resolve(uri, options, passed);
  }

  async #resolve(
    uri: SipUri,
    options: SipResolveOptions,
    passed: (key: string) => NaptrSkip | undefined,
  ): Promise<SipResolution> {
    const now = this.clock.now();
    const budget = new QueryBudget(this.dns, this.maxQueries, this.maxResolutionMs, options.signal, this.timers);
    const lookups = new Lookups(budget.dns, options.signal);
    const ctx = new ResolutionContext(
      lookups,
      this.client,
      now,
      this.maxCnameHops,
      this.maxNaptrRecords,
      this.maxSrvRecords,
      options.stepThrough === true,
    );
    ctx.naptrPassed = passed;
    ctx.maxAddresses = Math.max(2 * DEFAULT_MAX_TARGETS, 2 * this.maxTargets);
    let rule: SelectionRule | undefined;
    let segments: readonly TargetSegment[] = [];
    let error: SipError | undefined;
    let naptr: NaptrChoice | undefined;
    try {
      const result = await runProcedure(ctx, uri, (r) => (rule = r));
      naptr = result.naptr;
      const found = result.segments;
      segments = applyDnssecPolicy(ctx, found, uri.scheme === 'sips' ? this.client.sipsDnssec : this.client.dnssec);
    } catch (caught) {
      if (isAbortError(caught) || !(caught instanceof SipError)) throw caught;
      error = caught;
    } finally {
      // A rule may end early (a bogus answer) while sibling questions are out: nothing of this
      // resolution stays in flight once it has returned.
      await lookups.settled();
      budget.close();
    }
    ctx.flush();
    if (budget.cut) ctx.warn('query-budget', `${budget.cut}: the targets are those found by then`);
    // In the order the core drew: the step-through shows the same order.
    const found = layOut(segments);
    for (const target of found) Object.freeze(target);
    const { targets, replaced } = this.#cap(found);
    if (found.length > this.maxTargets) {
      const { code, message } = capWarning(found.length, this.maxTargets, replaced);
      ctx.warn(code, message);
    }
    if (!error && targets.length === 0)
      error = new NoTargetsError(`no targets for ${uri.text}`, ctx.dnsErrors, ctx.servfails);
    const stale = lookups.stale;
    const resolution: SipResolution = Object.freeze({
      uri,
      target: uriTarget(uri),
      rule,
      transport: targets[0]?.transport,
      targets: Object.freeze(targets),
      steps: ctx.recording ? Object.freeze(ctx.steps) : NO_STEPS,
      warnings: Object.freeze(ctx.warnings),
      resolvedAt: now,
      expires: targets.length > 0 ? Math.min(...targets.map((t) => t.expires)) : now,
      roundTrips: lookups.rounds,
      queries: lookups.count,
      client: this.client,
      error,
      stale,
      ...(naptr && !error ? { naptr } : {}),
    });
    // An SRV answer cut to maxSrvRecords kept the records of one draw only: a plan would draw among
    // those for as long as it lives, and the others would get no request (RFC 2782 load sharing).
    const capped = ctx.warnings.some((w) => w.code === 'srv-records-capped');
    if (rule !== undefined && !error && !stale && !capped && this.dns.current) {
      const results = lookups.results();
      if (results !== undefined && this.dns.current(results)) {
        const keys = naptr?.candidates.map(naptrKey) ?? [];
        const variant = variantOf(keys, keys.map(passed));
        this.#plans.set(uri.text, variant, {
          uri,
          target: resolution.target,
          rule,
          segments,
          warnings: resolution.warnings,
          expires: resolution.expires,
          roundTrips: resolution.roundTrips,
          queries: resolution.queries,
          results,
          ...(naptr ? { naptr } : {}),
        });
      }
    }
    return resolution;
  }

  /**
   * At most maxTargets, open ones before boxed ones (target-cap.ts). `targets` is a fresh array
   * of the caller's: under the cap (a warm resolution's usual case) it is kept as it is.
   */
  #cap(targets: SipTarget[]): CappedTargets {
    if (targets.length <= this.maxTargets) return { targets, replaced: 0 };
    return capTargets(targets, this.maxTargets, (t) => this.penaltyBox.isPenalized(t));
  }

  /** Like resolve(), but rejects with the resolution's error when there is no target. */
  async locate(input: string | SipUri, options: SipResolveOptions = {}): Promise<SipResolution> {
    const resolution = await this.resolve(input, options);
    if (resolution.error) throw resolution.error;
    return resolution;
  }

  /** A failover cursor for one request to `uri` (parsed now; resolved at its first next()). */
  cursor(input: string | SipUri, options: FailoverCursorOptions = {}): FailoverCursor {
    return new FailoverCursor(this, typeof input === 'string' ? parseSipUri(input) : input, options);
  }
}

function dnssecPolicy(value: unknown, name: string): DnssecPolicy {
  if (value === 'off' || value === 'prefer' || value === 'require') return value;
  throw new InvalidArgumentError(`${name} must be 'off', 'prefer' or 'require', not ${JSON.stringify(value)}`);
}
