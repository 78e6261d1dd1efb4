/**
 * A cache that any plugin can sit behind: it takes a plugin and returns one (undici's
 * interceptors, hickory-dns's CachingClient) that carries the cache (`plugin.cache`), so DnsCore
 * answers hits without an async hop. Positive answers live for their smallest TTL, negative ones
 * for min(SOA TTL, SOA MINIMUM) (RFC 2308 section 5), bogus ones briefly; secure/bogus stay with
 * the entry; a truncated answer (TC) not at all. Identical questions that miss at the same time
 * share one backend query.
 *
 * Two options, both off by default: serve-stale (RFC 8767), an expired answer served with TTL 30
 * when the backend fails, never longer than `maxStaleSeconds` after expiry; and prefetch, a hit
 * in the last 10% of an answer's lifetime starts one background refresh.
 *
 * A stale answer is marked (`PluginAnswer.stale`), and DnsCore's registry takes it as the last
 * resort: the backends registered after this one are asked first, and their answer wins unless
 * each of them fails too (RFC 8767 sections 5 and 6: stale data only when it cannot be
 * refreshed). The failure recheck below keeps this backend from being asked meanwhile.
 */
import { NEVER_ABORTED, abortError, mayAbort } from './abort.js';
import { STALE_TTL, type AnswerCache, type CacheEntry, type CacheStats } from './answer-cache.js';
import { answerLifetime, clampLifetime } from './answer-lifetime.js';
import { systemClock, type Clock } from './clock.js';
import { cacheHitChannel, cacheMissChannel, cachePrefetchChannel, cacheStaleChannel } from './diagnostics.js';
import { NetworkError, TimeoutError } from './errors.js';
import { checkPositiveInteger } from './option-checks.js';
import { questionKey, type DnsQuery } from './query.js';
import type { AnswerSink, Availability, ResolverPlugin } from './resolver-plugin.js';
import type { PluginAnswer } from './plugin-answer.js';
import { Rcode } from './rr-types.js';
import { serversOf, type ServerAttempt } from './server-attempts.js';
import { SharedAnswer, SharedAnswers } from './shared-answers.js';

export interface CacheOptions {
  /** Most entries held; the least recently used goes first (default 10000). */
  readonly maxEntries?: number;
  /** Cap on a positive answer's lifetime in seconds (default 86400). */
  readonly maxTtl?: number;
  /** Cap on a negative answer's lifetime in seconds (default 3600, RFC 2308 section 5). */
  readonly maxNegativeTtl?: number;
  /** Cap on a bogus answer's lifetime in seconds (default 60; RFC 4035 section 4.7). */
  readonly maxBogusTtl?: number;
  /**
   * RFC 8767: when the backend fails (timeout, network error, SERVFAIL), serve the expired
   * answer with TTL 30, marked stale (default false). Never a bogus answer. In a DnsCore with
   * backends after this one, they are asked first: the stale answer is used only if they all fail.
   */
  readonly serveStale?: boolean;
  /** How long after expiry an answer may still be served stale, seconds (default 86400; RFC 8767 section 5). */
  readonly maxStaleSeconds?: number;
  /** A hit in the last 10% of an answer's lifetime starts one background refresh (default false). */
  readonly prefetch?: boolean;
  readonly clock?: Clock;
}

export const DEFAULT_CACHE_MAX_ENTRIES = 10_000;
export const DEFAULT_CACHE_MAX_TTL = 86_400;
export const DEFAULT_CACHE_MAX_NEGATIVE_TTL = 3_600;
export const DEFAULT_CACHE_MAX_BOGUS_TTL = 60;
export const DEFAULT_CACHE_MAX_STALE_SECONDS = 86_400;
/** Prefetch starts when this share of an answer's lifetime is left (unbound's prefetch: 10%). */
export const PREFETCH_SHARE = 0.1;

export type { CacheStats } from './answer-cache.js';

/** A plugin with a cache in front: the plugin contract plus the cache it carries. */
export interface CachingPlugin extends ResolverPlugin {
  readonly cache: AnswerCache;
  readonly stats: CacheStats;
  /** The fresh cached answer to `query` with its age, or undefined; never asks the plugin behind. */
  peek(query: DnsQuery): PluginAnswer | undefined;
  /** Drops every entry. */
  clear(): void;
}

/** Wraps `plugin` with a cache; the result has the same name and priority. */
export function withCache(plugin: ResolverPlugin, options: CacheOptions = {}): CachingPlugin {
  return new CachedResolver(plugin, options);
}

class Entry implements CacheEntry {
  age = 0;
  /** Hit since eviction last passed it (the CLOCK approximation of least recently used). */
  used = false;
  /** Replaced, evicted or cleared: never served again. */
  retired = false;
  prefetched = false;
  /** RFC 8767 failure recheck: until then a stale answer is served without asking the backend. */
  recheckAt = 0;

