/**
 * NAPTR memory (RFC 3263 section 4.1 over RFC 3403 section 4.1): when every target of the
 * NAPTR a request followed has failed, the request may go on with the next NAPTR of the SAME
 * order (RFC 3403: records of one order are one rule, picked by preference and the services
 * offered; other orders are never considered once one applies). The candidates are those the
 * procedure already kept (SIPS services only for a sips: URI, transports the client supports, a
 * URI with transport= or a port has no NAPTR at all), so this walk can reach nothing a
 * resolution could not. With mode 'ttl', such a NAPTR is remembered until its TTL ends and
 * every request passes it over; a remembered NAPTR is tried last, never dropped.
 */
import { InvalidArgumentError, checkPositiveInteger, nameKey, systemClock, type Clock } from '@dnscore/core';
import { DEFAULT_NAPTR_MEMORY_MAX_ENTRIES } from './defaults.js';
import { isSipTransport, type SipTransport } from './transport.js';

/**
 * 'off': a request keeps to the NAPTR its resolution chose. 'request': within one request, a
 * NAPTR whose targets all failed (tried, or in the penalty box) is passed over for the next of
 * the same order. 'ttl': as 'request', and a NAPTR whose targets are all in the penalty box is
 * remembered until its TTL ends, so later requests pass it over too.
 */
export type NaptrMemoryMode = 'off' | 'request' | 'ttl';

export const NAPTR_MEMORY_MODES: readonly NaptrMemoryMode[] = Object.freeze(['off', 'request', 'ttl']);

/** One NAPTR record of a resolution. */
export interface NaptrRef {
  /** Its owner: the URI's TARGET. */
  readonly owner: string;
  /** The RDATA in presentation form: `10 20 "s" "SIP+D2U" "" _sip._udp.example.com.` */
  readonly record: string;
  readonly transport: SipTransport;
}

/** What a 'naptr' resolution followed, and the other NAPTRs of that order. */
export interface NaptrChoice {
  /** The NAPTR whose targets the resolution holds. */
  readonly chosen: NaptrRef;
  /** Clock ms when the chosen record's TTL ends: how long memory of it may last. */
  readonly expires: number;
  /** Every usable NAPTR of the chosen order, by preference (the chosen one included). */
  readonly candidates: readonly NaptrRef[];
  /** Candidates passed over because they failed before, in the order they were passed. */
  readonly passed: readonly NaptrSkip[];
}

/**
 * Why a NAPTR was passed over: 'failed', every target of it failed in this request (tried, or in
 * the penalty box); 'remembered', they all failed in an earlier request and its TTL has not ended.
 */
export type NaptrSkipReason = 'failed' | 'remembered';

export interface NaptrSkip extends NaptrRef {
  readonly reason: NaptrSkipReason;
  /** What happened, for people. */
  readonly detail: string;
  /** Clock ms when the memory of it ends (its TTL); absent when it is passed over for this request only. */
  readonly until?: number;
}

/** A remembered NAPTR: where, what, until when (clock ms), and why. */
export interface NaptrMemoryEntry extends NaptrRef {
  readonly until: number;
  readonly detail: string;
}

export interface NaptrMemoryOptions {
  /** Entries kept at most (default 4096); beyond this the one ending first goes. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

/** The NAPTRs remembered as failed, each until its TTL ends: list, add, remove. */
export class NaptrMemory {
  /** By naptrKey: the entry, and the same as the reason a NAPTR is passed over (made once). */
  readonly #entries = new Map<string, { readonly entry: NaptrMemoryEntry; readonly skip: NaptrSkip }>();
  readonly #maxEntries: number;
  readonly #clock: Clock;

  constructor(options: NaptrMemoryOptions = {}) {
    this.#maxEntries = checkPositiveInteger(
      options.maxEntries ?? DEFAULT_NAPTR_MEMORY_MAX_ENTRIES,
      'NAPTR memory maxEntries',
    );
    this.#clock = options.clock ?? systemClock;
  }

  /** The live entry of this record, or undefined. */
  get(ref: Pick<NaptrRef, 'owner' | 'record'>): NaptrMemoryEntry | undefined {
    return this.#live(naptrKey(ref))?.entry;
  }

