/**
 * What the chain of trust says about a zone (RFC 4035 section 4.3): secure with its validated
 * keys, insecure (a proven unsigned delegation above it, an unsupported algorithm, no trust
 * anchor, a negative trust anchor), or bogus with the reason and the EDE code.
 */
import type { Labels } from '@dnscore/core/plugin';
import type { ZoneKey } from './validate/index.js';

export type ZoneVerdict =
  | {
      readonly status: 'secure';
      readonly zone: Labels;
      readonly keys: readonly ZoneKey[];
      readonly ttl: number;
      /** Signed zone cuts from the trust anchor down to `zone`: 0 at the anchor. */
      readonly cuts: number;
    }
  | { readonly status: 'insecure'; readonly zone: Labels; readonly why: string; readonly ttl: number }
  | {
      readonly status: 'bogus';
      readonly zone: Labels;
      readonly why: string;
      readonly ede: number;
      readonly ttl: number;
    };
