/**
 * Every diagnostics channel dnscore publishes on, with its payload type: one place for the
 * names (undici's `<package>:<object>:<event>` scheme) and for what subscribers receive. Channels
 * cost one property read when nobody subscribes: every emission point checks hasSubscribers.
 * SIP payloads are described structurally here so that core never imports @dnscore/sip.
 */
import diagnostics from 'node:diagnostics_channel';
import type { DnsQuery } from './query.js';
import type { DnsResult } from './result.js';
import type { ServerAttempt } from './server-attempts.js';

export type { ServerAttempt } from './server-attempts.js';

/** A channel whose messages are `T` (node's Channel, typed; no wrapper, no cost). */
export interface TypedChannel<T> {
  readonly name: string | symbol;
  readonly hasSubscribers: boolean;
  publish(message: T): void;
  subscribe(listener: (message: T, name: string | symbol) => void): void;
  unsubscribe(listener: (message: T, name: string | symbol) => void): boolean;
}

/** A tracing channel whose context is `C` (start, end, asyncStart, asyncEnd, error). */
export type TypedTracingChannel<C extends object> = diagnostics.TracingChannel<unknown, C>;

const channel = <T>(name: string): TypedChannel<T> => diagnostics.channel(name) as unknown as TypedChannel<T>;

// ---- DNS queries ---------------------------------------------------------------------------

/** One backend asked for a query: `error` when it got no answer (then the next is asked, unless it is definite). */
export interface QueryAttempt {
  readonly backend: string;
  readonly error?: Error;
  /** The servers (or files) the backend asked, in order, when it says (a cached answer: none). */
  readonly servers?: readonly ServerAttempt[];
}

/**
 * The context of a `dnscore:query` trace: one DnsCore.resolve() call. The tracing channel adds
 * `result` (at asyncEnd) or `error` (at error). The result says the rest: result.resolver,
 * rcode, secure, bogus, ede.
 */
export interface QueryTraceContext {
  readonly query: DnsQuery;
  /** 'hit': answered from the cache in front of the first backend, no backend asked; 'miss': asked. */
  cache: 'hit' | 'miss';
  /** Backends asked, in order (CNAME re-asks across zones included); empty on a cache hit. */
  readonly attempts: QueryAttempt[];
  result?: DnsResult;
  error?: unknown;
}

/** A backend failed to answer and the registry falls through to the next (if any). */
export interface FallbackEvent {
  readonly query: DnsQuery;
  readonly plugin: string;
  readonly error: Error;
  /** The backend asked next; undefined when none is left. */
  readonly next: string | undefined;
}

/** The backend that answers changed (first use, or a backend became (un)available). */
export interface SelectedEvent {
  /** The first available backend; undefined when none is. */
  readonly plugin: string | undefined;
  /** Backends of higher priority that are unavailable. */
  readonly skipped: readonly string[];
}

/** A query got a bogus answer (DNSSEC validation failed); the data was withheld. */
export interface BogusEvent {
  readonly query: DnsQuery;
  readonly resolver: string;
  /** RFC 8914 INFO-CODE (6 DNSSEC Bogus when the backend gave none). */
  readonly ede: number | undefined;
  readonly whyBogus: string | undefined;
}

/** withCache(): a fresh entry answered. */
export interface CacheHitEvent {
  readonly query: DnsQuery;
  readonly backend: string;
  /** Seconds the answer has been in the cache. */
  readonly age: number;
}

/** withCache(): no fresh entry; the backend is asked (`joined`: a query already in flight). */
export interface CacheMissEvent {
  readonly query: DnsQuery;
  readonly backend: string;
  readonly joined: boolean;
}

/**
 * withCache(): an expired answer was served (RFC 8767) because the backend just failed
 * ('failed'), or because it failed less than 30 s ago and is not asked again yet ('recheck').
 */
export interface CacheStaleEvent {
  readonly query: DnsQuery;
  readonly backend: string;
  /** Seconds the answer has been in caches (the backend's age included). */
  readonly age: number;
  /** Seconds since it expired. */
  readonly expiredFor: number;
  readonly reason: 'failed' | 'recheck';
}

/** withCache(): a background refresh of an entry near its expiry started, finished or failed. */
export interface CachePrefetchEvent {
  readonly query: DnsQuery;
  readonly backend: string;
  readonly event: 'start' | 'finish' | 'fail';
  /** Why it failed (the entry stays as it was). */
  readonly error?: unknown;
}

// ---- SIP server location (payloads shaped like @dnscore/sip's types) -----------------------

/** Where SIP requests go: transport, IP address, port; `host` is the name it was found under. */
export interface SipDestinationInfo {
  readonly transport: string;
  readonly address: string;
  readonly port: number;
  readonly host?: string;
}

/** What a SIP location found (a SipResolution is one). */
export interface SipLocateResult {
  /** The RFC 3263 rule that chose the transport: 'naptr', 'srv', 'host', ... */
  readonly rule?: string | undefined;
  readonly targets: readonly SipDestinationInfo[];
  /** Rounds of DNS questions asked in parallel. */
  readonly roundTrips: number;
  /** DNS questions asked. */
  readonly queries: number;
  /** Why there is no target (the resolution's error, not thrown). */
  readonly error?: Error | undefined;
}

