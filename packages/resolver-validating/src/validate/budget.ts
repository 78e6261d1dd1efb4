/**
 * Bounds on the CPU one question may cost (KeyTrap, CVE-2023-50387; NSEC3 hashing,
 * CVE-2023-50868). A question gets one ValidationBudget; every signature check and every
 * NSEC3 name hash spends from it. When it runs out, the check in progress ends bogus with
 * a reason (never a hang, never secure).
 */
import { checkPositiveInteger } from '@dnscore/core/plugin';

export interface BudgetLimits {
  /** Signature verifications (key x signature pairs) tried for one RRset. */
  readonly maxVerificationsPerRrset?: number;
  /** Signature verifications for the whole question (every RRset, DNSKEY and DS included). */
  readonly maxVerificationsPerQuestion?: number;
  /** NSEC3 owner-name hashes for the whole question (each costs iterations + 1 SHA-1). */
  readonly maxNsec3HashesPerQuestion?: number;
}

/** 8 tries per RRset: 2 signatures x 4 keys of a rollover, well above what a real zone needs. */
export const DEFAULT_MAX_VERIFICATIONS_PER_RRSET = 8;
/** A deep chain (root, TLD, zone, CNAME targets) needs about 2 per RRset and 3 RRsets per zone. */
export const DEFAULT_MAX_VERIFICATIONS_PER_QUESTION = 64;
/** An NXDOMAIN proof hashes at most the qname's labels + 1 names; 64 covers a 60-label name. */
export const DEFAULT_MAX_NSEC3_HASHES_PER_QUESTION = 64;

/** What is left of one question's work allowance. */
export class ValidationBudget {
  readonly maxVerificationsPerRrset: number;
  readonly maxVerificationsPerQuestion: number;
  readonly maxNsec3HashesPerQuestion: number;
  verifications = 0;
  nsec3Hashes = 0;

  constructor(limits: BudgetLimits = {}) {
    this.maxVerificationsPerRrset = checkPositiveInteger(
      limits.maxVerificationsPerRrset ?? DEFAULT_MAX_VERIFICATIONS_PER_RRSET,
      'maxVerificationsPerRrset',
    );
    this.maxVerificationsPerQuestion = checkPositiveInteger(
      limits.maxVerificationsPerQuestion ?? DEFAULT_MAX_VERIFICATIONS_PER_QUESTION,
      'maxVerificationsPerQuestion',
    );
    this.maxNsec3HashesPerQuestion = checkPositiveInteger(
      limits.maxNsec3HashesPerQuestion ?? DEFAULT_MAX_NSEC3_HASHES_PER_QUESTION,
      'maxNsec3HashesPerQuestion',
    );
  }

  /** Takes one signature verification; false when the question's allowance is spent. */
  spendVerification(): boolean {
    if (this.verifications >= this.maxVerificationsPerQuestion) return false;
    this.verifications++;
    return true;
  }

  /** Takes one NSEC3 hash; false when the question's allowance is spent. */
  spendNsec3Hash(): boolean {
    if (this.nsec3Hashes >= this.maxNsec3HashesPerQuestion) return false;
    this.nsec3Hashes++;
    return true;
  }
}
