/**
 * The A and AAAA results a lookup used (with their addresses), kept for their lifetime, so that
 * a warm lookup is a synchronous read (no promise, no result built) as with cacheable-lookup.
 * It never outlives the core's cache entry: a result's TTLs are already aged by the core's cache,
 * and an entry lives at most its lowest TTL (its negative TTL for NXDOMAIN and NODATA). Failures
 * and bogus results are never kept. Bounded, oldest entry out first.
 */
import type { Clock, DnsResult } from '@dnscore/core';

interface Kept<T> {
  readonly value: T;
  /** Clock time (ms) it stops being fresh at. */
  readonly expires: number;
}

export class ResultMemo<T> {
  /** One map per question type, keyed by the lower-cased name. */
  readonly #a = new Map<string, Kept<T>>();
  readonly #aaaa = new Map<string, Kept<T>>();

  constructor(
    readonly maxEntries: number,
    readonly clock: Clock,
  ) {}

  /** A fresh kept value, or undefined. `key` is the lower-cased name, `now` the clock's time. */
  get(type: 'A' | 'AAAA', key: string, now: number): T | undefined {
    const map = type === 'A' ? this.#a : this.#aaaa;
    const kept = map.get(key);
    if (kept === undefined) return undefined;
    if (now < kept.expires) return kept.value;
    map.delete(key);
    return undefined;
  }

  /** Keeps `value` when `result` is usable (data, NXDOMAIN or NODATA) for its lifetime from `now`. */
  set(type: 'A' | 'AAAA', key: string, result: DnsResult, value: T, now: number): void {
    if (this.maxEntries === 0 || result.bogus) return;
    const lifetime =
      result.records.length > 0 ? result.lowestTtl : result.nxDomain || result.noData ? result.negativeTtl : 0;
    if (lifetime <= 0) return;
    const map = type === 'A' ? this.#a : this.#aaaa;
    map.delete(key);
    map.set(key, { value, expires: now + lifetime * 1000 });
    if (map.size > this.maxEntries) map.delete(map.keys().next().value!);
  }
}
