/** Defaults of @dnscore/node-dns, named. */

/** lookup: no timeout of its own; the backend's timeouts apply (as with getaddrinfo). */
export const DEFAULT_LOOKUP_TIMEOUT_MS: number | undefined = undefined;

/** lookup: addresses need not be DNSSEC-secure. */
export const DEFAULT_REQUIRE_SECURE = false;

/** Resolver: -1 is node:dns's "the default", here the backend's own timeouts. */
export const DEFAULT_RESOLVER_TIMEOUT_MS = -1;

/** lookup: A and AAAA answers kept for their TTL, at most this many (a warm lookup reads them without a promise). */
export const DEFAULT_RESULT_MEMO_ENTRIES = 1000;
