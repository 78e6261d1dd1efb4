import type { Logger } from './logger.js';
import type { RandomSource } from './random.js';

export interface DnsCoreOptions {
  /** Random source of the SRV weighted draw (default Math.random). */
  readonly random?: RandomSource;
  /** Where registry decisions are reported (default: silent). */
  readonly logger?: Logger;
  /** Longest CNAME chain followed in an answer, and re-asks of a chain's end (default 16). */
  readonly maxCnameChain?: number;
  /**
   * Re-ask the end of a CNAME chain that leads into another zone instead of trusting the
   * records the answering server added for it (default true; skipped for DNSSEC-secure answers).
   */
  readonly reaskCrossZoneCnames?: boolean;
}
