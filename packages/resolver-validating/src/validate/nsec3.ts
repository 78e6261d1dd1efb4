/**
 * Denial of existence with NSEC3 (RFC 5155 section 8): the closest encloser proof (8.3),
 * NXDOMAIN (8.4), NODATA (8.5, 8.6 for DS, 8.7 for a wildcard) and wildcard answers (8.8).
 * Only hash algorithm 1 and the opt-out flag are understood; other NSEC3 records are ignored
 * (8.1, 8.2). Opt-out spans give insecure (no proof either way), and so do iterations above
 * the limit (RFC 9276 section 3.2, EDE 27). Every name hashed spends the question's budget.
 */
import { Ede, type Labels, formatName, typeName } from '@dnscore/core/plugin';
import { ancestor, isAtOrBelow, namesEqual, wildcardOf } from './canonical-name.js';
import { compareBytes } from './canonical-rrset.js';
import { DEFAULT_MAX_NSEC3_ITERATIONS, type ProofRecords } from './denial-input.js';
import { NSEC3_SHA1, base32hexDecode, nsec3Hash } from './nsec3-hash.js';
import { ownerOf } from './owner.js';
import { DnssecType, NSEC3_OPT_OUT, type Nsec3Data, RdataFormatError, parseNsec3 } from './rdata.js';
import { SECURE, bogus, insecure } from './result.js';
import type { SignedRrset, Verdict } from './types.js';

interface Nsec3 {
  readonly hash: Uint8Array;
  readonly data: Nsec3Data;
  readonly rrset: SignedRrset;
}

/** RFC 8914 / IANA: Unsupported NSEC3 Iterations Value. */
const EDE_NSEC3_ITERATIONS = 27;

/** Thrown inside a proof when the hash budget is spent; turned into a bogus verdict. */
class HashBudgetSpent extends Error {}

/** The NSEC3 records of one proof, and the hashes computed for it. */
class Nsec3Chain {
  readonly records: Nsec3[] = [];
  private readonly hashes = new Map<string, Uint8Array>();
  /** NSEC3 RRsets of hash algorithms other than SHA-1: insecure once one of them verifies. */
  readonly unknownAlgorithm: SignedRrset[] = [];

  constructor(readonly proof: ProofRecords) {
    const zone = proof.zone;
    for (const rrset of proof.nsec3) {
      if (rrset.records.length !== 1) continue;
      const record = rrset.records[0]!;
      const owner = ownerOf(record);
      // The owner is one base32hex label directly below the zone (RFC 5155 section 3).
      if (owner.length !== zone.length + 1 || !namesEqual(owner.slice(1), zone)) continue;
      let data: Nsec3Data;
      try {
        data = parseNsec3(record.rdata);
      } catch (error) {
        if (!(error instanceof RdataFormatError)) throw error;
        continue;
      }
      if (data.hashAlgorithm !== NSEC3_SHA1) {
        this.unknownAlgorithm.push(rrset);
        continue;
      }
      if ((data.flags & ~NSEC3_OPT_OUT) !== 0) continue;
      const hash = base32hexDecode(owner[0]!);
      if (!hash || hash.length !== data.nextHashed.length) continue;
      this.records.push({ hash, data, rrset });
    }
  }

  /** Leaves out the records with more than `limit` iterations. */
  dropAbove(limit: number): void {
    const kept = this.records.filter((nsec3) => nsec3.data.iterations <= limit);
    this.records.splice(0, this.records.length, ...kept);
  }

  private hashFor(name: Labels, data: Nsec3Data): Uint8Array {
    const key = `${formatName(name).toLowerCase()}|${data.iterations}|${Buffer.from(data.salt).toString('hex')}`;
    const known = this.hashes.get(key);
    if (known) return known;
    if (!this.proof.options.budget.spendNsec3Hash()) throw new HashBudgetSpent();
    const hash = nsec3Hash(name, data.salt, data.iterations);
    this.hashes.set(key, hash);
    return hash;
  }

  /** The verified NSEC3 whose owner is the hash of `name`. */
  matching(name: Labels): Nsec3 | undefined {
    for (const nsec3 of this.records) {
      if (compareBytes(nsec3.hash, this.hashFor(name, nsec3.data)) === 0 && this.proof.verified(nsec3.rrset)) {
        return nsec3;
      }
    }
    return undefined;
  }

