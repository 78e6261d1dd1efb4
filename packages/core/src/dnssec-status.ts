/**
 * The one rule for a DNSSEC status (RFC 4035 section 4.3): an answer is as secure as its
 * weakest part. Every place that puts answers together (a CNAME chain re-asked across zones,
 * the links of a SIP target) combines their statuses here, so nothing can come out better
 * than what the backend validated.
 */

/** RFC 4035 section 4.3's states ("indeterminate" reaches a stub as bogus or insecure). */
export type DnssecStatus = 'secure' | 'insecure' | 'bogus';

/** What a result or a plugin answer says about DNSSEC. */
export interface DnssecFlags {
  readonly secure?: boolean | undefined;
  readonly bogus?: boolean | undefined;
}

const RANK: Readonly<Record<DnssecStatus, number>> = { bogus: 0, insecure: 1, secure: 2 };

/** The status `flags` stand for; secure and bogus together (a broken backend) count as bogus. */
export function dnssecStatus(flags: DnssecFlags): DnssecStatus {
  if (flags.bogus === true) return 'bogus';
  return flags.secure === true ? 'secure' : 'insecure';
}

/**
 * The status of an answer made of `parts`: bogus if any is bogus, else insecure if any is
 * insecure, else secure. Nothing (no parts) was validated, so it is insecure.
 */
export function weakestStatus(...parts: readonly (DnssecStatus | DnssecFlags)[]): DnssecStatus {
  if (parts.length === 0) return 'insecure';
  let weakest: DnssecStatus = 'secure';
  for (const part of parts) {
    const status = typeof part === 'string' ? part : dnssecStatus(part);
    if (RANK[status] < RANK[weakest]) weakest = status;
  }
  return weakest;
}

/** The `secure` and `bogus` flags of `status`. */
export function flagsOf(status: DnssecStatus): { readonly secure: boolean; readonly bogus: boolean } {
  return { secure: status === 'secure', bogus: status === 'bogus' };
}
