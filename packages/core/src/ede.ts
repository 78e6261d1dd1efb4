/**
 * Extended DNS Errors (RFC 8914): the INFO-CODE beside a bogus result's text, so a program
 * can tell an expired signature from a missing DNSKEY without reading `whyBogus`.
 */

/** The INFO-CODEs of RFC 8914 section 4 (and the IANA registry) that DNSSEC uses. */
export const Ede = {
  OTHER: 0,
  UNSUPPORTED_DNSKEY_ALGORITHM: 1,
  UNSUPPORTED_DS_DIGEST_TYPE: 2,
  DNSSEC_INDETERMINATE: 5,
  DNSSEC_BOGUS: 6,
  SIGNATURE_EXPIRED: 7,
  SIGNATURE_NOT_YET_VALID: 8,
  DNSKEY_MISSING: 9,
  RRSIGS_MISSING: 10,
  NO_ZONE_KEY_BIT_SET: 11,
  NSEC_MISSING: 12,
} as const;

const NAMES: Readonly<Record<number, string>> = {
  0: 'Other Error',
  1: 'Unsupported DNSKEY Algorithm',
  2: 'Unsupported DS Digest Type',
  3: 'Stale Answer',
  4: 'Forged Answer',
  5: 'DNSSEC Indeterminate',
  6: 'DNSSEC Bogus',
  7: 'Signature Expired',
  8: 'Signature Not Yet Valid',
  9: 'DNSKEY Missing',
  10: 'RRSIGs Missing',
  11: 'No Zone Key Bit Set',
  12: 'NSEC Missing',
  13: 'Cached Error',
  14: 'Not Ready',
  15: 'Blocked',
  16: 'Censored',
  17: 'Filtered',
  18: 'Prohibited',
  19: 'Stale NXDOMAIN Answer',
  20: 'Not Authoritative',
  21: 'Not Supported',
  22: 'No Reachable Authority',
  23: 'Network Error',
  24: 'Invalid Data',
  25: 'Signature Expired before Valid',
  26: 'Too Early',
  27: 'Unsupported NSEC3 Iterations Value',
  28: 'Unable to conform to policy',
  29: 'Synthesized',
  30: 'Invalid Query Type',
};

/** RFC 8914's name of an INFO-CODE ("DNSSEC Bogus"); "EDE n" for one without a name here. */
export function edeName(code: number): string {
  return NAMES[code] ?? `EDE ${code}`;
}

/** True for an INFO-CODE's range (16 bits). */
export function isEdeCode(code: unknown): code is number {
  return typeof code === 'number' && Number.isInteger(code) && code >= 0 && code <= 0xffff;
}
