/**
 * The instruments: `dns.lookup.duration` as the draft OpenTelemetry convention names it
 * (seconds, `dns.question.name`, `error.type` when the lookup failed), and counters of what the
 * resolver did on the way.
 */
import type { Counter, Histogram, Meter } from '@opentelemetry/api';

/** Seconds; from 0.5 ms (a cache hit) to 10 s (a backend's timeouts in a row). */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Instruments {
  /** One per DnsCore.resolve(): how long it took. */
  readonly lookupDuration: Histogram;
  /** Cache lookups by `dnscore.cache` (hit, miss) and `dnscore.resolver`. */
  readonly cacheLookups: Counter;
  /** Expired answers served (RFC 8767 serve-stale), by `dnscore.cache.stale.reason` (failed, recheck). */
  readonly staleAnswers: Counter;
  /** Background refreshes, by `dnscore.cache.prefetch.event` (start, finish, fail). */
  readonly prefetches: Counter;
  /** Backends that failed to answer, so the next was asked (or none was left). */
  readonly fallbacks: Counter;
  /** Answers that failed DNSSEC validation. */
  readonly bogus: Counter;
  /** Failed SIP tries after which the cursor moved on. */
  readonly failovers: Counter;
  /** Penalty box entries and exits. */
  readonly penalties: Counter;
  /** Call-IDs pinned to a destination, by `dnscore.sip.affinity.learned` (outgoing, incoming). */
  readonly affinityPins: Counter;
}

export function makeInstruments(meter: Meter): Instruments {
  return {
    lookupDuration: meter.createHistogram('dns.lookup.duration', {
      description: 'Measures the time taken to perform a DNS lookup.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    cacheLookups: meter.createCounter('dnscore.cache.lookups', {
      description: 'Lookups in the core cache, by result (hit or miss).',
      unit: '{lookup}',
    }),
    staleAnswers: meter.createCounter('dnscore.cache.stale', {
      description: 'Expired answers served because the backend failed (RFC 8767 serve-stale).',
      unit: '{answer}',
    }),
    prefetches: meter.createCounter('dnscore.cache.prefetches', {
      description: 'Background refreshes of cache entries near expiry: started, finished, failed.',
      unit: '{prefetch}',
    }),
    fallbacks: meter.createCounter('dnscore.resolver.fallbacks', {
      description: 'Backends that failed to get an answer, so the next one was asked.',
      unit: '{fallback}',
    }),
    bogus: meter.createCounter('dnscore.dnssec.bogus', {
      description: 'Answers that failed DNSSEC validation; their data was withheld.',
      unit: '{answer}',
    }),
    failovers: meter.createCounter('dnscore.sip.failovers', {
      description: 'SIP tries that failed (503, transport error, no response), so the next target was tried.',
      unit: '{failover}',
    }),
    penalties: meter.createCounter('dnscore.sip.penalty.changes', {
      description: 'Destinations put into the penalty box (enter) or out of it (leave: cleared, expired, evicted).',
      unit: '{change}',
    }),
    affinityPins: meter.createCounter('dnscore.sip.affinity.pins', {
      description: 'Call-IDs pinned to a destination (Call-ID affinity).',
      unit: '{pin}',
    }),
  };
}
