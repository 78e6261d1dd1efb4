/**
 * The consumer-side contract of the core: what layers above it (query sets, recurring queries,
 * @dnscore/sip, the adapters, applications) need. DnsCore implements both; a wrapper (a
 * tracker, a test double) can stand in for it.
 */
import type { DnsQuery } from './query.js';
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
}

/** An already validated question (query sets and recurring queries ask through this). */
export interface QueryApi {
  resolveQuery(query: DnsQuery, signal?: AbortSignal): Promise<DnsResult>;
}
