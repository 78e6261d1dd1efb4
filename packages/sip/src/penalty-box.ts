/**
 * The penalty box: an address:port:transport that failed is tried last for a while (Kamailio's
 * dst_blocklist, reSIProcate's TupleMarkManager, PJSIP's failed-server list). Each entry keeps
 * its reason. How long each reason keeps a server out is the failover policy's choice; the box
 * clamps every duration (a hostile Retry-After cannot ban a server for ever) and keeps entries
 * in a PenaltyStore (this process's memory by default). Entries expire on their own; the
 * `leave` event of an expiry comes at the first read of the box after it (no timers: the box
 * is read whenever targets are ordered, which is when an expiry starts to matter).
 */
import { InvalidArgumentError, checkNonNegativeNumber, systemClock, type Clock } from '@dnscore/core';
import { penaltyChannel } from '@dnscore/core/diagnostics';
import { DEFAULT_MAX_RETRY_AFTER_S, DEFAULT_PENALTY_MS } from './defaults.js';
import { normalizeAddress } from './host.js';
import { MemoryPenaltyStore, type PenaltyEntry, type PenaltyReason, type PenaltyStore } from './penalty-store.js';
import { isSipTransport, type SipTransport } from './transport.js';

const REASONS: ReadonlySet<string> = new Set<PenaltyReason>([
  'retry-after',
  'service-unavailable',
  'failover-response',
  'timeout',
  'transport-error',
  'manual',
]);

export interface PenaltyBoxOptions {
  /** Time in the box when a mark gives neither Retry-After nor a duration, ms (default 60 s). */
  readonly penaltyMs?: number;
  /** Cap on any time in the box, in seconds, Retry-After included (default 300). */
  readonly maxRetryAfter?: number;
  /** Entries kept at most by the default store (default 4096); the one ending first goes beyond this. */
  readonly maxEntries?: number;
  /** Where entries live (default: a MemoryPenaltyStore on `clock`). */
  readonly store?: PenaltyStore;
  readonly clock?: Clock;
}

/** What identifies a server: where and how requests reach it. */
export interface Destination {
  readonly transport: SipTransport;
  readonly address: string;
  readonly port: number;
}

export interface MarkOptions {
  /** Seconds from a 503's Retry-After; clamped to maxRetryAfter. */
  readonly retryAfter?: number;
  /** An explicit time in the box, ms; clamped to maxRetryAfter too. */
  readonly durationMs?: number;
  /** Why (default 'manual'). */
  readonly reason?: PenaltyReason;
  /** What happened, for people (default: the reason). */
  readonly detail?: string;
}

export class PenaltyBox {
  readonly penaltyMs: number;
  readonly maxMs: number;
  readonly store: PenaltyStore;
  readonly #clock: Clock;

  constructor(options: PenaltyBoxOptions = {}) {
    this.penaltyMs = checkNonNegativeNumber(options.penaltyMs ?? DEFAULT_PENALTY_MS, 'penaltyMs');
    this.maxMs = checkNonNegativeNumber(options.maxRetryAfter ?? DEFAULT_MAX_RETRY_AFTER_S, 'maxRetryAfter') * 1000;
    this.#clock = options.clock ?? systemClock;
    const { store } = options;
    if (store !== undefined && !isStore(store))
      throw new InvalidArgumentError('a penalty store needs get, mark, clear and entries');
    this.store =
      store ??
      new MemoryPenaltyStore({
        clock: this.#clock,
        ...(options.maxEntries !== undefined ? { maxEntries: options.maxEntries } : {}),
      });
    this.store.watchLeaves?.((entry, reason) => {
      if (penaltyChannel.hasSubscribers) penaltyChannel.publish({ event: 'leave', entry, reason });
    });
  }

