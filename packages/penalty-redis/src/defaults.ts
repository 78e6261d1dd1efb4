/** Defaults of the shared penalty store. */

/** Keys and the channel start with this unless a fleet names its own. */
export const DEFAULT_PREFIX = 'dnscore:';
/** Cap on a duration from Redis or a peer: the penalty box's Retry-After cap (300 s). */
export const DEFAULT_MAX_REMOTE_MS = 300_000;
/** Entries kept locally (the in-memory box's default). */
export const DEFAULT_PENALTY_MAX_ENTRIES = 4_096;
/** Shares waiting on Redis at most; a slow Redis costs memory no further. */
export const DEFAULT_MAX_IN_FLIGHT = 1_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
/** Redis answers in a millisecond; a command or handshake waiting this long means it will not answer. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
export const DEFAULT_RECONNECT_MIN_MS = 100;
export const DEFAULT_RECONNECT_MAX_MS = 5_000;
