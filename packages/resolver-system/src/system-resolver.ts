/**
 * SystemResolver: a hardened stub resolver to the system's nameservers, as a dnscore plugin
 * tried last (Asterisk's res_resolver system backend, but asynchronous, concurrent,
 * cancellable, and reporting what really happened). It only translates: the core builds the
 * result from the raw answer packet it hands back.
 */
import {
  ConcurrencyLimiter,
  SharedAnswer,
  SharedAnswers,
  RRClass,
  Rcode,
  StateError,
  makeQuery,
  nameKey,
  systemClock,
  systemTimers,
  abortError,
  throwIfAborted,
  type AnswerSink,
  type Availability,
  type DnsQuery,
  type LimiterJob,
  type PluginAnswer,
  type ResolverPlugin,
  type ServerAttempt,
} from '@dnscore/core/plugin';
import { queryChannel } from '@dnscore/core/diagnostics';
import { DEFAULT_SYSTEM_NAME, DEFAULT_SYSTEM_PRIORITY } from './defaults.js';
import { HostsTable } from './hosts.js';
import { startWalk, type WalkSettings } from './nameserver-walk.js';
import type { SystemResolverConfig, SystemResolverOptions } from './options.js';
import { readOptionalFile } from './resolv-conf.js';
import { searchCandidates } from './search.js';
import { resolveSettings, type SystemResolverSettings } from './settings.js';
import { CaseEchoMemory } from './case-randomization.js';
import { emptyStats, type SystemResolverStats } from './stats.js';
import { TcpMemory } from './tcp-memory.js';
import { UdpSockets } from './udp-sockets.js';

/** An answer to a name looked up through the search list, with the question it answers. */
export interface NameAnswer {
  /** The absolute question that was answered (e.g. "sip1.biloxi.example" for "sip1"). */
  readonly query: DnsQuery;
  readonly answer: PluginAnswer;
}

export class SystemResolver implements ResolverPlugin {
  readonly name: string;
  readonly priority: number;
  /** What the resolver runs with: config, resolv.conf and defaults merged. */
  readonly settings: SystemResolverSettings;
  readonly #stats = emptyStats();
  readonly #walk: WalkSettings;
  readonly #limiter: ConcurrencyLimiter;
  /**
   * Questions in flight, one table per class and type, keyed by the name's key: for a name in
   * lower case that is the name itself, so a waiting question makes no key string.
   */
  readonly #inflight = new Map<number, SharedAnswers<PluginAnswer>>();
  readonly #hosts: HostsTable | undefined;
  /** A hosts-file answer in the query trace. */
  readonly #hostsFile: ServerAttempt;
  #rotation = 0;
  #closed = false;