  constructor(
    readonly cache: CachedResolver,
    readonly answer: PluginAnswer,
    readonly storedAt: number,
    readonly expiresAt: number,
  ) {}

  current(now: number = this.cache.now()): boolean {
    return !this.retired && now < this.expiresAt;
  }

  /** When a hit starts a prefetch: the last PREFETCH_SHARE of the lifetime. */
  get prefetchAt(): number {
    return this.expiresAt - (this.expiresAt - this.storedAt) * PREFETCH_SHARE;
  }
}

class CachedResolver implements CachingPlugin, AnswerCache {
  readonly name: string;
  readonly priority: number;
  readonly #entries = new Map<string, Entry>();
  /** Misses in flight: identical questions share one backend query (a sink each, no promise). */
  readonly #flights = new SharedAnswers<PluginAnswer>();
  /** The backend's answer object -> the entry stored from it (stored()); weak: the entry holds a copy. */
  readonly #storedFrom = new WeakMap<PluginAnswer, Entry>();
  readonly #clock: Clock;
  readonly #max: number;
  readonly #limits: { maxTtl: number; maxNegativeTtl: number; maxBogusTtl: number };
  /** Milliseconds an answer may be served stale after expiry; 0 when serve-stale is off. */
  readonly #staleMs: number;
  readonly #prefetch: boolean;
  #hits = 0;
  #misses = 0;
  #joined = 0;
  #stale = 0;
  #prefetches = 0;

