/** What one try (one nameserver, one transport) needs and how it ends. */
import type { Abortable, DnsError, DnsQuery, MessageSummary, Timers } from '@dnscore/core/plugin';
import type { WireName } from './wire.js';
import { randomQueryId } from './query-id.js';
import type { ServerAddress } from './server-address.js';
import type { SystemResolverStats } from './stats.js';
import type { UdpSockets } from './udp-sockets.js';
import { encodeQuery } from './wire.js';

export interface ExchangeContext {
  readonly server: ServerAddress;
  readonly query: DnsQuery;
  readonly timeoutMs: number;
  readonly timers: Timers;
  readonly stats: SystemResolverStats;
  /**
   * Aborting releases the socket and the timer at once; the try rejects with AbortError. An
   * AbortSignal or the shared query's LazyAbort (no AbortController per query in flight).
   */
  readonly signal: Abortable;
  /** EDNS0 payload size to advertise; no OPT record when undefined. */
  readonly udpPayloadSize: number | undefined;
  /** Set AD in the query (asked only when the AD bit is trusted). */
  readonly ad: boolean;
  readonly rd: boolean;
  /** DO and CD: the DNSSEC records, unvalidated. */
  readonly dnssecRecords?: boolean;
  /** The UDP sockets this try shares with the other queries in flight. */
  readonly udpSockets: UdpSockets;
  /** The query name as sent, in randomized case (0x20) and wire form; the answer must echo it exactly. */
  readonly sentName?: WireName | undefined;
}

export type ExchangeOutcome =
  /** `summary`: the header bits the walk needs; the packet itself is parsed by the core. */
  | { readonly kind: 'answer'; readonly packet: Uint8Array; readonly summary: MessageSummary }
  /** The UDP answer did not fit (TC set, or larger than advertised): ask over TCP. */
  | { readonly kind: 'truncated' }
  /** No acceptable answer in time: `dropped` messages refused, `caseMismatch` of them for the name's case. */
  | { readonly kind: 'timeout'; readonly dropped: number; readonly caseMismatch?: number }
  | { readonly kind: 'failed'; readonly error: DnsError };

/** Who hears how a try ended, once: its outcome, or the abort (or start failure) that ended it. */
export interface TrySettle {
  settled(outcome: ExchangeOutcome): void;
  aborted(error: unknown): void;
}

/**
 * The query packet of one try and its ID: a fresh crypto-random one (RFC 5452: a new ID per
 * try), or `id` when the shared UDP socket drew it.
 */
export function newQueryPacket(
  context: ExchangeContext,
  id: number = randomQueryId(),
): { readonly id: number; readonly packet: Uint8Array } {
  // One options object, no spreads: this runs for every try.
  const dnssec = context.dnssecRecords === true;
  const packet = encodeQuery(context.query, {
    id,
    name: context.sentName,
    rd: context.rd,
    ad: context.ad,
    dnssecOk: dnssec,
    checkingDisabled: dnssec,
    udpPayloadSize: context.udpPayloadSize,
  });
  return { id, packet };
}
