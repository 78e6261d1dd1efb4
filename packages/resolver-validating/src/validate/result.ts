/** Verdict constructors: one place that spells secure, insecure and bogus. */
import { Ede } from '@dnscore/core/plugin';
import type { Verdict } from './types.js';

export const SECURE: Verdict = Object.freeze({ status: 'secure' });

/** Insecure: nothing could be validated (an unsigned zone, an unsupported algorithm, opt-out). */
export function insecure(why?: string, ede?: number): Verdict {
  return Object.freeze({
    status: 'insecure',
    ...(why === undefined ? {} : { whyInsecure: why }),
    ...(ede === undefined ? {} : { ede }),
  });
}

/** Bogus: the data should have validated and did not. */
export function bogus(why: string, ede: number = Ede.DNSSEC_BOGUS): Verdict {
  return Object.freeze({ status: 'bogus', whyBogus: why, ede });
}
