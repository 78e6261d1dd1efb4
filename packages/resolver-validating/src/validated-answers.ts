/**
 * Answers already validated, by question (class, type, name without case: core's
 * questionKey), so a warm question is neither asked nor validated again: the answer packet
 * handed to the core and the verdict it validated to, kept for the lifetime worked out by
 * boundTtls (bogus ones briefly). Bounded in entries and in bytes; the least recently used
 * entry goes first.
 */
import type { Clock, PluginAnswer } from '@dnscore/core/plugin';

/** One answer as it left validation: what the core gets, and why it is insecure (requireSecure says it). */
export interface Validated {
  /** The answer without `age` and `servers` (they belong to each time it is served). */
  readonly answer: PluginAnswer;
  /** Set when the answer is insecure. */
  readonly whyInsecure?: string;
}

/** A fresh entry: the answer and the whole seconds it has been kept. */
export interface Hit {
  readonly validated: Validated;
  readonly age: number;
}

interface Entry {
  readonly validated: Validated;
  readonly storedAt: number;
  readonly expiresAt: number;
  readonly bytes: number;
}

/** What an entry costs beside its packet and key (the objects around them), as counted against the byte bound. */
const ENTRY_OVERHEAD_BYTES = 256;

export class ValidatedAnswers {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;
  /** Questions answered from here. */
  hits = 0;

  /** Both bounds are checked by the caller (checkOptions); 0 for either keeps nothing. */
  constructor(clock: Clock, maxEntries: number, maxBytes: number) {
    this.#clock = clock;
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  /** Entries held (expired ones included until they are met or pushed out). */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes counted against the bound. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The entry for `key` while its lifetime runs, now the most recently used; an expired one is dropped. */
  get(key: string): Hit | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const now = this.#clock.now();
    this.#drop(key, entry);
    if (entry.expiresAt <= now) return undefined;
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    this.hits++;
    return { validated: entry.validated, age: Math.max(0, Math.floor((now - entry.storedAt) / 1000)) };
  }

  /**
   * Keeps `validated` for `lifetime` whole seconds, pushing out the least recently used; false
   * when it is not kept (lifetime 0, bounds 0, or larger than the byte bound).
   */
  set(key: string, validated: Validated, lifetime: number): boolean {
    const old = this.#entries.get(key);
    if (old) this.#drop(key, old);
    const bytes = (validated.answer.answer?.length ?? 0) + 2 * key.length + ENTRY_OVERHEAD_BYTES;
    if (lifetime <= 0 || this.#maxEntries === 0 || bytes > this.#maxBytes) return false;
    while (this.#entries.size >= this.#maxEntries || this.#bytes + bytes > this.#maxBytes) {
      const [oldestKey, oldest] = this.#entries.entries().next().value!;
      this.#drop(oldestKey, oldest);
    }
    const now = this.#clock.now();
    this.#entries.set(key, { validated, storedAt: now, expiresAt: now + lifetime * 1000, bytes });
    this.#bytes += bytes;
    return true;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
