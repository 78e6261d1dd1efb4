/**
 * A cache that any plugin can sit behind: it takes a plugin and returns one (undici's
 * interceptors, hickory-dns's CachingClient). Positive answers live for their smallest TTL,
 * negative ones for min(SOA TTL, SOA MINIMUM) (RFC 2308 section 5), bogus ones briefly;
 * secure/bogus stay with the entry; an expired entry is never served. Identical questions
 * that miss at the same time share one backend query.
 */
import { abortError, onAbort, raceAbort, throwIfAborted } from './abort.js';
import { systemClock, type Clock } from './clock.js';
import { cacheHitChannel, cacheMissChannel } from './diagnostics.js';
import { nameKey } from './names.js';
import { checkPositiveInteger } from './option-checks.js';
import type { DnsQuery } from './query.js';
import type { Availability, ResolverPlugin } from './resolver-plugin.js';
import { answerLifetime, clampLifetime } from './answer-lifetime.js';
import type { PluginAnswer } from './resolver-plugin.js';

export interface CacheOptions {
  /** Most entries held; the least recently used goes first (default 10000). */
  readonly maxEntries?: number;
  /** Cap on a positive answer's lifetime in seconds (default 86400). */
  readonly maxTtl?: number;
  /** Cap on a negative answer's lifetime in seconds (default 3600, RFC 2308 section 5). */
  readonly maxNegativeTtl?: number;
  /** Cap on a bogus answer's lifetime in seconds (default 60; RFC 4035 section 4.7). */
  readonly maxBogusTtl?: number;
  readonly clock?: Clock;
}

export const DEFAULT_CACHE_MAX_ENTRIES = 10_000;
export const DEFAULT_CACHE_MAX_TTL = 86_400;
export const DEFAULT_CACHE_MAX_NEGATIVE_TTL = 3_600;
export const DEFAULT_CACHE_MAX_BOGUS_TTL = 60;

export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
  /** Callers that joined a backend query already in flight. */
  readonly joined: number;
  readonly size: number;
}

interface Entry {
  readonly answer: PluginAnswer;
  readonly storedAt: number;
  readonly expiresAt: number;
}

interface Flight {
  readonly promise: Promise<PluginAnswer>;
  readonly controller: AbortController;
  waiters: number;
}

export interface CachingPlugin extends ResolverPlugin {
  readonly stats: CacheStats;
  /** The fresh cached answer to `query`, or undefined; never asks the plugin behind (DnsCore answers hits with it). */
  peek(query: DnsQuery): PluginAnswer | undefined;
  /** Drops every entry. */
  clear(): void;
}

/** Wraps `plugin` with a cache; the result has the same name and priority. */
export function withCache(plugin: ResolverPlugin, options: CacheOptions = {}): CachingPlugin {
  return new CachedResolver(plugin, options);
}

class CachedResolver implements CachingPlugin {
  readonly name: string;
  readonly priority: number;
  readonly #entries = new Map<string, Entry>();
  readonly #flights = new Map<string, Flight>();
  readonly #clock: Clock;
  readonly #max: number;
  readonly #limits: { maxTtl: number; maxNegativeTtl: number; maxBogusTtl: number };
  #hits = 0;
  #misses = 0;
  #joined = 0;

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
  }

  get stats(): CacheStats {
    return { hits: this.#hits, misses: this.#misses, joined: this.#joined, size: this.#entries.size };
  }

  available(): boolean | Availability {
    return this.inner.available();
  }

  close(): void | Promise<void> {
    this.clear();
    return this.inner.close();
  }

  clear(): void {
    this.#entries.clear();
  }

  peek(query: DnsQuery): PluginAnswer | undefined {
    const hit = this.#lookup(cacheKey(query));
    if (hit) this.#hit(query, hit);
    return hit;
  }

  async resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
    throwIfAborted(signal);
    const key = cacheKey(query);
    const hit = this.#lookup(key);
    if (hit) {
      this.#hit(query, hit);
      return hit;
    }
    this.#misses++;
    const joined = this.#flights.get(key);
    if (joined) this.#joined++;
    if (cacheMissChannel.hasSubscribers) cacheMissChannel.publish({ query, backend: this.name, joined: !!joined });
    const flight = joined ?? this.#fly(key, query);
    return this.#wait(flight, signal);
  }

  #hit(query: DnsQuery, hit: PluginAnswer): void {
    this.#hits++;
    if (cacheHitChannel.hasSubscribers) cacheHitChannel.publish({ query, backend: this.name, age: hit.age ?? 0 });
  }

  #lookup(key: string): PluginAnswer | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const now = this.#clock.now();
    if (now >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    // Most recently used goes to the end of the Map's order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return { ...entry.answer, age: (entry.answer.age ?? 0) + Math.floor((now - entry.storedAt) / 1000) };
  }

  #fly(key: string, query: DnsQuery): Flight {
    const controller = new AbortController();
    const promise = this.inner.resolve(query, controller.signal).then((answer) => {
      this.#store(key, query, answer);
      return answer;
    });
    const flight: Flight = { promise, controller, waiters: 0 };
    this.#flights.set(key, flight);
    const land = (): void => {
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
    };
    promise.then(land, land);
    return flight;
  }

  /** A waiter that gives up leaves; the backend query is cancelled when the last one has. */
  async #wait(flight: Flight, signal: AbortSignal): Promise<PluginAnswer> {
    flight.waiters++;
    const leave = (): void => {
      if (--flight.waiters === 0 && !settled) flight.controller.abort(abortError(signal));
    };
    let settled = false;
    const forget = onAbort(signal, leave);
    try {
      return await raceAbort(flight.promise, signal);
    } finally {
      settled = true;
      forget();
      if (!signal.aborted) flight.waiters--;
    }
  }

  #store(key: string, query: DnsQuery, answer: PluginAnswer): void {
    // Checked again where it is stored: NaN or Infinity here would be an entry that never expires.
    const lifetime = clampLifetime(answerLifetime(query, answer, this.#limits), this.#limits.maxTtl);
    if (lifetime === 0) return;
    const now = this.#clock.now();
    this.#entries.delete(key);
    this.#entries.set(key, { answer, storedAt: now, expiresAt: now + lifetime * 1000 });
    while (this.#entries.size > this.#max) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }
}

function cacheKey(query: DnsQuery): string {
  return `${query.class}/${query.type}/${nameKey(query.name)}`;
}
