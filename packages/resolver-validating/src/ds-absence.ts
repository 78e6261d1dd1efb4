/**
 * What a validated answer without DS records says about a name one label (or more) below a
 * secure zone (RFC 4035 section 5.2, RFC 5155 section 8.6): an insecure delegation (the
 * matching NSEC/NSEC3 lists NS, and neither SOA nor DS; or an NSEC3 opt-out span covers it), or
 * no zone cut at all (a name inside the zone, an empty non-terminal, a CNAME, a name that does
 * not exist). Which one is read from the validated bitmap only: unsigned data (a forged SOA or
 * NS at the name) could otherwise turn a secure name insecure.
 */
import { Ede, Rcode, rcodeName, type Labels } from '@dnscore/core/plugin';
import { findDname } from './chain-links.js';
import { fqdn, keyOf } from './names.js';
import type { Fetched } from './upstream.js';
import {
  DnssecType,
  ownerOf,
  proveNodata,
  proveNxdomain,
  verifyRrset,
  type DenialInput,
  type DenialOptions,
  type ZoneKey,
} from './validate/index.js';

export type DsAbsence =
  | { readonly kind: 'insecure-delegation'; readonly why: string; readonly ttl: number }
  | { readonly kind: 'no-cut'; readonly ttl: number }
  | { readonly kind: 'bogus'; readonly why: string; readonly ede: number };

export interface SecureZone {
  readonly zone: Labels;
  readonly keys: readonly ZoneKey[];
}

export function dsAbsence(name: Labels, fetched: Fetched, above: SecureZone, options: DenialOptions): DsAbsence {
  const what = `DS of ${fqdn(name)}`;
  const ttl = minTtl(fetched);
  if (fetched.rcode !== Rcode.NOERROR && fetched.rcode !== Rcode.NXDOMAIN) {
    return { kind: 'bogus', why: `${what}: the upstream answered ${rcodeName(fetched.rcode)}`, ede: Ede.DNSSEC_BOGUS };
  }
  // A CNAME owner is no zone cut (RFC 2181 section 10.1), nor a name under a DNAME (RFC 6672
  // section 2.4); the CNAME or DNAME RRset must be the zone's.
  const cname =
    findDname(fetched, name) ??
    fetched.answerSets.find(
      (set) => set.records[0]?.rrtype === DnssecType.CNAME && keyOf(ownerOf(set.records[0])) === keyOf(name),
    );
  if (cname) {
    const verdict = verifyRrset(cname, above.keys, above.zone, options);
    return verdict.status === 'secure'
      ? { kind: 'no-cut', ttl }
      : { kind: 'bogus', why: `${what}: ${verdict.whyBogus ?? 'CNAME not validated'}`, ede: verdict.ede ?? 6 };
  }
  const input: DenialInput = {
    qname: name,
    qtype: DnssecType.DS,
    zone: above.zone,
    rrsets: fetched.authoritySets,
    keys: above.keys,
  };
  const verdict = fetched.rcode === Rcode.NXDOMAIN ? proveNxdomain(input, options) : proveNodata(input, options);
  if (verdict.status === 'bogus') {
    return { kind: 'bogus', why: `${what}: ${verdict.whyBogus ?? 'absence not proven'}`, ede: verdict.ede ?? 6 };
  }
  if (verdict.status === 'insecure') {
    return { kind: 'insecure-delegation', why: `${what}: ${verdict.whyInsecure ?? 'NSEC3 opt-out'}`, ttl };
  }
  if (fetched.rcode === Rcode.NXDOMAIN) return { kind: 'no-cut', ttl };
  // The bitmap of the name's own NSEC/NSEC3 as the proof verified it: reading it from the
  // authority section would let a forged record placed first (unverified, or an NSEC3 with
  // 65,535 iterations outside the hash budget) turn a name without a cut into an insecure one.
  const types = verdict.types;
  if (types?.has(DnssecType.NS) && !types.has(DnssecType.SOA)) {
    return { kind: 'insecure-delegation', why: `${fqdn(name)} is an unsigned delegation (no DS, proven)`, ttl };
  }
  return { kind: 'no-cut', ttl };
}

function minTtl(fetched: Fetched): number {
  const ttls = [...fetched.answer, ...fetched.authority].map((r) => r.ttl);
  return ttls.length > 0 ? Math.min(...ttls) : 0;
}
