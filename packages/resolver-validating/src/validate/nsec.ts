/**
 * Denial of existence with NSEC (RFC 4035 sections 3.1.3 and 5.4, RFC 6840 section 4):
 * NXDOMAIN (the name covered, no wildcard at its closest encloser), NODATA (the type absent
 * from the name's bitmap; an empty non-terminal; a wildcard without the type), and the proof
 * that a wildcard answer was the closest match. An NSEC from above a zone cut (NS without
 * SOA) or a DNAME says nothing about the names below it (RFC 6840 section 4.1).
 */
import { Ede, type Labels, formatName, typeName } from '@dnscore/core/plugin';
import { ancestor, commonLabelCount, compareNames, isBelow, namesEqual, wildcardOf } from './canonical-name.js';
import type { ProofRecords } from './denial-input.js';
import { ownerOf } from './owner.js';
import { DnssecType, type NsecData, RdataFormatError, parseNsec } from './rdata.js';
import { SECURE, bogus, insecure } from './result.js';
import type { SignedRrset, Verdict } from './types.js';

interface Nsec {
  readonly owner: Labels;
  readonly data: NsecData;
  readonly rrset: SignedRrset;
}

function nsecsOf(proof: ProofRecords): Nsec[] {
  const out: Nsec[] = [];
  for (const rrset of proof.nsec) {
    // An NSEC RRset has one record (RFC 4034 section 4); more is a forgery of the chain.
    if (rrset.records.length !== 1) continue;
    const record = rrset.records[0]!;
    try {
      out.push({ owner: ownerOf(record), data: parseNsec(record.rdata), rrset });
    } catch (error) {
      if (!(error instanceof RdataFormatError)) throw error;
    }
  }
  return out;
}

/** True when `nsec` proves nothing exists strictly between its owner and next name that holds `name`. */
function covers(nsec: Nsec, name: Labels, zone: Labels): boolean {
  const { owner } = nsec;
  const next = nsec.data.nextName;
  if (compareNames(owner, name) >= 0) {
    // Only the last NSEC wraps: then a name sorting before its next name (the apex) is covered too.
    if (!(compareNames(next, owner) <= 0 && compareNames(name, next) < 0)) return false;
  } else if (compareNames(next, owner) > 0 && compareNames(name, next) >= 0) {
    return false;
  }
  if (!isBelow(name, zone) && !namesEqual(name, zone)) return false;
  // Below a delegation or a DNAME, names are not the zone's to deny.
  return !(isBelow(name, owner) && isCutOrDname(nsec.data));
}

function isCutOrDname(data: NsecData): boolean {
  return data.types.has(DnssecType.DNAME) || (data.types.has(DnssecType.NS) && !data.types.has(DnssecType.SOA));
}

function find(proof: ProofRecords, nsecs: readonly Nsec[], test: (nsec: Nsec) => boolean): Nsec | undefined {
  for (const nsec of nsecs) if (test(nsec) && proof.verified(nsec.rrset)) return nsec;
  return undefined;
}

/** The closest encloser a covering NSEC implies: the longer common ancestor with its owner or next name. */
function closestEncloser(name: Labels, nsec: Nsec): Labels {
  const shared = Math.max(commonLabelCount(name, nsec.owner), commonLabelCount(name, nsec.data.nextName));
  return ancestor(name, shared);
}

function missing(proof: ProofRecords, what: string): Verdict {
  return proof.failure ?? bogus(`${what}: no NSEC proves it`, Ede.NSEC_MISSING);
}

/**
 * A verified NSEC of an unsigned delegation (NS, neither DS nor SOA) above the name, or (when
 * `atCut`: NODATA for a type other than DS) at it: the name is the insecure child zone's,
 * whatever the rest of the response says (unbound's reading too).
 */
function insecureDelegation(proof: ProofRecords, nsecs: readonly Nsec[], atCut: boolean): Verdict | undefined {
  const { qname } = proof;
  const cut = find(proof, nsecs, (nsec) => {
    const types = nsec.data.types;
    if (!types.has(DnssecType.NS) || types.has(DnssecType.DS) || types.has(DnssecType.SOA)) return false;
    return isBelow(qname, nsec.owner) || (atCut && namesEqual(qname, nsec.owner));
  });
  return cut
    ? insecure(`${formatName(qname)} lies at or below the unsigned delegation ${formatName(cut.owner)}`)
    : undefined;
}