  /** The verified NSEC3 whose span holds the hash of `name` strictly inside. */
  covering(name: Labels): Nsec3 | undefined {
    for (const nsec3 of this.records) {
      const hash = this.hashFor(name, nsec3.data);
      const afterOwner = compareBytes(hash, nsec3.hash) > 0;
      const beforeNext = compareBytes(hash, nsec3.data.nextHashed) < 0;
      // The last NSEC3 of the chain wraps around to the first.
      const wraps = compareBytes(nsec3.data.nextHashed, nsec3.hash) <= 0;
      const covered = wraps ? afterOwner || beforeNext : afterOwner && beforeNext;
      if (covered && this.proof.verified(nsec3.rrset)) return nsec3;
    }
    return undefined;
  }
}

interface ClosestEncloser {
  readonly closestEncloser: Labels;
  readonly nextCloser: Labels;
  /** The NSEC3 covering the next closer name. */
  readonly cover: Nsec3;
}

/** RFC 5155 section 8.3: the longest existing ancestor of qname, and its next closer name covered. */
function closestEncloserProof(chain: Nsec3Chain, qname: Labels, qtype: number): ClosestEncloser | Verdict {
  const zone = chain.proof.zone;
  for (let count = qname.length - 1; count >= zone.length; count--) {
    const candidate = ancestor(qname, count);
    const match = chain.matching(candidate);
    if (!match) continue;
    const types = match.data.types;
    if (types.has(DnssecType.NS) && !types.has(DnssecType.SOA)) {
      // Names below a delegation are the child's. Below a proven unsigned one, nothing is
      // signed to check (insecure, as unbound has it); below a signed one the answer is wrong.
      const name = formatName(candidate);
      if (!types.has(DnssecType.DS) && qtype !== DnssecType.DS) {
        return insecure(`${formatName(qname)} lies below the unsigned delegation ${name}`);
      }
      return bogus(`the closest encloser ${name} is a delegation: the answer should have been a referral`);
    }
    if (types.has(DnssecType.DNAME)) return bogus(`the closest encloser ${formatName(candidate)} is a DNAME`);
    const nextCloser = ancestor(qname, count + 1);
    const cover = chain.covering(nextCloser);
    if (!cover) return missingProof(chain, `no NSEC3 covers the next closer name ${formatName(nextCloser)}`);
    return { closestEncloser: candidate, nextCloser, cover };
  }
  return missingProof(chain, `no closest encloser of ${formatName(qname)} is proven`);
}

function missingProof(chain: Nsec3Chain, why: string): Verdict {
  return chain.proof.failure ?? bogus(why, Ede.NSEC_MISSING);
}

function isVerdict(value: ClosestEncloser | Verdict): value is Verdict {
  return 'status' in value;
}

/**
 * Runs `prove` over the proof's NSEC3 chain after the checks that come before any hashing:
 * usable records present, iterations within the limit. A spent hash budget ends bogus.
 */
function withChain(proof: ProofRecords, prove: (chain: Nsec3Chain) => Verdict): Verdict {
  const chain = new Nsec3Chain(proof);
  // Insecure only on the zone's word: a forged record must not downgrade a proof (so verify it first).
  if (chain.records.length === 0) {
    if (chain.unknownAlgorithm.some((rrset) => proof.verified(rrset))) {
      return insecure('NSEC3 with an unknown hash algorithm (RFC 5155 section 8.1)');
    }
    return missingProof(chain, 'no usable NSEC3 record');
  }
  const limit = proof.options.maxNsec3Iterations ?? DEFAULT_MAX_NSEC3_ITERATIONS;
  const costly = chain.records.find((nsec3) => nsec3.data.iterations > limit && proof.verified(nsec3.rrset));
  if (costly) {
    const iterations = costly.data.iterations;
    return insecure(
      `NSEC3 with ${iterations} iterations, above the limit of ${limit} (RFC 9276)`,
      EDE_NSEC3_ITERATIONS,
    );
  }
  // The ones above the limit that did not verify are forgeries: never hash with their parameters.
  chain.dropAbove(limit);
  try {
    return prove(chain);
  } catch (error) {
    if (!(error instanceof HashBudgetSpent)) throw error;
    const max = proof.options.budget.maxNsec3HashesPerQuestion;
    return bogus(`the question's ${max} NSEC3 hashes are spent (CVE-2023-50868 guard)`);
  }
}

