/**
 * The defaults of @dnscore/serve, each named and explained once: the server's limits (every
 * one is a bound on what a hostile client can make it do) and the thresholds of the check.
 */

/** The server binds loopback unless told otherwise: the page is for the person at this machine. */
export const DEFAULT_HOST = '127.0.0.1';
/** Port of `dnscore serve` without --port. */
export const DEFAULT_PORT = 8053;

/** Longest request target (path and query), bytes: a SIP URI is at most a few hundred. */
export const MAX_REQUEST_TARGET_BYTES = 4_096;
/** Longest SIP URI or check target accepted by the API. */
export const MAX_API_URI_LENGTH = 1_024;
/** Largest JSON body (it carries the zone text), bytes. */
export const MAX_BODY_BYTES = 96 * 1024;
/** Largest zone text, characters. */
export const MAX_ZONE_TEXT = 64 * 1024;
/** Most records a zone text may hold. */
export const MAX_ZONE_RECORDS = 2_000;
/** Largest header block, bytes (node's maxHeaderSize; node answers 431 above it). */
export const MAX_HEADER_BYTES = 8 * 1024;
/** Time to receive the whole header block (slowloris), ms. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Time to receive a whole request, body included, ms. */
export const REQUEST_TIMEOUT_MS = 20_000;
/** An idle keep-alive connection is closed after this long, ms. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/**
 * Most connections served at once: a request on one more is answered 503 (with Retry-After); past
 * twice as many, a new connection is closed before it is read.
 */
export const MAX_CONNECTIONS = 64;
/** Requests on one keep-alive connection: the last is answered with Connection: close. */
export const MAX_REQUESTS_PER_CONNECTION = 100;
/** Most draws of one share chart. */
export const MAX_DRAWS = 10_000;
/** Draws of a share chart unless asked. */
export const DEFAULT_DRAWS = 1_000;
/** API requests per client address per second, sustained, and the burst above it. */
export const RATE_PER_SECOND = 10;
export const RATE_BURST = 40;
/** Most requests in one simulated failover run, and targets taken down. */
export const MAX_SIMULATED_REQUESTS = 5;
export const MAX_DOWN_TARGETS = 64;
/** Time one API call may take before it is cancelled, ms (a silent upstream DNS server). */
export const API_TIMEOUT_MS = 15_000;

/** RFC 3261 section 17.1.1.1: T1, the first retransmission interval over UDP. */
export const T1_MS = 500;
/** RFC 3261 section 17.1.1.2: Timer B = 64 * T1 = 32 s, the INVITE transaction timeout. */
export const TIMER_B_MS = 64 * T1_MS;

/** A TTL below this makes caches nearly useless: almost every request waits for the DNS (s). */
export const SHORT_TTL_S = 60;
/** A TTL above this makes a change of servers (a failover by DNS) reach clients late (s). */
export const LONG_TTL_S = 86_400;
/** Most SRV names and target host names the check asks about. */
export const MAX_CHECK_SRV_NAMES = 16;
export const MAX_CHECK_HOSTS = 64;
