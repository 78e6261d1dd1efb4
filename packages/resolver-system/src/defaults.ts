/**
 * Named defaults of the system resolver (hickory-dns's ResolverOpts defaults, glibc's
 * resolv.conf defaults). resolv.conf values override the glibc ones; options override both.
 */

/** Asterisk's system resolver registers with INT_MAX: it is tried last. */
export const DEFAULT_SYSTEM_PRIORITY = 2147483647;

/** The plugin's name in the registry. */
export const DEFAULT_SYSTEM_NAME = 'system';

export const DEFAULT_RESOLV_CONF = '/etc/resolv.conf';
export const DEFAULT_HOSTS_FILE = '/etc/hosts';

/** RFC 1035 section 4.2: DNS over UDP and TCP on port 53. */
export const DNS_PORT = 53;

/** glibc's RES_TIMEOUT: 5 s per try of one nameserver. */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** glibc caps `options timeout:` at 30 s (RES_MAXRETRANS). */
export const MAX_RESOLV_CONF_TIMEOUT_S = 30;

/** glibc's RES_DFLRETRY: each nameserver is tried twice. */
export const DEFAULT_ATTEMPTS = 2;
/** glibc caps `options attempts:` at 5 (RES_MAXRETRY). */
export const MAX_RESOLV_CONF_ATTEMPTS = 5;

/** resolv.conf(5): a name with at least one dot is tried as is first. */
export const DEFAULT_NDOTS = 1;
/** resolv.conf(5): ndots is capped at 15. */
export const MAX_NDOTS = 15;

/** glibc reads at most 3 nameservers from resolv.conf (MAXNS); explicit ones are not capped. */
export const MAX_RESOLV_CONF_NAMESERVERS = 3;

/** glibc's fallback when resolv.conf names no nameserver: the local machine. */
export const FALLBACK_NAMESERVER = '127.0.0.1';

/**
 * Queries in flight at once; more wait their turn, so sockets and ports are never exhausted.
 * 256 keeps a loopback resolver and one 20 ms away busy (12,800 answers/s at that distance);
 * each query in flight holds a socket, timers and buffers, and in a burst of 10,000 questions
 * 1,024 of them cost 65 MB more peak RSS and answered no sooner (npm run bench, part 5).
 */
export const DEFAULT_MAX_IN_FLIGHT = 256;

/**
 * EDNS0 UDP payload size (RFC 6891) advertised in queries: 1232 bytes, the DNS Flag Day 2020
 * value, which fits an IPv6 minimum MTU of 1280 without fragments (fragments help spoofing).
 */
export const DEFAULT_UDP_PAYLOAD_SIZE = 1232;
/** RFC 6891 section 6.2.3: values below 512 are treated as 512. */
export const MIN_UDP_PAYLOAD_SIZE = 512;
/** Larger sizes invite IP fragmentation, the off-path poisoning vector: refused. */
export const MAX_UDP_PAYLOAD_SIZE = 4096;
/** RFC 1035 section 4.2.1: without EDNS a UDP message is at most 512 bytes. */
export const CLASSIC_UDP_SIZE = 512;

/** The AD bit is not passed on unless the caller trusts the path to its nameservers. */
export const DEFAULT_TRUST_AD = false;

/** /etc/hosts is read only when asked to. */
export const DEFAULT_USE_HOSTS = false;

/** TTL of answers made from /etc/hosts: 0, so no cache keeps a line that may change. */
export const DEFAULT_HOSTS_TTL = 0;

/** How long a question whose answer did not fit in UDP goes straight to TCP. */
export const DEFAULT_TCP_MEMORY_MS = 600_000;
/** How many such questions are remembered (least recently used are forgotten). */
export const DEFAULT_TCP_MEMORY_SIZE = 1024;
