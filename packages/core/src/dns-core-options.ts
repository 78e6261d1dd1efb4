import type { Logger } from './logger.js';
import type { RandomSource } from './random.js';

export interface DnsCoreOptions {
  /** Random source of the SRV weighted draw (default Math.random). */
  readonly random?: RandomSource;
  /** Where registry decisions are reported (default: silent). */
  readonly logger?: Logger;
  /** Longest CNAME chain followed in an answer (default 16). */
  readonly maxCnameChain?: number;
}