/** The context of a `dnscore:sip:locate` trace: one SipLocator.resolve() call. */
export interface SipLocateTraceContext {
  readonly uri: string;
  /** Answered from a target plan (the answers it was built from are still cached): no DNS question asked. */
  readonly planned?: boolean;
  result?: SipLocateResult;
  error?: unknown;
}

/** A failover cursor moved on from a failed try. */
export interface FailoverEvent {
  readonly uri: string;
  readonly from: SipDestinationInfo;
  /** The next try; undefined when every target was tried. */
  readonly to: SipDestinationInfo | undefined;
  /**
   * Why `from` failed: '503 Service Unavailable', '<status> response' (another status of the
   * failover set), 'transport error' or 'no response'.
   */
  readonly reason: string;
  /** Index of the try that failed (0 for the first). */
  readonly index: number;
  /** Milliseconds since the walk began (its first next(), target lookups included). */
  readonly elapsedMs: number;
}

/**
 * A destination went into the penalty box, or came out: taken out (it answered, or an operator
 * cleared it), its time ran out (seen at the first read of the box after `until`), or it was
 * pushed out by a newer entry when the box was full.
 */
export interface PenaltyEvent {
  readonly event: 'enter' | 'leave';
  /** `reason` is the penalty reason (retry-after, service-unavailable, timeout, ...); `detail` says it for people. */
  readonly entry: SipDestinationInfo & { readonly until: number; readonly reason: string; readonly detail?: string };
  /** enter: the entry's reason; leave: 'cleared', 'expired' or 'evicted' (`entry.reason` says why it was in). */
  readonly reason: string;
}

/** A Call-ID was pinned to a destination (Call-ID affinity). */
export interface AffinityPinEvent {
  readonly callId: string;
  readonly destination: SipDestinationInfo;
  /** 'outgoing': a server answered our request; 'incoming': the far side sent one from there. */
  readonly learned: 'outgoing' | 'incoming';
}

/**
 * @dnscore/sip-bridge refused a SIP message or an incoming connection before the `sip` parser
 * saw it (the UDP datagram was dropped; the TCP connection closed).
 */
export interface SipRejectedEvent {
  /** 'tls' and some 'tcp': on a connection the bridge opened, to a server it sends to. */
  readonly transport: 'udp' | 'tcp' | 'tls';
  /** The far side. */
  readonly address: string;
  readonly port: number;
  /** The limit or rule: 'whitespace-run', 'line-too-long', 'message-too-large', 'connection-limit', ... */
  readonly reason: string;
  /** For people: the limit and what was seen. */
  readonly detail: string;
  /** True when a request was answered 513 Message Too Large. */
  readonly answered: boolean;
}

// ---- The channels --------------------------------------------------------------------------

export const CHANNELS = Object.freeze({
  query: 'dnscore:query',
  fallback: 'dnscore:registry:fallback',
  selected: 'dnscore:registry:selected',
  bogus: 'dnscore:query:bogus',
  cacheHit: 'dnscore:cache:hit',
  cacheMiss: 'dnscore:cache:miss',
  cacheStale: 'dnscore:cache:stale',
  cachePrefetch: 'dnscore:cache:prefetch',
  sipLocate: 'dnscore:sip:locate',
  failover: 'dnscore:sip:failover',
  penalty: 'dnscore:sip:penalty',
  affinity: 'dnscore:sip:affinity',
  sipRejected: 'dnscore:sip:rejected',
} as const);

export const queryChannel: TypedTracingChannel<QueryTraceContext> = diagnostics.tracingChannel(CHANNELS.query);
export const fallbackChannel = channel<FallbackEvent>(CHANNELS.fallback);
export const selectedChannel = channel<SelectedEvent>(CHANNELS.selected);
export const bogusChannel = channel<BogusEvent>(CHANNELS.bogus);
export const cacheHitChannel = channel<CacheHitEvent>(CHANNELS.cacheHit);
export const cacheMissChannel = channel<CacheMissEvent>(CHANNELS.cacheMiss);
export const cacheStaleChannel = channel<CacheStaleEvent>(CHANNELS.cacheStale);
export const cachePrefetchChannel = channel<CachePrefetchEvent>(CHANNELS.cachePrefetch);
export const sipLocateChannel: TypedTracingChannel<SipLocateTraceContext> = diagnostics.tracingChannel(
  CHANNELS.sipLocate,
);
export const failoverChannel = channel<FailoverEvent>(CHANNELS.failover);
export const penaltyChannel = channel<PenaltyEvent>(CHANNELS.penalty);
export const affinityChannel = channel<AffinityPinEvent>(CHANNELS.affinity);
export const sipRejectedChannel = channel<SipRejectedEvent>(CHANNELS.sipRejected);

/**
 * Runs one query under the `dnscore:query` trace (callers check queryChannel.hasSubscribers
 * first): `run` gets the list the registry appends its attempts to.
 */
export function traceQuery(query: DnsQuery, run: (attempts: QueryAttempt[]) => Promise<DnsResult>): Promise<DnsResult> {
  const context: QueryTraceContext = { query, cache: 'miss', attempts: [] };
  return queryChannel.tracePromise(async () => {
    const result = await run(context.attempts);
    context.cache = context.attempts.length === 0 ? 'hit' : 'miss';
    return result;
  }, context);
}
