/**
 * The denial proofs a resolver calls (RFC 4035 section 5.4, RFC 5155 section 8): NSEC3 when
 * the response holds NSEC3 records of the zone, NSEC otherwise. The records a proof uses are
 * verified with the zone keys here, so no proof rests on an unsigned or forged record.
 */
import { Ede, type Labels, parseName } from '@dnscore/core/plugin';
import { type DenialInput, type DenialOptions, type DenialVerdict, ProofRecords } from './denial-input.js';
import { nsecNodata, nsecNxdomain, nsecWildcardAnswer } from './nsec.js';
import { nsec3Nodata, nsec3Nxdomain, nsec3WildcardAnswer } from './nsec3.js';
import { bogus } from './result.js';
import type { Verdict } from './types.js';

function prove(
  input: DenialInput,
  options: DenialOptions,
  withNsec: (proof: ProofRecords) => Verdict,
  withNsec3: (proof: ProofRecords) => Verdict,
): DenialVerdict {
  const proof = new ProofRecords(input, options);
  let verdict: Verdict;
  if (proof.nsec3.length > 0) verdict = withNsec3(proof);
  else if (proof.nsec.length > 0) verdict = withNsec(proof);
  else return bogus('the denial has no NSEC or NSEC3 records', Ede.NSEC_MISSING);
  if (verdict.status !== 'secure') return verdict;
  return Object.freeze({
    ...verdict,
    ...(proof.ttl === undefined ? {} : { ttl: proof.ttl }),
    ...(proof.matchedTypes === undefined ? {} : { types: proof.matchedTypes }),
  });
}

/** The name `input.qname` does not exist in the zone (NXDOMAIN), nor a wildcard that would match it. */
export function proveNxdomain(input: DenialInput, options: DenialOptions): DenialVerdict {
  return prove(input, options, nsecNxdomain, nsec3Nxdomain);
}

/**
 * The name has no RRset of `input.qtype` (NODATA, empty non-terminal, wildcard NODATA). For
 * qtype DS it proves an insecure delegation: secure = "no DS, proven"; insecure = opt-out.
 */
export function proveNodata(input: DenialInput, options: DenialOptions): DenialVerdict {
  return prove(input, options, nsecNodata, nsec3Nodata);
}

/**
 * A wildcard answer (a secure RrsetVerdict with `wildcard`) is the right one: no closer name
 * than the wildcard's parent exists for `input.qname`.
 */
export function proveWildcardAnswer(input: DenialInput, wildcard: Labels | string, options: DenialOptions): Verdict {
  const labels = typeof wildcard === 'string' ? parseName(wildcard) : wildcard;
  return prove(
    input,
    options,
    (proof) => nsecWildcardAnswer(proof, labels),
    (proof) => nsec3WildcardAnswer(proof, labels),
  );
}
