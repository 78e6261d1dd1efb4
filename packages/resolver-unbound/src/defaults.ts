/**
 * The defaults of @dnscore/resolver-unbound, one named constant each, with the reason for it.
 * Numbers measured on this project's machines are in the README ("Speed and threads").
 */

/** Registry priority, as Asterisk's res_resolver_unbound (lower is tried first). */
export const DEFAULT_UNBOUND_PRIORITY = 100;

/** Plugin name in the registry. */
export const DEFAULT_UNBOUND_NAME = 'unbound';

/** Hosts file read by default ("system" in Asterisk's resolver_unbound.conf). */
export const DEFAULT_HOSTS_FILE = '/etc/hosts';

/** resolv.conf read by default when no `nameservers` are given: its nameservers become forwarders. */
export const DEFAULT_RESOLV_CONF = '/etc/resolv.conf';

// The root trust anchors are the core's (both root KSKs, read from dns-root-data's root.ds):
// every validating backend starts from the same ones.
export {
  BUILT_IN_ROOT_ANCHORS,
  DEFAULT_ROOT_DS_FILE,
  ROOT_KSK_2017_DS,
  ROOT_KSK_2024_DS,
} from '@dnscore/core/plugin';

/**
 * libunbound's `infra-cache-max-rtt` in ms (libunbound's own default is 120000). With it, a
 * dead upstream answers SERVFAIL after about 2.3 s instead of 17 s (measured: 1000 ms -> 2.3 s,
 * 2000 ms -> 5.3 s, 120000 ms -> 17.3 s), so a question to it waits that long at most.
 * Still above any real round trip on the Internet.
 */
export const DEFAULT_INFRA_CACHE_MAX_RTT_MS = 1000;

/**
 * libunbound's `infra-host-ttl` in seconds (libunbound's own default is 900): how long a server
 * that timed out stays "down". Measured: after a 2-second outage of the only stub server,
 * libunbound answered SERVFAIL for over 200 s with 900 (not probing it again), and recovered
 * after 59 s with 60. RTT and EDNS facts are learnt again as often: a few queries a minute.
 */
export const DEFAULT_INFRA_HOST_TTL_S = 60;

/**
 * libunbound's `qname-minimisation` (RFC 9156), libunbound's own default: only the labels
 * each server needs are sent. In stub mode it costs extra round trips on a cold lookup; set
 * `qnameMinimisation: false` when the stub servers are your own.
 */
export const DEFAULT_QNAME_MINIMISATION = true;

/**
 * Questions handed to libunbound at once (`maxInFlight`); later ones wait their turn. libunbound
 * holds each in its mesh on its own thread (no thread per question), so the bound is for memory
 * and sockets: a burst of 1,000 distinct questions goes out at once.
 */
export const DEFAULT_MAX_IN_FLIGHT = 1024;

/**
 * libunbound contexts per resolver (`threads`), each with its own resolver thread, event base,
 * mesh and cache; questions are spread over them by a hash of the question. One by default: one
 * cache, and one DNSKEY query per trust anchor however many questions wait. More spread a burst
 * of distinct cold questions over more cores (each cold question costs its thread tens of
 * microseconds of system calls: a socket of its own, bind, connect, send, receive, close), at the
 * price of a cache per context: each learns delegations, server RTTs and DNSSEC keys on its own.
 */
export const DEFAULT_THREADS = 1;

/** The most `threads` accepted: beyond the machine's cores they only split the cache further. */
export const MAX_THREADS = 16;

/**
 * libunbound's `outgoing-range` (sockets for queries on the wire at once). libunbound as a
 * library defaults to 16: measured with a prototype, 200 distinct questions took 674 ms at 16
 * and 75 ms at 256 against a server 50 ms away. Sockets are opened per query, not up front.
 */
export const DEFAULT_OUTGOING_RANGE = 1024;

/**
 * libunbound's `num-queries-per-thread` (questions its mesh works on at once; as a library it
 * defaults to 30, and questions beyond wait in its queue). Sized with DEFAULT_MAX_IN_FLIGHT.
 */
export const DEFAULT_NUM_QUERIES_PER_THREAD = 1024;

/**
 * libunbound's `outgoing-num-tcp` (TCP and TLS streams open at once; as a library it allows 2,
 * where unbound the server allows 10). Each stream carries up to 200 queries at once
 * (max-reuse-tcp-queries); a query that finds every stream full makes libunbound close the
 * oldest one, with the queries on it, to open its own (pending_tcp_query). Measured over
 * tcp-upstream: of 1,000 questions at once, 600 failed with SERVFAIL with 2 streams, none with
 * 6, 10 or 16. With 10, the streams carry 2,000 queries, past DEFAULT_MAX_IN_FLIGHT.
 */
export const DEFAULT_OUTGOING_NUM_TCP = 10;

/**
 * libunbound's `module-config` when no trust anchor is given at all (`trustAnchors: []`, no anchor
 * file, no anchor among `options`): the iterator alone. Without an anchor the validator marks
 * every answer insecure and changes nothing else (the same answer packets, RRSIGs included), yet
 * costs each question about 10,000 instructions of libunbound's: 13% of its user-space work in a
 * burst of 1,000 cold questions (callgrind). `options: { 'module-config': ... }` still wins.
 */
export const NO_ANCHOR_MODULE_CONFIG = 'iterator';

/**
 * A name that is never a local zone: removing it makes libunbound finalize its configuration
 * (and report a bad option) at construction, without changing any zone.
 */
export const FINALIZE_PROBE_ZONE = 'dnscore-finalize-probe.invalid.';

/**
 * libunbound's harden-algo-downgrade, on by default: of a DS RRset, only the strongest digest
 * type is used (a correct SHA-1 DS beside a wrong SHA-256 one is bogus, as RFC 4509 section 3
 * says a validator SHOULD), and a zone must be signed with every algorithm its DS lists.
 */
export const DEFAULT_HARDEN_ALGO_DOWNGRADE = true;