/** NXDOMAIN (RFC 5155 section 8.4). */
export function nsec3Nxdomain(proof: ProofRecords): Verdict {
  return withChain(proof, (chain) => {
    const qname = proof.qname;
    if (chain.matching(qname)) return bogus(`NXDOMAIN for ${formatName(qname)}, but an NSEC3 shows the name exists`);
    const ce = closestEncloserProof(chain, qname, proof.input.qtype);
    if (isVerdict(ce)) return ce;
    const wildcard = wildcardOf(ce.closestEncloser);
    if (chain.matching(wildcard)) return bogus(`NXDOMAIN, but the wildcard ${formatName(wildcard)} exists`);
    if (!chain.covering(wildcard)) return missingProof(chain, `no NSEC3 covers the wildcard ${formatName(wildcard)}`);
    if (ce.cover.data.flags & NSEC3_OPT_OUT) {
      return insecure(`${formatName(ce.nextCloser)} lies in an opt-out span: unsigned delegations may exist there`);
    }
    return SECURE;
  });
}

/** NODATA (RFC 5155 sections 8.5-8.7), qtype DS included (the insecure delegation proof). */
export function nsec3Nodata(proof: ProofRecords): Verdict {
  return withChain(proof, (chain) => {
    const { qname } = proof;
    const qtype = proof.input.qtype;
    const match = chain.matching(qname);
    if (match) {
      const types = match.data.types;
      proof.matchedTypes = types;
      const name = formatName(qname);
      if (types.has(qtype)) return bogus(`NODATA for ${name} ${typeName(qtype)}, but its NSEC3 lists the type`);
      if (types.has(DnssecType.CNAME)) return bogus(`NODATA for ${name}, but its NSEC3 lists a CNAME`);
      if (qtype === DnssecType.DS && types.has(DnssecType.SOA)) {
        return bogus(`no DS for ${name} proven by the child zone's apex NSEC3, not the parent's`);
      }
      if (qtype !== DnssecType.DS && types.has(DnssecType.NS) && !types.has(DnssecType.SOA)) {
        if (!types.has(DnssecType.DS)) return insecure(`${name} is an unsigned delegation`);
        return bogus(`NODATA for ${name} ${typeName(qtype)} from the parent side of a zone cut`);
      }
      return SECURE;
    }
    const ce = closestEncloserProof(chain, qname, proof.input.qtype);
    if (isVerdict(ce)) return ce;
    const wildcard = wildcardOf(ce.closestEncloser);
    const source = chain.matching(wildcard);
    if (source) {
      // Section 8.7: the name would come from the wildcard, which lacks the type.
      const types = source.data.types;
      if (types.has(qtype) || types.has(DnssecType.CNAME)) {
        return bogus(`NODATA for ${formatName(qname)}, but the wildcard ${formatName(wildcard)} has the type`);
      }
      if (ce.cover.data.flags & NSEC3_OPT_OUT) {
        return insecure(`${formatName(ce.nextCloser)} lies in an opt-out span: an unsigned delegation may hold it`);
      }
      return SECURE;
    }
    // Section 8.6 (for other types too, erratum 3441): an opt-out span may hide an unsigned delegation.
    if (ce.cover.data.flags & NSEC3_OPT_OUT) {
      return insecure(`${formatName(ce.nextCloser)} lies in an opt-out span: an unsigned delegation`);
    }
    return bogus(`NODATA for ${formatName(qname)}: no NSEC3 matches it or its wildcard`, Ede.NSEC_MISSING);
  });
}

/** A wildcard answer (RFC 5155 section 8.8): the next closer name below the wildcard's parent is covered. */
export function nsec3WildcardAnswer(proof: ProofRecords, wildcard: Labels): Verdict {
  return withChain(proof, (chain) => {
    const { qname } = proof;
    const parent = wildcard.slice(1);
    if (!(qname.length > parent.length && isAtOrBelow(qname, parent))) {
      return bogus(`${formatName(wildcard)} cannot expand to ${formatName(qname)}`);
    }
    const nextCloser = ancestor(qname, parent.length + 1);
    const cover = chain.covering(nextCloser);
    if (!cover) {
      return missingProof(chain, `no NSEC3 covers ${formatName(nextCloser)}: the wildcard answer is not proven`);
    }
    if (cover.data.flags & NSEC3_OPT_OUT) {
      return insecure(`${formatName(nextCloser)} lies in an opt-out span: an unsigned delegation may hold it`);
    }
    return SECURE;
  });
}
