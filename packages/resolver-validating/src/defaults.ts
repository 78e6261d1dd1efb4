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

/**
 * Signed zone cuts the chain of trust walks through from a trust anchor down to one zone. Each
 * costs a DS and a DNSKEY question and their signature checks, and a zone's owner decides how
 * many there are below it: without a bound, a hostile or broken tree (a signed cut at every label
 * of a 127-label name) makes one question cost hundreds of questions and checks, cached per
 * name so each new name costs them again. Real chains are short: root, TLD, a registrant's zone
 * and a few delegations below it; reverse ip6.arpa zones cut at nibble boundaries add a handful
 * (/32, /48, /56, /64). 32 is four times the deepest of those, as unbound bounds its own walks by
 * fixed counts (max-query-restarts 11; MAX_REFERRAL_COUNT 130 referrals per query, in steps that
 * each walk one cut), instead of trusting the data to end.
 */
export const DEFAULT_MAX_ZONE_CUTS = 32;

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

/** Validated answers kept at once (the core cache's default size): 0 keeps none. */
export const DEFAULT_ANSWER_CACHE_SIZE = 10_000;

/**
 * Bytes the validated answers may take (packets and keys, with a fixed overhead each): an
 * upstream that sends 64 KiB answers fills it with 256 of them, not with 10,000.
 */
export const DEFAULT_ANSWER_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * Seconds a bogus answer is kept (RFC 9520: validation failures must be cached, for at
 * least a second and at most five minutes): long enough that a flood of one bogus question
 * costs one validation, not one per question (the signature checks are the CPU an attacker aims
 * at); short enough that a cause that passes (a chain question that timed out is kept
 * UNANSWERED_TTL_S) is not kept longer than itself. The zone-wide failures are kept longer,
 * BOGUS_TTL_S, by the chain of trust.
 */
export const BOGUS_ANSWER_TTL_S = 5;

/** The `server` of the `dnscore:query` trace for an answer taken from the validated answers. */
export const ANSWER_CACHE_SOURCE = 'validated-answer cache';
