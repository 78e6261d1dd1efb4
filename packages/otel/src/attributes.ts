/**
 * Attribute names and values. `dns.question.name` and `error.type` are OpenTelemetry's (the
 * draft `dns.lookup.duration` convention); there is no DNS span convention, so the rest are
 * dnscore's own, under `dnscore.`.
 */
import { rcodeName, typeName } from '@dnscore/core';
import type { QueryTraceContext } from '@dnscore/core/diagnostics';

export const ATTR = Object.freeze({
  questionName: 'dns.question.name',
  errorType: 'error.type',
  questionType: 'dnscore.question.type',
  resolver: 'dnscore.resolver',
  cache: 'dnscore.cache',
  rcode: 'dnscore.rcode',
  dnssec: 'dnscore.dnssec',
  ede: 'dnscore.ede',
  attempts: 'dnscore.attempts',
  stale: 'dnscore.stale',
  server: 'dnscore.server',
  serverOutcome: 'dnscore.server.outcome',
  staleReason: 'dnscore.cache.stale.reason',
  prefetchEvent: 'dnscore.cache.prefetch.event',
  sipUri: 'dnscore.sip.uri',
  sipRule: 'dnscore.sip.rule',
  sipTargets: 'dnscore.sip.targets',
  sipRoundTrips: 'dnscore.sip.round_trips',
  sipPlanned: 'dnscore.sip.planned',
  sipQueries: 'dnscore.sip.queries',
  failoverReason: 'dnscore.sip.failover.reason',
  failoverFrom: 'dnscore.sip.failover.from',
  failoverTo: 'dnscore.sip.failover.to',
  failoverIndex: 'dnscore.sip.failover.index',
  failoverElapsed: 'dnscore.sip.failover.elapsed_ms',
  penaltyEvent: 'dnscore.sip.penalty.event',
  penaltyReason: 'dnscore.sip.penalty.reason',
  penaltyEntryReason: 'dnscore.sip.penalty.entry_reason',
  affinityLearned: 'dnscore.sip.affinity.learned',
  networkTransport: 'network.transport',
  serverAddress: 'server.address',
  peerAddress: 'network.peer.address',
  serverPort: 'server.port',
} as const);

/**
 * What went wrong, as `error.type`: a thrown DnsError's code (DNS_ERR_TIMEOUT, ...) or the
 * error's name; an answer that is not a usable answer gives its rcode name (NXDOMAIN,
 * SERVFAIL, ...), or DNSSEC_BOGUS. NODATA is an answer, not an error.
 */
export function errorType(error: unknown): string {
  if (error && typeof error === 'object') {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && code !== '') return code;
    if (typeof name === 'string' && name !== '') return name;
  }
  return '_OTHER';
}

/** error.type of a finished query; undefined when it answered (NOERROR, secure or insecure). */
export function queryErrorType(context: QueryTraceContext): string | undefined {
  if (context.error !== undefined) return errorType(context.error);
  const result = context.result;
  if (!result) return undefined;
  if (result.bogus) return 'DNSSEC_BOGUS';
  return result.rcode === 0 ? undefined : rcodeName(result.rcode);
}

/** "A", "SRV", "TYPE65280": the question's type as people read it. */
export function questionType(context: QueryTraceContext): string {
  return typeName(context.query.type);
}

/** "udp 192.0.2.1:5060", for failover events. */
export function destinationText(d: { transport: string; address: string; port: number }): string {
  return `${d.transport} ${d.address.includes(':') ? `[${d.address}]` : d.address}:${d.port}`;
}
