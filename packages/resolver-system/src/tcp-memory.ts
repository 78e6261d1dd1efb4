/**
 * Questions whose answer did not fit in UDP, remembered for a while so the next ask goes
 * straight to TCP instead of paying a UDP round trip that will be truncated again. Bounded:
 * the least recently used question is forgotten first. Transport work, not a cache of answers.
 */
import type { Clock } from '@dnscore/core/plugin';

export class TcpMemory {
  readonly #until = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly lifetimeMs: number,
    private readonly size: number,
  ) {}

  remember(key: string): void {
    if (this.size === 0 || this.lifetimeMs === 0) return;
    this.#until.delete(key);
    this.#until.set(key, this.clock.now() + this.lifetimeMs);
    if (this.#until.size > this.size) this.#until.delete(this.#until.keys().next().value!);
  }

  has(key: string): boolean {
    const until = this.#until.get(key);
    if (until === undefined) return false;
    if (this.clock.now() >= until) {
      this.#until.delete(key);
      return false;
    }
    this.#until.delete(key); // most recently used goes last
    this.#until.set(key, until);
    return true;
  }

  get count(): number {
    return this.#until.size;
  }
}
