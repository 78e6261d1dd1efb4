/**
 * libunbound's `why_bogus` text as an Extended DNS Error INFO-CODE (RFC 8914). libunbound
 * 1.17's ub_result carries the text only; the phrases below are the reasons its validator
 * writes (validator/val_sigcrypt.c, val_utils.c, validator.c), mapped the way the unbound
 * daemon maps them to EDE. Anything not recognised is 6, DNSSEC Bogus: never "no error".
 */
import { Ede } from '@dnscore/core/plugin';

/** Checked in order: the first that matches wins ("no signatures over NSECs" before "no signatures"). */
const REASONS: readonly (readonly [RegExp, number])[] = [
  [/signature expired/i, Ede.SIGNATURE_EXPIRED],
  [/signature before inception date|signature inception after expiration/i, Ede.SIGNATURE_NOT_YET_VALID],
  [/unsupported algorithm|algorithm refused|no known algorithms/i, Ede.UNSUPPORTED_DNSKEY_ALGORITHM],
  [/dnskey without ZSK flag/i, Ede.NO_ZONE_KEY_BIT_SET],
  [/no signatures over NSEC|no NSECs|no NSEC3s/i, Ede.NSEC_MISSING],
  [/no signatures|no DNSSEC records/i, Ede.RRSIGS_MISSING],
  [
    new RegExp(
      'signatures from unknown keys|dnskey revoked|did not match (DS|anchor) RRset|DS hash mismatches key|' +
        'keyset not secured by DNSKEY|no DNSKEY|could not fetch DNSKEY',
      'i',
    ),
    Ede.DNSKEY_MISSING,
  ],
];

/** The INFO-CODE for a bogus answer's reason; 6 (DNSSEC Bogus) when none is recognised. */
export function edeOfWhyBogus(whyBogus: string | null | undefined): number {
  if (!whyBogus) return Ede.DNSSEC_BOGUS;
  for (const [pattern, code] of REASONS) if (pattern.test(whyBogus)) return code;
  return Ede.DNSSEC_BOGUS;
}