  /** The warm path's question, by naptrKey(): why the NAPTR is passed over, or undefined. */
  passedOver(key: string): NaptrSkip | undefined {
    return this.#entries.size === 0 ? undefined : this.#live(key)?.skip;
  }

  /**
   * Remembers a NAPTR as failed until `until` (clock ms; the end of its TTL), an operator's
   * "add" too. An entry already there that ends later stays as it is. Returns what is kept.
   */
  remember(ref: NaptrRef, until: number, detail = 'marked failed'): NaptrMemoryEntry {
    if (!ref || typeof ref.owner !== 'string' || ref.owner === '' || typeof ref.record !== 'string' || !ref.record)
      throw new InvalidArgumentError('a NAPTR needs its owner name and its record');
    if (!isSipTransport(ref.transport))
      throw new InvalidArgumentError(`unknown transport "${String(ref.transport)}" (udp, tcp, tls)`);
    if (typeof until !== 'number' || Number.isNaN(until))
      throw new InvalidArgumentError(`a NAPTR memory needs an end time in ms, not ${String(until)}`);
    const key = naptrKey(ref);
    const previous = this.#live(key)?.entry;
    if (previous && previous.until >= until) return previous;
    const entry: NaptrMemoryEntry = Object.freeze({
      owner: ref.owner,
      record: ref.record,
      transport: ref.transport,
      until,
      detail,
    });
    this.#entries.delete(key);
    this.#entries.set(key, { entry, skip: Object.freeze({ ...entry, reason: 'remembered' as const }) });
    this.#trim();
    return entry;
  }

  /** Forgets a NAPTR (one of its targets answered, or an operator removed it). Returns whether it was there. */
  forget(ref: Pick<NaptrRef, 'owner' | 'record'>): boolean {
    if (this.#entries.size === 0) return false;
    const key = naptrKey(ref);
    const had = this.#live(key) !== undefined;
    this.#entries.delete(key);
    return had;
  }

  clearAll(): void {
    this.#entries.clear();
  }

  /** The live entries, ending first first. */
  entries(): NaptrMemoryEntry[] {
    this.#trim();
    return [...this.#entries.values()].map((v) => v.entry).sort((a, b) => a.until - b.until);
  }

  get size(): number {
    this.#trim();
    return this.#entries.size;
  }

  #live(key: string): { readonly entry: NaptrMemoryEntry; readonly skip: NaptrSkip } | undefined {
    const value = this.#entries.get(key);
    if (value && value.entry.until <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return value;
  }

  #trim(): void {
    const now = this.#clock.now();
    for (const [key, value] of this.#entries) if (value.entry.until <= now) this.#entries.delete(key);
    while (this.#entries.size > this.#maxEntries) {
      let first: [string, NaptrMemoryEntry] | undefined;
      for (const [key, { entry }] of this.#entries) if (!first || entry.until < first[1].until) first = [key, entry];
      this.#entries.delete(first![0]);
    }
  }
}

/** The identity of a NAPTR record: owner and RDATA, case-insensitive (names, flags and services are). */
export function naptrKey(ref: Pick<NaptrRef, 'owner' | 'record'>): string {
  return `${nameKey(ref.owner)} ${ref.record.toLowerCase()}`;
}

/**
 * The order NAPTRs of one order are tried in, given what failed before (`skips[i]` for the i-th
 * by preference): those that did not, then those remembered from an earlier request, then those
 * that failed in this request; by preference within each.
 */
export function naptrOrder(skips: readonly (NaptrSkip | undefined)[]): number[] {
  const rank = (i: number): number => (skips[i] === undefined ? 0 : skips[i]!.reason === 'remembered' ? 1 : 2);
  return skips.map((_, i) => i).sort((a, b) => rank(a) - rank(b) || a - b);
}

export function checkNaptrMemoryMode(value: unknown): NaptrMemoryMode {
  if (NAPTR_MEMORY_MODES.includes(value as NaptrMemoryMode)) return value as NaptrMemoryMode;
  throw new InvalidArgumentError(`naptrMemory must be 'off', 'request' or 'ttl', not ${JSON.stringify(value)}`);
}
