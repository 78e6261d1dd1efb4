/** A clock the test moves by hand (the cache's `clock` option), so TTLs run out without waiting. */
import type { Clock } from '@dnscore/core';

export interface FakeClock extends Clock {
  /** Moves the clock on by `seconds`, the unit of a TTL. */
  advance(seconds: number): void;
  /** Moves the clock on by `ms` milliseconds. */
  advanceMs(ms: number): void;
}

/** Starts at 1,000,000 ms. */
export function fakeClock(): FakeClock {
  let now = 1_000_000;
  return {
    now: () => now,
    advance: (seconds) => {
      now += seconds * 1000;
    },
    advanceMs: (ms) => {
      now += ms;
    },
  };
}
