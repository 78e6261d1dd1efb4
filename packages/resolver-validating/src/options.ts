/**
 * Where the validating backend asks (ValidatingResolverConfig: the recursive nameservers) and
 * how it validates (ValidatingResolverOptions), checked once, in the constructor.
 */
import { checkIntegerInRange, type Clock, type Timers } from '@dnscore/core/plugin';
import type { BudgetLimits } from './validate/index.js';
import { ValidatingOptionError } from './errors.js';

export interface ValidatingResolverConfig {
  /**
   * Recursive nameservers ("IP", "IP:PORT", "[IPv6]:PORT"); replace resolv.conf's when given.
   * They must hand back DNSSEC records (DO) and data that failed their own validation (CD).
   */
  readonly nameservers?: readonly string[];
  /** Default /etc/resolv.conf; a missing file means 127.0.0.1. */
  readonly resolvConf?: string;
}

export interface ValidatingResolverOptions {
  /** Registry name (default "validating"). */
  readonly name?: string;
  /** Registry priority, lower first (default 1000: after libunbound, before the system backend). */
  readonly priority?: number;
  /**
   * Trust anchors as DS or DNSKEY text ("biloxi.example. IN DS 12345 13 2 ..."). Given (or
   * `trustAnchorFiles` given), they replace the default root anchors.
   */
  readonly trustAnchors?: readonly string[];
  /** Files of DS or DNSKEY records (root.ds, root.key); replace the defaults too. */
  readonly trustAnchorFiles?: readonly string[];
  /** Negative trust anchors (RFC 7646): names whose subtree is insecure. */
  readonly negativeTrustAnchors?: readonly string[];
  /** Reject answers that are not secure with InsecureAnswerError (DANE/TLSA callers). */
  readonly requireSecure?: boolean;
  /** Seconds a signature may be early or late (default the engine's, 300). */
  readonly clockSkewSeconds?: number;
  /** NSEC3 iterations above which a denial is insecure (RFC 9276; default the engine's, 100). */
  readonly maxNsec3Iterations?: number;
  /** Signature checks and NSEC3 hashes allowed per question (KeyTrap, CVE-2023-50387/50868). */
  readonly budget?: BudgetLimits;
  /** CNAME and DNAME links followed for one question (default 8). */
  readonly maxChainLinks?: number;
  /** Signed zone cuts walked below a trust anchor to one zone (default 32); deeper: ZoneCutLimitError. */
  readonly maxZoneCuts?: number;
  /** Names whose zone verdict (and chain answers) are kept at once (default 4096). */
  readonly keyCacheSize?: number;
  /** Validated answers kept at once, by question (default 10,000); 0 keeps none. */
  readonly answerCacheSize?: number;
  /** Bytes the validated answers may take (default 16 MiB); 0 keeps none. */
  readonly answerCacheBytes?: number;
  /** Ask the trust anchors' DNSKEY at construction and refuse an upstream that strips RRSIGs (default true). */
  readonly probe?: boolean;
  /** Wait for one nameserver's answer, per try (default resolv.conf's or 5000). */
  readonly timeoutMs?: number;
  /** Rounds over the nameservers (default resolv.conf's or 2). */
  readonly attempts?: number;
  /** "Now" of the signature windows and of the caches (default Date.now). */
  readonly clock?: Clock;
  /** Timers of the per-try timeouts (default the global ones). */
  readonly timers?: Timers;
}

/** Throws ValidatingOptionError naming the first bad option. */
export function checkOptions(options: ValidatingResolverOptions): void {
  if (options === null || typeof options !== 'object') throw new ValidatingOptionError('options', 'must be an object');
  const o = options;
  if (o.name !== undefined && (typeof o.name !== 'string' || o.name.trim() === ''))
    throw new ValidatingOptionError('name', 'must be a non-empty string');
  if (o.priority !== undefined && !(typeof o.priority === 'number' && Number.isFinite(o.priority)))
    throw new ValidatingOptionError('priority', 'must be a finite number');
  for (const key of ['trustAnchors', 'trustAnchorFiles', 'negativeTrustAnchors'] as const) {
    const value = o[key];
    if (value !== undefined && (!Array.isArray(value) || value.some((v) => typeof v !== 'string')))
      throw new ValidatingOptionError(key, 'must be an array of strings');
  }
  for (const key of ['requireSecure', 'probe'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean')
      throw new ValidatingOptionError(key, 'must be true or false');
  }
  const integer = (key: keyof ValidatingResolverOptions, min: number, max: number): void => {
    const value = o[key];
    if (value === undefined) return;
    try {
      checkIntegerInRange(value, key, min, max);
    } catch (error) {
      throw new ValidatingOptionError(key, (error as Error).message);
    }
  };
  integer('clockSkewSeconds', 0, 86_400);
  integer('maxNsec3Iterations', 0, 65_535);
  integer('maxChainLinks', 1, 64);
  // A name has at most 127 labels, so at most 126 cuts below the root.
  integer('maxZoneCuts', 1, 126);
  integer('keyCacheSize', 1, 10_000_000);
  integer('answerCacheSize', 0, 10_000_000);
  integer('answerCacheBytes', 0, Number.MAX_SAFE_INTEGER);
  integer('timeoutMs', 1, 2_147_483_647);
  integer('attempts', 1, 100);
  if (o.budget !== undefined && (o.budget === null || typeof o.budget !== 'object'))
    throw new ValidatingOptionError('budget', 'must be an object');
  if (o.clock !== undefined && typeof o.clock?.now !== 'function')
    throw new ValidatingOptionError('clock', 'must be an object with now()');
}
