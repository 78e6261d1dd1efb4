/**
 * The contract between a cache and the core (part of the plugin contract): a plugin that
 * carries a cache (`plugin.cache`) lets DnsCore answer a hit at once, without an async hop,
 * and lets layers above (SIP target plans) know how long what they derived from it holds.
 */
import type { DnsQuery } from './query.js';
import type { PluginAnswer } from './plugin-answer.js';

/** RFC 8767 section 4: the TTL of every record of a stale answer. */
export const STALE_TTL = 30;

/** One cached answer, as long as the cache serves it. */
export interface CacheEntry {
  /** The cache that holds it. */
  readonly cache: AnswerCache;
  /** The answer as the backend gave it (its own `age` included). */
  readonly answer: PluginAnswer;
  /** Seconds the answer had spent in caches at the last hit: the backend's age plus time in this cache. */
  readonly age: number;
  /**
   * True while a new question would be answered with this very entry: not expired, replaced,
   * evicted or cleared. What was derived from it may be reused while this holds. `now`: the
   * cache's clock (AnswerCache.now()), read once by a caller that checks several entries.
   */
  current(now?: number): boolean;
}

export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
  /** Callers that joined a backend query already in flight. */
  readonly joined: number;
  /**
   * Expired answers served because the backend failed (RFC 8767); DnsCore uses one only when
   * the backends after this one fail too, so some may have given way to their fresh answers.
   */
  readonly stale: number;
  /** Background refreshes started before expiry. */
  readonly prefetches: number;
  readonly size: number;
}

export interface AnswerCache {
  /**
   * The fresh entry for `query`, or undefined; never asks the backend and never serves a stale
   * answer (those only come after the backend failed, from the plugin's resolve()). A hit may
   * start a background refresh (prefetch). `key` is questionKey(query), when the caller has it.
   */
  hit(query: DnsQuery, key?: string): CacheEntry | undefined;
  /**
   * The entry this cache stored from `answer`, an answer its backend just gave (the very object
   * the plugin's resolve() returned), so that a result built from it is current as a hit's is;
   * undefined for an answer it did not store (not cacheable, stale, a copy). Never asks anything.
   */
  stored?(answer: PluginAnswer): CacheEntry | undefined;
  readonly stats: CacheStats;
  /** The cache's clock, ms since the epoch (what entries expire by). */
  now?(): number;
  /** Drops every entry; the entries handed out stop being current. */
  clear(): void;
}
