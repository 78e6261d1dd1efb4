/**
 * Time, injectable: the cache takes a clock, recurring queries take timers, so tests use fake
 * time instead of sleeping. The defaults look the globals up at each call, so vitest's fake
 * timers apply to them too.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = { now: () => Date.now() };

export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
