/**
 * The backend side of the core (Asterisk's dns_resolver.h): a plugin only translates between
 * its backend and a PluginAnswer. It never sorts, caches or retries for the caller.
 */
import type { AnswerCache } from './answer-cache.js';
import type { DnsQuery } from './query.js';
import type { PluginAnswer } from './plugin-answer.js';

export interface Availability {
  readonly available: boolean;
  /** Why not, when unavailable: shown to the user once when another backend takes over. */
  readonly reason?: string;
  /**
   * When unavailable: no plugin after this one may answer in its place. A validating backend
   * the caller asked for (a trust anchor, requireSecure) says so: an unvalidated answer from a
   * backend behind it would pass for what was asked.
   */
  readonly failClosed?: boolean;
}

/**
 * Where a plugin's ask() delivers: exactly one call, once. `fail` means no answer was obtained
 * (as resolve() rejecting); NXDOMAIN, NODATA and bogus are answers.
 */
export interface AnswerSink<T = PluginAnswer> {
  answer(answer: T): void;
  fail(error: unknown): void;
}

export interface ResolverPlugin {
  /** Unique in a registry: "unbound", "system", "zone". */
  readonly name: string;
  /** Lower is tried first (Asterisk: unbound 100, system last). */
  readonly priority: number;
  /** Asked each time a resolver is chosen, so a backend can come and go. */
  available(): boolean | Availability;
  /**
   * Answers one question. Rejects when no answer was obtained (timeout, network error, ...);
   * NXDOMAIN, NODATA and bogus are answers. On `signal` abort, release the work at once.
   */
  resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer>;
  /**
   * Optional: resolve() without a promise of the plugin's. The answer or the failure goes to
   * `sink`, once, possibly before ask() returns; a throw is a failure. The core prefers it: a
   * question waiting for its backend then holds no promise and no closure of the plugin's (a
   * burst holds thousands).
   */
  ask?(query: DnsQuery, signal: AbortSignal, sink: AnswerSink): void;
  /** Releases sockets, threads and timers. */
  close(): void | Promise<void>;
  /**
   * The cache in front of this plugin's backend, when it has one (withCache): DnsCore answers
   * its fresh hits at once, without calling resolve().
   */
  readonly cache?: AnswerCache;
}

export function availabilityOf(plugin: ResolverPlugin): Availability {
  const value = plugin.available();
  return typeof value === 'boolean' ? { available: value } : value;
}
