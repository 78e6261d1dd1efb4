/**
 * The A and AAAA results a lookup used, kept for the smaller of their lifetime in the core and
 * a bound, so that a warm lookup is a synchronous read (no promise, no result built) as with
 * cacheable-lookup. It never outlives the core's own entry: a result's TTLs are already aged by
 * the core's cache, and an entry lives at most its lowest TTL (its negative TTL for NXDOMAIN and
 * NODATA). Failures and bogus answers are never kept. Bounded, oldest entry out first.
 */
import type { Clock, DnsResult } from '@dnscore/core';

interface Entry {
  readonly result: DnsResult;
  readonly storedAt: number;
  readonly expires: number;
}

export class AnswerMemo {
  readonly #entries = new Map<string, Entry>();

  constructor(
    readonly maxEntries: number,
    readonly clock: Clock,
  ) {}

  /** The result and the seconds since it was kept, or undefined when none is fresh. */
  get(type: 'A' | 'AAAA', name: string): { result: DnsResult; age: number } | undefined {
    if (this.maxEntries === 0) return undefined;
    const key = `${type} ${name.toLowerCase()}`;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const now = this.clock.now();
    if (now >= entry.expires) {
      this.#entries.delete(key);
      return undefined;
    }
    return { result: entry.result, age: Math.floor((now - entry.storedAt) / 1000) };
  }

  /** Keeps a usable result (with data, NXDOMAIN or NODATA) for its lifetime; anything else is not kept. */
  set(type: 'A' | 'AAAA', name: string, result: DnsResult): void {
    if (this.maxEntries === 0 || result.bogus) return;
    const lifetime =
      result.records.length > 0 ? result.lowestTtl : result.nxDomain || result.noData ? result.negativeTtl : 0;
    if (lifetime <= 0) return;
    const key = `${type} ${name.toLowerCase()}`;
    const now = this.clock.now();
    this.#entries.delete(key);
    this.#entries.set(key, { result, storedAt: now, expires: now + lifetime * 1000 });
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  clear(): void {
    this.#entries.clear();
  }
}
