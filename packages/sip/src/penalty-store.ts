/**
 * Where penalty box entries live. The box decides what goes in and for how long; a store only
 * keeps entries until they end. The default keeps them in this process; a shared store (Redis,
 * issue 19) implements the same four calls. Reads stay synchronous: the SIP path must never
 * wait for a network store, so a shared store answers from a local copy and shares in the
 * background.
 */
import { checkPositiveInteger, systemClock, type Clock } from '@dnscore/core';
import { DEFAULT_PENALTY_MAX_ENTRIES } from './defaults.js';
import type { SipTransport } from './transport.js';

/** Why a destination is in the box; each reason has its own duration in the failover policy. */
export type PenaltyReason =
  /** A 503 with Retry-After: for that long (RFC 3261 section 21.5.4), clamped. */
  | 'retry-after'
  /** A 503 without Retry-After ("as if it had received a 500", RFC 3261 section 21.5.4). */
  | 'service-unavailable'
  /** Another final response of the failover set (500, 504, 408, ...). */
  | 'failover-response'
  /** No response within the per-target timer (RFC 3263 section 4.3: a transaction timeout). */
  | 'timeout'
  /** Connection refused or reset, ICMP error, TLS handshake or certificate failure. */
  | 'transport-error'
  /** Put there by an operator or by the SIP stack, not by a try. */
  | 'manual';

/** A destination in the box: where, why, and until when (clock ms). */
export interface PenaltyEntry {
  readonly transport: SipTransport;
  readonly address: string;
  readonly port: number;
  /** Clock time (ms) when it leaves the box. */
  readonly until: number;
  readonly reason: PenaltyReason;
  /** What happened, for people: "503 Service Unavailable, Retry-After 30", "no response to INVITE". */
  readonly detail: string;
}

/** Why an entry left a store without clear(): its `until` passed, or a full store pushed it out. */
export type PenaltyLeaveReason = 'expired' | 'evicted';

/**
 * get/mark/clear with expiry. Keys are `destinationKey()`s. A store never returns an entry whose
 * `until` has passed, and `mark` keeps the later end when the key is already there (so
 * concurrent marks from several processes agree).
 */
export interface PenaltyStore {
  /** The live entry of `key`, or undefined. */
  get(key: string): PenaltyEntry | undefined;
  /** Stores `entry` under `key` until `entry.until`, unless a live one ends later; returns what is stored. */
  mark(key: string, entry: PenaltyEntry): PenaltyEntry;
  /** Removes `key`; returns the live entry it had. */
  clear(key: string): PenaltyEntry | undefined;
  /** The live entries, in any order. */
  entries(): readonly PenaltyEntry[];
  /**
   * Optional: the box calls it once, to hear of entries that leave on their own. Expiry is
   * noticed lazily, at the first read after `until` (no timers).
   */
  watchLeaves?(listener: (entry: PenaltyEntry, reason: PenaltyLeaveReason) => void): void;
}

export interface MemoryPenaltyStoreOptions {
  /** Entries kept at most (default 4096); beyond this the one ending first goes. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

/** The default store: a bounded map in this process, read against the clock (no timers). */
export class MemoryPenaltyStore implements PenaltyStore {
  readonly #entries = new Map<string, PenaltyEntry>();
  readonly #maxEntries: number;
  readonly #clock: Clock;
  #onLeave: ((entry: PenaltyEntry, reason: PenaltyLeaveReason) => void) | undefined;

  constructor(options: MemoryPenaltyStoreOptions = {}) {
    this.#maxEntries = checkPositiveInteger(
      options.maxEntries ?? DEFAULT_PENALTY_MAX_ENTRIES,
      'penalty box maxEntries',
    );
    this.#clock = options.clock ?? systemClock;
  }

  get(key: string): PenaltyEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.until <= this.#clock.now()) {
      this.#entries.delete(key);
      this.#onLeave?.(entry, 'expired');
      return undefined;
    }
    return entry;
  }

  watchLeaves(listener: (entry: PenaltyEntry, reason: PenaltyLeaveReason) => void): void {
    this.#onLeave = listener;
  }

  mark(key: string, entry: PenaltyEntry): PenaltyEntry {
    const previous = this.get(key);
    if (previous && previous.until >= entry.until) return previous;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    this.#trim();
    return entry;
  }

  clear(key: string): PenaltyEntry | undefined {
    const entry = this.get(key);
    this.#entries.delete(key);
    return entry;
  }

  entries(): readonly PenaltyEntry[] {
    this.#trim();
    return [...this.#entries.values()];
  }

  #trim(): void {
    const now = this.#clock.now();
    for (const [key, entry] of this.#entries) {
      if (entry.until > now) continue;
      this.#entries.delete(key);
      this.#onLeave?.(entry, 'expired');
    }
    while (this.#entries.size > this.#maxEntries) {
      let first: [string, PenaltyEntry] | undefined;
      for (const pair of this.#entries) if (!first || pair[1].until < first[1].until) first = pair;
      this.#entries.delete(first![0]);
      this.#onLeave?.(first![1], 'evicted');
    }
  }
}
