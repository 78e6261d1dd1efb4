/**
 * The defaults of @dnscore/sip, each named and explained once. Options of the locator, the
 * failover cursor, the penalty box and the affinity tables fall back to these.
 */
import type { SipTransport } from './transport.js';

/** Transports a client supports unless told otherwise (`dnscore sip --transports`). */
export const DEFAULT_TRANSPORTS: readonly SipTransport[] = Object.freeze(['udp', 'tcp', 'tls']);

/** AAAA targets before A targets of the same host when IPv6 is on (PJSIP's "slight adjustment"). */
export const DEFAULT_PREFER_IPV6 = true;

/** No DNSSEC check by default (each target still reports its status): most SIP zones are unsigned. */
export const DEFAULT_DNSSEC_POLICY = 'off';

/** Most targets a resolution returns: PJSIP_MAX_RESOLVED_ADDRESSES with IPv6. */
export const DEFAULT_MAX_TARGETS = 32;

/** Longest CNAME chain followed from an SRV target or a host name before giving up. */
export const DEFAULT_MAX_CNAME_HOPS = 8;

/** Most usable NAPTR records of one order followed (each costs an SRV query): a bound on fan-out. */
export const DEFAULT_MAX_NAPTR_RECORDS = 16;

/** Most records of one SRV answer expanded to addresses (each may cost A and AAAA queries). */
export const DEFAULT_MAX_SRV_RECORDS = 16;

/**
 * DNS queries one resolution may make: the bounds above hold one by one but not their product
 * (16 NAPTR x 16 SRV x 2 families x 8 CNAME hops); a common resolution makes 2 to 10.
 */
export const DEFAULT_MAX_QUERIES = 128;

/**
 * How long one resolution may take, ms: a few rounds of the system backend's timeouts, and
 * room for a burst queued behind its in-flight bound (10,000 resolutions at once take ~30 s).
 */
export const DEFAULT_MAX_RESOLUTION_MS = 60_000;

/**
 * Per-target timer: how long a try may go without any response before the cursor moves on.
 * RFC 3263 section 4.3 counts Timer B/F (32 s) as failure; waiting 32 s per dead server is what
 * users complain about (pjproject#4477, linphone-sdk#447), so the cursor gives up earlier.
 */
export const DEFAULT_TARGET_TIMEOUT_MS = 6_000;

/** RFC 3261 section 17.1.1.1: T1, the round-trip time estimate (500 ms). */
export const T1_MS = 500;

/**
 * The bound on a whole request's failover: 64*T1 = 32 s, Timer B for an INVITE and Timer F for
 * any other request (RFC 3261 sections 17.1.1.2 and 17.1.2.2). No try starts after it, and a
 * try's timer never runs past it.
 */
export const DEFAULT_TRANSACTION_TIMEOUT_MS = 64 * T1_MS;

/**
 * Final responses that move to the next target: 503 only (RFC 3263 section 4.3). Timeouts and
 * transport errors always do; other codes (500, 504, 408) are the operator's choice.
 */
export const DEFAULT_FAILOVER_ON: readonly number[] = Object.freeze([503]);

/**
 * How long a failed address:port:transport is tried last for the reasons boxed by default (an
 * INVITE without any response, a transport error) and for a manual mark: a minute, as the
 * Siemens HiPath 8000 does after a failover and Kamailio's dst_blocklist_expire.
 */
export const DEFAULT_PENALTY_MS = 60_000;

/**
 * NAPTR memory (naptr-memory.ts): within one request, a NAPTR whose targets all failed is passed
 * over for the next of the same order; it is not remembered across requests unless asked
 * ('ttl'): the penalty box already keeps its servers out for the policy's durations, and a
 * NAPTR's TTL (often hours) would keep a server that is back unused and a forced move off TLS in
 * place for that long (kamailio#4911: shared NAPTR failover state failed every call).
 */
export const DEFAULT_NAPTR_MEMORY = 'request';

/** Remembered NAPTRs kept at most; the one ending first is dropped beyond this. */
export const DEFAULT_NAPTR_MEMORY_MAX_ENTRIES = 4_096;

/** Cap on a 503's Retry-After (seconds): a hostile 503 must not ban a server for ever. */
export const DEFAULT_MAX_RETRY_AFTER_S = 300;

/** Penalty box entries kept at most; the one ending first is dropped beyond this. */
export const DEFAULT_PENALTY_MAX_ENTRIES = 4_096;

/** Call-ID affinity lives this long after the last request of the dialog (IPVS `-p 180`). */
export const DEFAULT_CALL_ID_PERSISTENCE_MS = 180_000;

/** Call-IDs remembered at most; the least recently used is forgotten beyond this. */
export const DEFAULT_CALL_ID_MAX_ENTRIES = 100_000;

/** Longer Call-IDs get no affinity (IPVS refuses those over IP_VS_PEDATA_MAXLEN, 255). */
export const MAX_CALL_ID_LENGTH = 255;

/**
 * Transaction affinity lives this long after its last use: Timer C (more than 3 minutes, RFC
 * 3261 section 16.6) plus Timer D (32 s), the longest an INVITE transaction still needs its target.
 */
export const DEFAULT_TRANSACTION_AFFINITY_MS = 212_000;

/** Transactions remembered at most; the least recently used is forgotten beyond this. */
export const DEFAULT_TRANSACTION_MAX_ENTRIES = 100_000;

/**
 * RFC 3261 section 18.1.1: a request larger than 1300 bytes (path MTU unknown) MUST go over a
 * congestion-controlled transport: TCP to the same address and port.
 */
export const DEFAULT_MAX_UDP_REQUEST_BYTES = 1300;

/**
 * Without NAPTR, the SRV owners of the supported transports are listed in this order: TLS
 * first (security better than none, RFC 3263 section 6), then TCP (no 1300-byte limit), then
 * UDP. RFC 3263 section 4.1 lets the client pick any transport the server supports.
 */
export const SRV_TRANSPORT_ORDER: readonly SipTransport[] = Object.freeze(['tls', 'tcp', 'udp']);
