/**
 * The backend side of the core (Asterisk's dns_resolver.h): a plugin only translates between
 * its backend and a PluginAnswer. It never sorts, caches or retries for the caller.
 */
import type { DnsQuery } from './query.js';

/** What a resolver plugin hands the core: flags, rcode, canonical name, the raw answer. */
export interface PluginAnswer {
  readonly rcode: number;
  readonly secure?: boolean;
  readonly bogus?: boolean;
  /** Why validation failed, when bogus. */
  readonly whyBogus?: string;
  /** Extended DNS Error INFO-CODE (RFC 8914) for the failure, when bogus (default 6, DNSSEC Bogus). */
  readonly ede?: number;
  /** End of the CNAME chain; derived from the answer packet when left out. */
  readonly canonical?: string;
  /** The raw answer packet (may be empty, e.g. for an NXDOMAIN without one). */
  readonly answer?: Uint8Array;
  /** Seconds the answer spent in a cache: subtracted from every TTL. */
  readonly age?: number;
}

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
  /** Releases sockets, threads and timers. */
  close(): void | Promise<void>;
}

export function availabilityOf(plugin: ResolverPlugin): Availability {
  const value = plugin.available();
  return typeof value === 'boolean' ? { available: value } : value;
}
