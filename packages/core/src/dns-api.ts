/**
 * The consumer-side contract of the core: what layers above it (query sets, recurring queries,
 * @dnscore/sip, the adapters, applications) need. DnsCore implements both; a wrapper (a
 * tracker, a test double) can stand in for it.
 */
import type { DnsQuery } from './query.js';
import type { RandomSource } from './random.js';
import type { TypedRecord, TypedRecordName } from './records/types.js';
import type { DnsResult } from './result.js';

export interface ResolveOptions {
  /** Class of the question: a number or "IN", "CH", ... (default IN). */
  readonly class?: number | string;
  /** Cancels the call: the promise rejects with AbortError at once. */
  readonly signal?: AbortSignal;
}

/** What layers above the core (query sets, recurring queries, SIP) need from it. */
export interface DnsApi {
  resolve<T extends TypedRecordName>(
    name: string,
    type: T,
    options?: ResolveOptions,
  ): Promise<DnsResult<TypedRecord<T>>>;
  resolve(name: string, type?: number | string, options?: ResolveOptions): Promise<DnsResult>;
  /**
   * resolve(), with the result handed to `pick` as it is made: the promise holds only what
   * `pick` returns (DnsCore has it; a wrapper may leave it out, and callers then pick after
   * resolve()).
   */
  resolveWith?<V>(
    name: string,
    type: number | string,
    pick: (result: DnsResult) => V,
    options?: ResolveOptions,
  ): Promise<V>;
  /**
   * True while every one of `results` is what a new question would get: each was built from a
   * cache entry that is still current, of the plugin that answers first now. Layers above reuse
   * what they derived from those results while this holds (SIP target plans).
   */
  current?(results: readonly DnsResult[]): boolean;
  /** The random source of the RFC 2782 weighted draw, for draws done above the core. */
  readonly random?: RandomSource;
}

/** An already validated question (query sets and recurring queries ask through this). */
export interface QueryApi {
  resolveQuery(query: DnsQuery, signal?: AbortSignal): Promise<DnsResult>;
}