  constructor(
    private readonly inner: ResolverPlugin,
    options: CacheOptions,
  ) {
    this.name = inner.name;
    this.priority = inner.priority;
    this.#clock = options.clock ?? systemClock;
    this.#max = checkPositiveInteger(options.maxEntries ?? DEFAULT_CACHE_MAX_ENTRIES, 'cache option maxEntries');
    this.#limits = {
      maxTtl: checkPositiveInteger(options.maxTtl ?? DEFAULT_CACHE_MAX_TTL, 'cache option maxTtl'),
      maxNegativeTtl: checkPositiveInteger(
        options.maxNegativeTtl ?? DEFAULT_CACHE_MAX_NEGATIVE_TTL,
        'cache option maxNegativeTtl',
      ),
      maxBogusTtl: checkPositiveInteger(options.maxBogusTtl ?? DEFAULT_CACHE_MAX_BOGUS_TTL, 'cache option maxBogusTtl'),
    };
    const maxStale = checkPositiveInteger(
      options.maxStaleSeconds ?? DEFAULT_CACHE_MAX_STALE_SECONDS,
      'cache option maxStaleSeconds',
    );
    this.#staleMs = options.serveStale ? maxStale * 1000 : 0;
    this.#prefetch = options.prefetch ?? false;
  }

  get cache(): AnswerCache {
    return this;
  }

  get stats(): CacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      joined: this.#joined,
      stale: this.#stale,
      prefetches: this.#prefetches,
      size: this.#entries.size,
    };
  }

  now(): number {
    return this.#clock.now();
  }

  available(): boolean | Availability {
    return this.inner.available();
  }

  close(): void | Promise<void> {
    this.clear();
    return this.inner.close();
  }

  clear(): void {
    for (const entry of this.#entries.values()) entry.retired = true;
    this.#entries.clear();
  }

  hit(query: DnsQuery, key: string = questionKey(query)): CacheEntry | undefined {
    return this.#hit(query, key);
  }

  peek(query: DnsQuery): PluginAnswer | undefined {
    // No prefetch either: peek() never asks the backend.
    const entry = this.#hit(query, questionKey(query), false);
    return entry && aged(entry);
  }

  /** The fresh entry for `key`; `mayRefresh`: a hit late in its lifetime may start a prefetch. */
  #hit(query: DnsQuery, key: string, mayRefresh = true): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    const now = this.#clock.now();
    if (now >= entry.expiresAt) {
      if (now >= this.#staleUntil(entry)) this.#drop(key, entry);
      return undefined;
    }
    entry.used = true;
    this.#hits++;
    entry.age = (entry.answer.age ?? 0) + Math.floor((now - entry.storedAt) / 1000);
    // Here, not in resolve(): DnsCore's fast path answers hits through hit() without resolve().
    if (cacheHitChannel.hasSubscribers) cacheHitChannel.publish({ query, backend: this.name, age: entry.age });
    if (this.#prefetch && mayRefresh && !entry.prefetched && now >= entry.prefetchAt) this.#refresh(key, query, entry);
    return entry;
  }

  resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
    return new Promise((answer, fail) => this.ask(query, signal, { answer, fail }));
  }

  /**
   * resolve() into a sink (the core's way). A miss waits as its caller's sink in the shared
   * flight for its question: no promise, no AbortController unless a caller may cancel.
   */
  ask(query: DnsQuery, signal: AbortSignal, sink: AnswerSink): void {
    if (signal.aborted) {
      sink.fail(abortError(signal));
      return;
    }
    const key = questionKey(query);
    const entry = this.#hit(query, key);
    if (entry) {
      sink.answer(aged(entry));
      return;
    }
    this.#misses++;
    const stale = this.#staleEntry(key);
    if (stale && this.#clock.now() < stale.recheckAt) {
      sink.answer(this.#serveStale(query, stale));
      return;
    }
    const joined = this.#flights.has(key);
    if (joined) this.#joined++;
    if (cacheMissChannel.hasSubscribers) cacheMissChannel.publish({ query, backend: this.name, joined });
    // Without serve-stale an answer or failure goes to the caller as it is: no record per caller.
    const caller = this.#staleMs === 0 ? sink : new StaleFallback(this, key, query, sink);
    this.#flights.join(
      key,
      signal,
      caller,
      () => new CacheFlight(this, key, query),
      // A flight nobody can leave is never cancelled: its backend gets no AbortController.
      (flight) => this.#fly(flight, mayAbort(signal) ? flight.signal : NEVER_ABORTED),
    );
  }

  /**
   * What a caller of a miss gets when serve-stale is on: a SERVFAIL, timeout or network
   * failure becomes the expired answer when one may still be served (RFC 8767 section 4).
   */
  staleAfterAnswer(key: string, query: DnsQuery, answer: PluginAnswer): PluginAnswer {
    // A validating backend may say SERVFAIL for a bogus answer: that is its verdict, not a failure.
    if (answer.rcode !== Rcode.SERVFAIL || answer.bogus === true) return answer;
    const fallback = this.#staleEntry(key);
    return fallback ? this.#serveStale(query, fallback, true, answer.servers) : answer;
  }

  /** staleAfterAnswer() for a failure: the stale answer, or undefined to fail as it is. */
  staleAfterFailure(key: string, query: DnsQuery, error: unknown): PluginAnswer | undefined {
    const fallback = error instanceof TimeoutError || error instanceof NetworkError ? this.#staleEntry(key) : undefined;
    return fallback && this.#serveStale(query, fallback, true, serversOf(error));
  }

  /** An expired entry that may still be served stale now (serve-stale on, within maxStaleSeconds, not bogus). */
  #staleEntry(key: string): Entry | undefined {
    if (this.#staleMs === 0) return undefined;
    const entry = this.#entries.get(key);
    if (!entry || entry.answer.bogus) return undefined;
    const now = this.#clock.now();
    if (now < entry.expiresAt) return undefined;
    if (now >= this.#staleUntil(entry)) {
      this.#drop(key, entry);
      return undefined;
    }
    return entry;
  }

  /** The end of the time an entry may be served stale (its expiry when serve-stale is off, or for a bogus one). */
  #staleUntil(entry: Entry): number {
    return entry.answer.bogus ? entry.expiresAt : entry.expiresAt + this.#staleMs;
  }

  /**
   * RFC 8767 section 4: TTL 30, and the backend is not asked again for 30 s after a failure.
   * `servers`: the tries that just failed, for the trace.
   */
  #serveStale(query: DnsQuery, entry: Entry, failedNow = false, servers?: readonly ServerAttempt[]): PluginAnswer {
    const now = this.#clock.now();
    if (failedNow) entry.recheckAt = now + STALE_TTL * 1000;
    this.#stale++;
    const age = (entry.answer.age ?? 0) + Math.floor((now - entry.storedAt) / 1000);
    if (cacheStaleChannel.hasSubscribers) {
      const expiredFor = Math.floor((now - entry.expiresAt) / 1000);
      const reason = failedNow ? 'failed' : 'recheck';
      cacheStaleChannel.publish({ query, backend: this.name, age, expiredFor, reason });
    }
    return { ...entry.answer, age, stale: true, ...(servers ? { servers } : {}) };
  }

  /** Prefetch: one background refresh, merged with any question in flight; a failure leaves the entry. */
  #refresh(key: string, query: DnsQuery, entry: Entry): void {
    entry.prefetched = true;
    if (this.#flights.has(key)) return;
    this.#prefetches++;
    if (cachePrefetchChannel.hasSubscribers)
      cachePrefetchChannel.publish({ query, backend: this.name, event: 'start' });
    // The refresh is a caller that never leaves: questions that join it and give up do not cancel it.
    const refresh: AnswerSink = {
      answer: () => this.#prefetched(query, 'finish'),
      fail: (error: unknown) => this.#prefetched(query, 'fail', error),
    };
    this.#flights.join(
      key,
      NEVER_ABORTED,
      refresh,
      () => new CacheFlight(this, key, query),
      (flight) => this.#fly(flight, NEVER_ABORTED),
    );
  }

  #prefetched(query: DnsQuery, event: 'finish' | 'fail', error?: unknown): void {
    if (cachePrefetchChannel.hasSubscribers)
      cachePrefetchChannel.publish({ query, backend: this.name, event, ...(event === 'fail' ? { error } : {}) });
  }

  /** Asks the backend for `flight`'s question: into the flight itself when it has ask(). */
  #fly(flight: CacheFlight, signal: AbortSignal): void {
    const inner = this.inner;
    if (inner.ask !== undefined) inner.ask(flight.query, signal, flight);
    else
      inner.resolve(flight.query, signal).then(
        (answer) => flight.answer(answer),
        (error: unknown) => flight.fail(error),
      );
  }

  /** A flight's answer, stored before its callers hear it (CacheFlight). */
  store(key: string, query: DnsQuery, answer: PluginAnswer): void {
    this.#store(key, query, answer);
  }

  /**
   * An answer that cannot be cached (SERVFAIL, TTL 0, ...) leaves a fresh entry there as it was.
   * An expired one goes when the backend did answer (NOERROR, NXDOMAIN, bogus): serve-stale is for
   * a backend that cannot answer (RFC 8767 section 4), never data its own answer has replaced.
   */
  #store(key: string, query: DnsQuery, given: PluginAnswer): void {
    // Checked again where it is stored: NaN or Infinity here would be an entry that never expires.
    const lifetime = clampLifetime(answerLifetime(query, given, this.#limits), this.#limits.maxTtl);
    if (lifetime === 0) {
      const old = this.#entries.get(key);
      if (old !== undefined && !old.current() && answered(given)) this.#drop(key, old);
      return;
    }
    // The servers of this one query belong to its trace, not to the hits that follow.
    const answer = given.servers !== undefined ? { ...given, servers: undefined } : given;
    const now = this.#clock.now();
    const lifetimeMs = lifetime * 1000;
    const expiresAt = now + lifetimeMs;
    const old = this.#entries.get(key);
    if (old) this.#drop(key, old);
    const entry = new Entry(this, answer, now, expiresAt);
    this.#entries.set(key, entry);
    this.#storedFrom.set(given, entry);
    this.#evict(entry);
  }

  stored(answer: PluginAnswer): CacheEntry | undefined {
    const entry = this.#storedFrom.get(answer);
    return entry?.current() ? entry : undefined;
  }

  /**
   * Beyond maxEntries, the least recently used go (CLOCK: a hit only sets a flag; eviction
   * sends an entry hit since it last looked to the end of the Map's order, once). `added`, the
   * entry just stored, is never the one to go: the entries sent on behind it were used before it.
   */
  #evict(added: Entry): void {
    while (this.#entries.size > this.#max) {
      const [oldest, entry] = this.#entries.entries().next().value!;
      if (entry === added || (entry.used && !entry.retired)) {
        entry.used = false;
        this.#entries.delete(oldest);
        this.#entries.set(oldest, entry);
        continue;
      }
      this.#drop(oldest, entry);
    }
  }

  #drop(key: string, entry: Entry): void {
    entry.retired = true;
    this.#entries.delete(key);
  }
}

