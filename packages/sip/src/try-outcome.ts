/** The outcome of one try, as the transaction layer saw it; the failover cursor and its policy read it. */
export type TryOutcome =
  /** A response: 1xx means the server is alive; a final one fails over when in the failover set, else ends the walk. */
  | { readonly type: 'response'; readonly status: number; readonly retryAfter?: number }
  /** ICMP error, connection refused or reset, TLS handshake failure. */
  | { readonly type: 'transport-error'; readonly error?: unknown }
  /** No response at all within the try's timer (the per-target timer, capped by the transaction bound). */
  | { readonly type: 'timeout' };
