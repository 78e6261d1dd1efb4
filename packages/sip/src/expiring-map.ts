/**
 * A map whose entries live for a fixed time after their last use, bounded in size (the least
 * recently used goes first). Read against an injectable clock: nothing runs in the background.
 */
import { checkPositiveInteger, checkPositiveNumber, type Clock } from '@dnscore/core';

export class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly clock: Clock,
    readonly lifetimeMs: number,
    private readonly maxEntries: number,
    what: string,
  ) {
    checkPositiveNumber(lifetimeMs, `${what} lifetime`, 'ms');
    checkPositiveInteger(maxEntries, `${what} maxEntries`);
  }

  /** Sets (or replaces) a value; its lifetime starts now. */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, until: this.clock.now() + this.lifetimeMs });
    while (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** The value while it lives; a read is a use, so its lifetime starts again. */
  touch(key: string): V | undefined {
    const entry = this.#live(key);
    if (entry) this.set(key, entry.value);
    return entry?.value;
  }

  /** The value while it lives, without counting as a use. */
  peek(key: string): V | undefined {
    return this.#live(key)?.value;
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  get size(): number {
    for (const key of [...this.#entries.keys()]) this.#live(key);
    return this.#entries.size;
  }

  #live(key: string): { value: V; until: number } | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.until <= this.clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }
}