  /**
   * `config` says where to ask (nameservers, search, ndots, files), `options` how. Both are
   * validated here: InvalidArgumentError (InvalidServerAddressError for an address), or
   * ConfigFileError when resolv.conf or the hosts file exists but cannot be read.
   */
  constructor(config: SystemResolverConfig = {}, options: SystemResolverOptions = {}) {
    this.settings = resolveSettings(config, options);
    this.name = options.name ?? DEFAULT_SYSTEM_NAME;
    this.priority = options.priority ?? DEFAULT_SYSTEM_PRIORITY;
    this.#limiter = new ConcurrencyLimiter(this.settings.maxInFlight);
    this.#hosts = this.settings.useHosts ? new HostsTable(readOptionalFile(this.settings.hostsFile)) : undefined;
    this.#hostsFile = {
      server: `hosts file ${this.settings.hostsFile}`,
      transport: 'file',
      outcome: 'answer',
      rcode: 0,
    };
    const s = this.settings;
    this.#walk = {
      nameservers: s.nameservers,
      attempts: s.attempts,
      timeoutMs: s.timeoutMs,
      rotate: s.rotate,
      forceTcp: s.forceTcp,
      udpPayloadSize: s.udpPayloadSize,
      trustAd: s.trustAd,
      recursionDesired: s.recursionDesired,
      dnssecRecords: s.dnssecRecords,
      timers: options.timers ?? systemTimers,
      stats: this.#stats,
      udpSockets: new UdpSockets(),
      tcpMemory: new TcpMemory(options.clock ?? systemClock, s.tcpMemoryMs, s.tcpMemorySize),
      ...(s.caseRandomization ? { caseEcho: new CaseEchoMemory(() => (options.clock ?? systemClock).now()) } : {}),
    };
  }

  available(): Availability {
    return this.#closed ? CLOSED : AVAILABLE;
  }

  /** A snapshot of the counters. */
  get stats(): Readonly<SystemResolverStats> {
    return Object.freeze({
      ...this.#stats,
      inFlight: this.#limiter.active,
      queued: this.#limiter.queued,
      peakInFlight: this.#limiter.peak,
    });
  }

  /** Hosts-file lines that were not used (when `useHosts` is on). */
  get hostsSkipped(): readonly string[] {
    return this.#hosts?.skipped ?? [];
  }

  /**
   * Answers one question, taken as an absolute name (the core's names carry no "relative"
   * mark, and the core checks that the answer's question is the query's; see resolveName()
   * for the search list). NXDOMAIN, NODATA, SERVFAIL and REFUSED are answers; TimeoutError,
   * NetworkError or MalformedAnswerError when no nameserver gave one.
   */
  resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
    return new Promise((answer, fail) => this.ask(query, signal, { answer, fail }));
  }

  /** resolve() into a sink (the core's way): a question waiting for a slot holds one record. */
  ask(query: DnsQuery, signal: AbortSignal, sink: AnswerSink): void {
    this.#stats.queries++;
    this.#ask(query, signal, sink);
  }

  /**
   * Looks up a name as a user typed it, through the search list and ndots (resolv.conf(5)).
   * Returns the first answer with data (NOERROR and a non-empty answer section) and the
   * question it answers; when none has data, the first NODATA, else the first SERVFAIL /
   * REFUSED, else the NXDOMAIN of the name as typed. A failure (timeout, ...) ends the search.
   * Build the result with the returned query: `buildResult(found.query, found.answer)`.
   */
  async resolveName(
    name: string,
    type: number | string = 'A',
    options: { class?: number | string; signal?: AbortSignal } = {},
  ): Promise<NameAnswer> {
    const signal = options.signal ?? new AbortController().signal;
    throwIfAborted(signal);
    this.#stats.queries++;
    const candidates = searchCandidates(name, this.settings.search, this.settings.ndots);
    const asIs = makeQuery(name, type, options.class ?? RRClass.IN);
    let noData: NameAnswer | undefined;
    let failed: NameAnswer | undefined;
    let nxAsIs: NameAnswer | undefined;
    let last: NameAnswer | undefined;
    for (const candidate of candidates) {
      const query = makeQuery(candidate, type, options.class ?? RRClass.IN);
      const answer = await new Promise<PluginAnswer>((answer, fail) => this.#ask(query, signal, { answer, fail }));
      const found: NameAnswer = { query, answer };
      const { rcode } = found.answer;
      if (rcode === Rcode.NOERROR && answerCount(found.answer) > 0) return found;
      if (rcode === Rcode.NOERROR) noData ??= found;
      else if (rcode === Rcode.NXDOMAIN && nameKey(query.name) === nameKey(asIs.name)) nxAsIs = found;
      else if (rcode !== Rcode.NXDOMAIN) failed ??= found;
      last = found;
    }
    return noData ?? failed ?? nxAsIs ?? last!;
  }

  /** Cancels every query in flight (their callers get StateError) and refuses new ones. */
  close(): void {
    this.#closed = true;
    const closed = new StateError('the system resolver is closed');
    for (const table of this.#inflight.values()) table.abortAll(closed);
  }

  #ask(query: DnsQuery, signal: AbortSignal, sink: AnswerSink): void {
    if (signal.aborted) {
      sink.fail(abortError(signal));
      return;
    }
    if (this.#closed) {
      sink.fail(new StateError('the system resolver is closed'));
      return;
    }
    const fromHosts = this.#hosts?.answer(query, this.settings.hostsTtl);
    if (fromHosts) {
      this.#stats.hostsAnswers++;
      const answer: PluginAnswer = { rcode: Rcode.NOERROR, secure: false, bogus: false, answer: fromHosts };
      sink.answer(queryChannel.hasSubscribers ? { ...answer, servers: [this.#hostsFile] } : answer);
      return;
    }
    // Waits for a slot, then walks the nameservers. While it waits, a question is its PendingQuery
    // (its shared answer and its job in the limiter's queue); sockets and timers come when it goes out.
    const joined = this.#tableFor(query).join(
      nameKey(query.name),
      signal,
      sink,
      () => new PendingQuery(query, this.#walk, this.#nextStart),
      this.#submit,
    );
    if (joined) this.#stats.deduplicated++;
  }

  #tableFor(query: DnsQuery): SharedAnswers<PluginAnswer> {
    const kind = query.class * 0x10000 + query.type;
    let table = this.#inflight.get(kind);
    if (table === undefined) {
      table = new SharedAnswers<PluginAnswer>();
      this.#inflight.set(kind, table);
    }
    return table;
  }

  /** Puts a new pending query in the limiter's queue; one function for every query. */
  readonly #submit = (pending: PendingQuery): void => this.#limiter.submit(pending);

  /** The nameserver a query starts with (rotate); one function for every query. */
  readonly #nextStart = (): number => (this.#walk.rotate ? this.#rotation++ % this.#walk.nameservers.length : 0);
}

// Asked before every question (the registry's first()): the same two answers, nothing made per call.
const AVAILABLE: Availability = Object.freeze({ available: true });
const CLOSED: Availability = Object.freeze({ available: false, reason: 'the system resolver is closed' });

/**
 * A question asked of the nameservers: the shared answer its callers wait on, and its job in the
 * limiter's queue, in one record with no closures (it is its own cancellation there too).
 */
class PendingQuery extends SharedAnswer<PluginAnswer> implements LimiterJob {
  /** Gives the limiter's slot back once the walk ended. */
  #release: (() => void) | undefined;

  constructor(
    private readonly query: DnsQuery,
    private readonly walk: WalkSettings,
    private readonly start: () => number,
  ) {
    super();
  }

  get abortable(): this {
    return this;
  }

  /** The limiter's slot is held until the walk (a record, not a promise chain) hears its end here. */
  run(): Promise<void> {
    const slot = new Promise<void>((release) => {
      this.#release = release;
    });
    // The shared cancellation itself: no AbortController per query in flight.
    startWalk(this.query, this.walk, this.start(), this, this);
    return slot;
  }

  /** The walk's answer (or a settle from elsewhere): the slot goes back, then the callers hear it. */
  override answer(answer: PluginAnswer): void {
    this.#release?.();
    super.answer(answer);
  }

  /** close() aborts with a StateError: its callers get that, not an AbortError they never asked for. */
  override fail(error: unknown): void {
    this.#release?.();
    super.fail(this.aborted && this.reason instanceof StateError ? this.reason : error);
  }
}

/** ANCOUNT of an answer packet. */
function answerCount(answer: PluginAnswer): number {
  const packet = answer.answer;
  return packet && packet.length >= 8 ? (packet[6]! << 8) | packet[7]! : 0;
}