/** NXDOMAIN: the name is covered and no wildcard could have produced it. */
export function nsecNxdomain(proof: ProofRecords): Verdict {
  const { qname, zone } = proof;
  const nsecs = nsecsOf(proof);
  const delegated = insecureDelegation(proof, nsecs, false);
  if (delegated) return delegated;
  const exact = find(proof, nsecs, (nsec) => namesEqual(nsec.owner, qname));
  if (exact) return bogus(`NXDOMAIN for ${formatName(qname)}, but an NSEC shows the name exists`);
  // A next name below qname makes qname an empty non-terminal: it exists (RFC 4035 section 3.1.3.2).
  const ent = find(proof, nsecs, (nsec) => covers(nsec, qname, zone) && isBelow(nsec.data.nextName, qname));
  if (ent) return bogus(`NXDOMAIN for ${formatName(qname)}, but an NSEC shows names below it`);
  const cover = find(proof, nsecs, (nsec) => covers(nsec, qname, zone));
  if (!cover) return missing(proof, `${formatName(qname)} does not exist`);
  const ce = closestEncloser(qname, cover);
  if (ce.length < zone.length) return bogus(`NXDOMAIN for ${formatName(qname)}: the NSEC is outside the zone`);
  const wildcard = wildcardOf(ce);
  const wildcardExists = find(proof, nsecs, (nsec) => namesEqual(nsec.owner, wildcard));
  if (wildcardExists)
    return bogus(`NXDOMAIN for ${formatName(qname)}, but the wildcard ${formatName(wildcard)} exists`);
  if (!find(proof, nsecs, (nsec) => covers(nsec, wildcard, zone))) {
    return missing(proof, `no wildcard ${formatName(wildcard)}`);
  }
  return SECURE;
}

/** NODATA: the name exists (or is an empty non-terminal, or matches a wildcard) without the type. */
export function nsecNodata(proof: ProofRecords): Verdict {
  const { qname, zone } = proof;
  const qtype = proof.input.qtype;
  const nsecs = nsecsOf(proof);
  const delegated = insecureDelegation(proof, nsecs, qtype !== DnssecType.DS);
  if (delegated) return delegated;
  const exact = find(proof, nsecs, (nsec) => namesEqual(nsec.owner, qname));
  if (exact) {
    proof.matchedTypes = exact.data.types;
    return bitmapDenies(exact.data, qtype, formatName(qname), true);
  }
  // An empty non-terminal: an NSEC covers it and its next name lies below it (RFC 4035 section 3.1.3.2).
  const ent = find(proof, nsecs, (nsec) => covers(nsec, qname, zone) && isBelow(nsec.data.nextName, qname));
  if (ent) return SECURE;
  // A wildcard NODATA (RFC 4035 section 3.1.3.4): the name does not exist, its wildcard lacks the type.
  const cover = find(proof, nsecs, (nsec) => covers(nsec, qname, zone));
  if (!cover) return missing(proof, `${formatName(qname)} has no ${typeName(qtype)}`);
  const ce = closestEncloser(qname, cover);
  const wildcard = wildcardOf(ce);
  const source = find(proof, nsecs, (nsec) => namesEqual(nsec.owner, wildcard));
  if (!source) return missing(proof, `${formatName(qname)} has no ${typeName(qtype)} (no wildcard NSEC)`);
  return bitmapDenies(source.data, qtype, formatName(wildcard), false);
}

/** The NSEC of the name itself (or of its wildcard) denies `qtype` (RFC 4035 section 5.4, RFC 6840 4.3). */
function bitmapDenies(data: NsecData, qtype: number, name: string, exact: boolean): Verdict {
  const types = data.types;
  if (types.has(qtype)) return bogus(`NODATA for ${name} ${typeName(qtype)}, but its NSEC lists the type`);
  if (types.has(DnssecType.CNAME)) return bogus(`NODATA for ${name} ${typeName(qtype)}, but its NSEC lists a CNAME`);
  if (exact && qtype === DnssecType.DS && types.has(DnssecType.SOA)) {
    return bogus(`no DS for ${name} proven by the child zone's apex NSEC, not the parent's`);
  }
  if (qtype !== DnssecType.DS && types.has(DnssecType.NS) && !types.has(DnssecType.SOA)) {
    return bogus(`NODATA for ${name} ${typeName(qtype)} from the parent side of a zone cut`);
  }
  return SECURE;
}

/**
 * A wildcard answer (RFC 4035 section 5.3.4): `wildcard` ("*.<closest encloser>", from the
 * RRSIG) is the closest match, because an NSEC covers the name asked and no name closer to it
 * than the wildcard's parent exists.
 */
export function nsecWildcardAnswer(proof: ProofRecords, wildcard: Labels): Verdict {
  const { qname, zone } = proof;
  const parent = wildcard.slice(1);
  if (!isBelow(qname, parent)) return bogus(`${formatName(wildcard)} cannot expand to ${formatName(qname)}`);
  const nsecs = nsecsOf(proof);
  const cover = find(
    proof,
    nsecs,
    (nsec) =>
      covers(nsec, qname, zone) &&
      !isBelow(nsec.data.nextName, qname) &&
      namesEqual(closestEncloser(qname, nsec), parent),
  );
  if (!cover) return missing(proof, `${formatName(qname)} is not a closer match than ${formatName(wildcard)}`);
  return SECURE;
}
