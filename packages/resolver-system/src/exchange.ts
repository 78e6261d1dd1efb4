/** What one try (one nameserver, one transport) needs and how it ends. */
import type { DnsError, DnsQuery, Timers, WireMessage } from '@dnscore/core/plugin';
import type { ServerAddress } from './server-address.js';
import type { SystemResolverStats } from './stats.js';

export interface ExchangeContext {
  readonly server: ServerAddress;
  readonly query: DnsQuery;
  readonly timeoutMs: number;
  readonly timers: Timers;
  readonly stats: SystemResolverStats;
  /** Aborting releases the socket and the timer at once; the try rejects with AbortError. */
  readonly signal: AbortSignal;
  /** EDNS0 payload size to advertise; no OPT record when undefined. */
  readonly udpPayloadSize: number | undefined;
  /** Set AD in the query (asked only when the AD bit is trusted). */
  readonly ad: boolean;
  readonly rd: boolean;
}

export type ExchangeOutcome =
  | { readonly kind: 'answer'; readonly packet: Uint8Array; readonly message: WireMessage }
  /** The UDP answer did not fit (TC set, or larger than advertised): ask over TCP. */
  | { readonly kind: 'truncated' }
  /** No acceptable answer in time; `dropped` messages were refused meanwhile. */
  | { readonly kind: 'timeout'; readonly dropped: number }
  | { readonly kind: 'failed'; readonly error: DnsError };