/**
 * A miss in flight: the backend answers into it, it stores the answer, then hands it to every
 * caller still waiting. The last caller to leave cancels it (SharedAnswer).
 */
class CacheFlight extends SharedAnswer<PluginAnswer> {
  constructor(
    private readonly cache: CachedResolver,
    private readonly key: string,
    readonly query: DnsQuery,
  ) {
    super();
  }

  override answer(answer: PluginAnswer): void {
    if (this.settled) return;
    this.cache.store(this.key, this.query, answer);
    super.answer(answer);
  }
}

/** A caller of a miss with serve-stale on: a failed flight may still give it the expired answer. */
class StaleFallback implements AnswerSink<PluginAnswer> {
  constructor(
    private readonly cache: CachedResolver,
    private readonly key: string,
    private readonly query: DnsQuery,
    private readonly sink: AnswerSink,
  ) {}

  answer(answer: PluginAnswer): void {
    this.sink.answer(this.cache.staleAfterAnswer(this.key, this.query, answer));
  }

  fail(error: unknown): void {
    const stale = this.cache.staleAfterFailure(this.key, this.query, error);
    if (stale) this.sink.answer(stale);
    else this.sink.fail(error);
  }
}

/** The backend answered the question (a bogus verdict included), as opposed to failing to. */
function answered(answer: PluginAnswer): boolean {
  return answer.bogus === true || answer.rcode === Rcode.NOERROR || answer.rcode === Rcode.NXDOMAIN;
}

/** The cached answer with its age: its TTLs are presented that much lower. */
function aged(entry: Entry): PluginAnswer {
  return { ...entry.answer, age: entry.age };
}
