/**
 * The random source of every draw (SRV weights, ...): a function returning a number in [0, 1).
 * Injectable, so a test or `dnscore sip --seed` is repeatable.
 */
export type RandomSource = () => number;

export const defaultRandom: RandomSource = Math.random;

/** A small seeded generator (mulberry32): repeatable draws, not for secrets. */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
