/**
 * Signature validity windows (RFC 4034 section 3.1.5, RFC 4035 section 5.3.1): 32-bit times
 * compared in serial number arithmetic (RFC 1982), so they keep working after 2106.
 */
import { checkNonNegativeNumber } from '@dnscore/core/plugin';
import type { TimeOptions } from './types.js';

/** 5 minutes either way: hosts with NTP agree far better, hosts without it rarely worse. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 300;

/** Now in seconds (mod 2^32) and the allowance, from the options. */
export function nowAndSkew(options: TimeOptions): { readonly now: number; readonly skew: number } {
  const skew = checkNonNegativeNumber(options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS, 'clockSkewSeconds', 's');
  return { now: Math.floor(options.clock.now() / 1000) >>> 0, skew: Math.floor(skew) };
}

/** a - b in serial arithmetic, as a signed 32-bit number: <0 when a is before b. */
export function serialDiff(a: number, b: number): number {
  return (a - b) | 0;
}

export type WindowCheck = 'valid' | 'expired' | 'not-yet-valid' | 'inverted';

/** Where `now` falls in [inception, expiration], with `skew` seconds of slack on both ends. */
export function checkWindow(inception: number, expiration: number, now: number, skew: number): WindowCheck {
  if (serialDiff(expiration, inception) < 0) return 'inverted';
  if (serialDiff(expiration, now) < -skew) return 'expired';
  if (serialDiff(inception, now) > skew) return 'not-yet-valid';
  return 'valid';
}
