/**
 * The penalty box: an address:port:transport that failed is tried last for a while (Kamailio's
 * dst_blocklist, reSIProcate's TupleMarkManager, PJSIP's failed-server list). A 503's
 * Retry-After sets the time, clamped so a hostile 503 cannot ban a server for ever. Entries
 * expire on their own (read against the clock); nothing needs clearing.
 */
import {
  InvalidArgumentError,
  checkNonNegativeNumber,
  checkPositiveInteger,
  systemClock,
  type Clock,
} from '@dnscore/core';
import { penaltyChannel } from '@dnscore/core/diagnostics';
import { DEFAULT_MAX_RETRY_AFTER_S, DEFAULT_PENALTY_MAX_ENTRIES, DEFAULT_PENALTY_MS } from './defaults.js';
import { normalizeAddress } from './host.js';
import { isSipTransport, type SipTransport } from './transport.js';

export interface PenaltyBoxOptions {
  /** Time in the box without a Retry-After, ms (default 60 s). */
  readonly penaltyMs?: number;
  /** Cap on any time in the box, in seconds, Retry-After included (default 300). */
  readonly maxRetryAfter?: number;
  /** Entries kept at most (default 4096); the one ending first goes beyond this. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

/** What identifies a server: where and how requests reach it. */
export interface Destination {
  readonly transport: SipTransport;
  readonly address: string;
  readonly port: number;
}

export interface PenaltyEntry extends Destination {
  /** Clock time (ms) when it leaves the box. */
  readonly until: number;
  readonly reason: string;
}

export interface MarkOptions {
  /** Seconds from a 503's Retry-After; clamped to maxRetryAfter. */
  readonly retryAfter?: number;
  /** An explicit time in the box, ms; clamped to maxRetryAfter too. */
  readonly durationMs?: number;
  readonly reason?: string;
}

export class PenaltyBox {
  readonly penaltyMs: number;
  readonly maxMs: number;
  readonly #maxEntries: number;
  readonly #clock: Clock;
  readonly #entries = new Map<string, PenaltyEntry>();

  constructor(options: PenaltyBoxOptions = {}) {
    this.penaltyMs = checkNonNegativeNumber(options.penaltyMs ?? DEFAULT_PENALTY_MS, 'penaltyMs');
    this.maxMs = checkNonNegativeNumber(options.maxRetryAfter ?? DEFAULT_MAX_RETRY_AFTER_S, 'maxRetryAfter') * 1000;
    this.#maxEntries = checkPositiveInteger(
      options.maxEntries ?? DEFAULT_PENALTY_MAX_ENTRIES,
      'penalty box maxEntries',
    );
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Puts a destination in the box: for the Retry-After when given (a 503), else for an explicit
   * duration, else for the default; never longer than the cap. An entry already there keeps the
   * later end.
   */
  markFailed(destination: Destination, options: MarkOptions = {}): PenaltyEntry {
    const key = destinationKey(destination);
    const { retryAfter, durationMs } = options;
    if (retryAfter !== undefined) checkNonNegativeNumber(retryAfter, 'Retry-After', 'seconds');
    if (durationMs !== undefined) checkNonNegativeNumber(durationMs, 'a penalty duration', 'ms');
    const wanted = retryAfter !== undefined ? retryAfter * 1000 : (durationMs ?? this.penaltyMs);
    const now = this.#clock.now();
    const previous = this.#live(key, now);
    const until = Math.max(previous?.until ?? 0, now + Math.min(wanted, this.maxMs));
    const entry: PenaltyEntry = Object.freeze({
      ...normalizeDestination(destination),
      until,
      reason: options.reason ?? 'failed',
    });
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    this.#trim(now);
    if (penaltyChannel.hasSubscribers) penaltyChannel.publish({ event: 'enter', entry, reason: entry.reason });
    return entry;
  }

  /** True while the destination is in the box. */
  isPenalized(destination: Destination): boolean {
    return this.#live(destinationKey(destination), this.#clock.now()) !== undefined;
  }

  /** The entry while it lasts. */
  get(destination: Destination): PenaltyEntry | undefined {
    return this.#live(destinationKey(destination), this.#clock.now());
  }

  /** Takes a destination out (it answered). Returns whether it was in. */
  clear(destination: Destination): boolean {
    const key = destinationKey(destination);
    const entry = this.#live(key, this.#clock.now());
    this.#entries.delete(key);
    if (entry && penaltyChannel.hasSubscribers) penaltyChannel.publish({ event: 'leave', entry, reason: 'answered' });
    return entry !== undefined;
  }

  /** Empties the box. */
  clearAll(): void {
    this.#entries.clear();
  }

  /** Entries in the box now, ending first first. */
  entries(): PenaltyEntry[] {
    this.#trim(this.#clock.now());
    return [...this.#entries.values()].sort((a, b) => a.until - b.until);
  }

  get size(): number {
    return this.entries().length;
  }

  #live(key: string, now: number): PenaltyEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.until <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #trim(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.until <= now) this.#entries.delete(key);
    while (this.#entries.size > this.#maxEntries) {
      let first: [string, PenaltyEntry] | undefined;
      for (const pair of this.#entries) if (!first || pair[1].until < first[1].until) first = pair;
      this.#entries.delete(first![0]);
    }
  }
}

/** "udp 203.0.113.11 5060": the identity of a destination, address normalized. */
export function destinationKey(destination: Destination): string {
  const d = normalizeDestination(destination);
  return `${d.transport} ${d.address} ${d.port}`;
}

/** The destination with a known transport, an RFC 5952 address and a valid port; throws InvalidArgumentError otherwise. */
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
  return { transport, address: parsed.address, port };
}