  /**
   * Puts a destination in the box (an operator's "add" too): for the Retry-After when given (a
   * 503), else for an explicit duration, else for the default; never longer than the cap. An
   * entry already there that ends later stays as it is.
   */
  markFailed(destination: Destination, options: MarkOptions = {}): PenaltyEntry {
    const normalized = normalizeDestination(destination);
    const { retryAfter, durationMs } = options;
    if (retryAfter !== undefined) checkNonNegativeNumber(retryAfter, 'Retry-After', 'seconds');
    if (durationMs !== undefined) checkNonNegativeNumber(durationMs, 'a penalty duration', 'ms');
    const reason = options.reason ?? 'manual';
    if (!REASONS.has(reason))
      throw new InvalidArgumentError(`unknown penalty reason "${String(reason)}" (${[...REASONS].join(', ')})`);
    const wanted = retryAfter !== undefined ? retryAfter * 1000 : (durationMs ?? this.penaltyMs);
    const entry: PenaltyEntry = Object.freeze({
      ...normalized,
      until: this.#clock.now() + Math.min(wanted, this.maxMs),
      reason,
      detail: options.detail ?? reason,
    });
    const stored = this.store.mark(keyOf(normalized), entry);
    if (penaltyChannel.hasSubscribers) penaltyChannel.publish({ event: 'enter', entry: stored, reason: stored.reason });
    return stored;
  }

  /** True while the destination is in the box. */
  isPenalized(destination: Destination): boolean {
    return this.get(destination) !== undefined;
  }

  /** The entry (target, reason, until) while it lasts. */
  get(destination: Destination): PenaltyEntry | undefined {
    return this.store.get(destinationKey(destination));
  }

  /** Takes a destination out (it answered, or an operator removed it). Returns whether it was in. */
  clear(destination: Destination): boolean {
    return cleared(this.store.clear(destinationKey(destination)));
  }

  /** Empties the box. */
  clearAll(): void {
    for (const entry of this.store.entries()) cleared(this.store.clear(keyOf(entry)));
  }

  /** Entries in the box now, ending first first: the operator's list. */
  entries(): PenaltyEntry[] {
    return [...this.store.entries()].sort((a, b) => a.until - b.until);
  }

  get size(): number {
    return this.store.entries().length;
  }
}

/** Says an entry taken out (only while someone listens); true when there was one. */
function cleared(entry: PenaltyEntry | undefined): boolean {
  if (entry && penaltyChannel.hasSubscribers) penaltyChannel.publish({ event: 'leave', entry, reason: 'cleared' });
  return entry !== undefined;
}

/** "udp 203.0.113.11 5060": the identity of a destination, address normalized. */
export function destinationKey(destination: Destination): string {
  return keyOf(normalizeDestination(destination));
}

function keyOf(d: Destination): string {
  return `${d.transport} ${d.address} ${d.port}`;
}

function isStore(store: PenaltyStore): boolean {
  return (
    typeof store === 'object' &&
    store !== null &&
    ['get', 'mark', 'clear', 'entries'].every(
      (m) => typeof (store as unknown as Record<string, unknown>)[m] === 'function',
    )
  );
}

/**
 * The destination with a known transport, an RFC 5952 address and a valid port; throws
 * InvalidArgumentError otherwise.
 */
export function normalizeDestination(destination: Destination): Destination {
  if (!destination || typeof destination !== 'object')
    throw new InvalidArgumentError('a destination needs transport, address and port');
  const transport = String(destination.transport).toLowerCase();
  if (!isSipTransport(transport))
    throw new InvalidArgumentError(`unknown transport "${String(destination.transport)}" (udp, tcp, tls)`);
  const parsed = normalizeAddress(destination.address);
  if (!parsed) throw new InvalidArgumentError(`"${String(destination.address)}" is not an IP address`);
  const { port } = destination;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new InvalidArgumentError(`port ${String(port)} is outside 1..65535`);
  return { transport, address: ipv4Node(parsed.address), port };
}

/**
 * An IPv4-mapped IPv6 address names an IPv4 node (RFC 4291 section 2.5.5.2): a dual-stack
 * socket reports an IPv4 peer as ::ffff:192.0.2.1, so one server has one key whichever way it
 * was reached.
 */
function ipv4Node(address: string): string {
  const mapped = /^::ffff:([0-9.]+)$/.exec(address);
  return mapped ? mapped[1]! : address;
}
