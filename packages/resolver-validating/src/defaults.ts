/**
 * The defaults of @dnscore/resolver-validating, one named constant each, with the reason for it.
 */

/** Registry name. */
export const DEFAULT_VALIDATING_NAME = 'validating';

/**
 * Registry priority: after libunbound (100) and before the system backend (2147483647), so
 * the automatic choice is libunbound, then this backend where libunbound is missing, then the
 * non-validating system backend.
 */
export const DEFAULT_VALIDATING_PRIORITY = 1000;

/**
 * CNAME and DNAME links followed for one question, the upstream's chain and the links this
 * backend asks for itself (unbound's max CNAME chain is 11; 8 is glibc's and hickory-dns's).
 */
export const DEFAULT_MAX_CHAIN_LINKS = 8;

/** Zones whose DNSKEY and DS verdicts are kept at once; the oldest is dropped beyond. */
export const DEFAULT_KEY_CACHE_SIZE = 4096;

/**
 * Seconds a bogus DNSKEY or DS verdict is kept (unbound's val-bogus-ttl is 60): long enough
 * that a broken zone is not asked again for every question, short enough that a fix is seen.
 */
export const BOGUS_TTL_S = 60;

/** Upper bound on how long any verdict is kept, whatever the TTLs say (unbound's cache-max-ttl is a day). */
export const MAX_VERDICT_TTL_S = 86_400;

/** Seconds a chain question that got no answer (timeout) keeps its zone bogus before it is asked again. */
export const UNANSWERED_TTL_S = 5;
