/**
 * One answer checked link by link (RFC 4035 section 5, RFC 6672 for DNAME): from the name
 * asked, each CNAME or DNAME RRset and then the data are validated with the keys of the zone
 * that signed them; an unsigned RRset is insecure only when its zone is proven insecure, else
 * it is bogus (a signed zone whose records come back unsigned). A wildcard expansion needs its
 * proof; a name without the data needs a proven NXDOMAIN or NODATA from the zone that holds it.
 * The verdict is the weakest of the links (core's weakestStatus).
 */
import { Ede, Rcode, type Labels } from '@dnscore/core/plugin';
import { dnameTarget, findDname, findSet, targetOf } from './chain-links.js';
import type { ChainOfTrust } from './chain-of-trust.js';
import { fqdn, isAtOrBelow, keyOf } from './names.js';
import type { Fetched } from './upstream.js';
import {
  DnssecType,
  groupRrsets,
  ownerOf,
  parseRrsig,
  proveNodata,
  proveNxdomain,
  proveWildcardAnswer,
  type DenialInput,
  type SignedRrset,
  type Verdict,
  type DenialOptions,
} from './validate/index.js';

/** A verdict on a whole answer, or on one part of it. */
export interface AnswerVerdict {
  readonly status: 'secure' | 'insecure' | 'bogus';
  readonly whyBogus?: string;
  readonly ede?: number;
  readonly whyInsecure?: string;
}

/** Where validating one message left the chain. */
export interface Walked {
  /** One verdict per link and proof. */
  readonly parts: readonly AnswerVerdict[];
  /** The name the chain ended at. */
  readonly end: Labels;
  /** CNAME and DNAME links followed. */
  readonly links: number;
  /**
   * The chain left the message without data or a denial for its end (an authoritative
   * server does not follow a CNAME into another zone): the end must be asked on its own.
   */
  readonly unfinished: boolean;
  /**
   * The CNAMEs followed from a DNAME that the message did not carry (RFC 6672 section 3.2: the
   * resolver synthesizes them): the core follows CNAMEs only, so the packet it gets needs them.
   */
  readonly synthesized: readonly SynthesizedCname[];
}

/** A CNAME synthesized from a validated DNAME (owner of the DNAME, the name, its target). */
export interface SynthesizedCname {
  readonly dnameOwner: Labels;
  readonly owner: Labels;
  readonly target: Labels;
}

const SECURE: AnswerVerdict = { status: 'secure' };

/**
 * Validates the part of `fetched` that answers `name`/`qtype`, following CNAME and DNAME
 * links up to `maxLinks` in all (`linksSoFar` already followed).
 */
export async function walkAnswer(
  fetched: Fetched,
  name: Labels,
  qtype: number,
  chain: ChainOfTrust,
  options: DenialOptions,
  linksSoFar: number,
  maxLinks: number,
): Promise<Walked> {
  const parts: AnswerVerdict[] = [];
  const synthesized: SynthesizedCname[] = [];
  let current = name;
  let links = linksSoFar;
  const seen = new Set<string>();
  for (;;) {
    const key = keyOf(current);
    if (seen.has(key)) {
      parts.push(bogus(`the CNAME/DNAME chain loops at ${fqdn(current)}`));
      return { parts, end: current, links, unfinished: false, synthesized };
    }
    seen.add(key);
    if (qtype === ANY) {
      // Every RRset the name has (RFC 8482 allows one): each validated on its own.
      const all = fetched.answerSets.filter((set) => set.records.length > 0 && keyOf(ownerOf(set.records[0]!)) === key);
      if (all.length > 0) {
        for (const set of all) parts.push(...(await rrsetParts(set, current, fetched, chain, options)));
        parts.push(...nameErrorWithData(fetched, current));
        return { parts, end: current, links, unfinished: false, synthesized };
      }
    }
    const data = qtype === DnssecType.CNAME || qtype === ANY ? undefined : findSet(fetched, current, qtype);
    if (data && findSet(fetched, current, DnssecType.CNAME)) {
      // The core follows a CNAME before it looks for data: validating the data alone would vouch
      // for the chain an unsigned CNAME beside it leads to. A CNAME has no other data beside it
      // (RFC 2181 section 10.1).
      parts.push(bogus(`${fqdn(current)} has a CNAME and ${typeText(data)} data beside it`));
      return { parts, end: current, links, unfinished: false, synthesized };
    }
    if (data) {
      parts.push(...(await rrsetParts(data, current, fetched, chain, options)));
      parts.push(...nameErrorWithData(fetched, current));
      return { parts, end: current, links, unfinished: false, synthesized };
    }
    // A DNAME's synthesized CNAME is unsigned (RFC 6672 section 5.3.1): the DNAME is validated
    // and the CNAME must say what the DNAME says.
    const dname = findDname(fetched, current);
    const signedCname = findSet(fetched, current, DnssecType.CNAME);
    const cname = dname && signedCname?.rrsigs.length === 0 ? undefined : signedCname;
    if (dname && !cname && signedCname && !sameName(targetOf(signedCname), dnameTarget(dname, current))) {
      parts.push(bogus(`the CNAME at ${fqdn(current)} is not the one its DNAME synthesizes`));
      return { parts, end: current, links, unfinished: false, synthesized };
    }
    const link = cname ?? dname;
    if (qtype === DnssecType.CNAME && cname) {
      // The CNAME asked for is the answer (RFC 1034 section 3.6.2): nothing is denied.
      parts.push(...(await rrsetParts(cname, current, fetched, chain, options)));
      parts.push(...nameErrorWithData(fetched, current));
      return { parts, end: current, links, unfinished: false, synthesized };
    }
    if (!link) break;
    if (++links > maxLinks) {
      parts.push(bogus(`the CNAME/DNAME chain from ${fqdn(name)} is longer than ${maxLinks} links`));
      return { parts, end: current, links, unfinished: false, synthesized };
    }
    parts.push(...(await rrsetParts(link, current, fetched, chain, options)));
    const target = cname ? targetOf(cname) : dnameTarget(dname!, current);
    if (!target) {
      parts.push(bogus(`the ${cname ? 'CNAME' : 'DNAME'} at ${fqdn(current)} has no usable target`));
      return { parts, end: current, links, unfinished: false, synthesized };
    }
    if (!cname && !signedCname) synthesized.push({ dnameOwner: ownerOf(dname!.records[0]!), owner: current, target });
    current = target;
  }
  // The chain ends at `current` without the data.
  const asked = keyOf(current) === keyOf(name);
  const denied = asked || hasDenialFor(fetched, current);
  if (!denied && fetched.rcode === Rcode.NOERROR) return { parts, end: current, links, unfinished: true, synthesized };
  const denial = await denialPart(fetched, current, qtype, chain, options);
  // A denial for a link's target that does not hold in this message is not the target zone's
  // last word: an authoritative server that follows a DNAME or CNAME into another of its zones
  // may leave out a record of the proof (nsd does). The end is asked on its own, as libunbound
  // and BIND do; what that answer proves is the verdict, so nothing is taken on trust.
  if (denial.status === 'bogus' && !asked) return { parts, end: current, links, unfinished: true, synthesized };
  parts.push(denial);
  return { parts, end: current, links, unfinished: false, synthesized };
}

/**
 * The rcode is not signed: NXDOMAIN beside the data that answers the question (the name
 * exists) is a forged or broken answer, bogus, never a secure NXDOMAIN (libunbound agrees).
 */
function nameErrorWithData(fetched: Fetched, name: Labels): AnswerVerdict[] {
  if (fetched.rcode !== Rcode.NXDOMAIN) return [];
  return [bogus(`NXDOMAIN, but the answer holds data of ${fqdn(name)}`)];
}

/**
 * True when the additional section holds A or AAAA RRsets and every one of them is signed and
 * validates (RFC 4035 section 5.3: any RRset can be checked with its zone's keys), so they may
 * stand in for their own questions. Unsigned ones make it false without asking anything.
 */
export async function additionalValidated(
  fetched: Fetched,
  chain: ChainOfTrust,
  options: DenialOptions,
): Promise<boolean> {
  const sets = groupRrsets(fetched.additional).filter(
    (set) => set.records[0]?.rrtype === ADDRESS_A || set.records[0]?.rrtype === ADDRESS_AAAA,
  );
  if (sets.length === 0 || sets.some((set) => set.rrsigs.length === 0)) return false;
  for (const set of sets) {
    const parts = await rrsetParts(set, ownerOf(set.records[0]!), fetched, chain, options);
    if (parts.some((part) => part.status !== 'secure')) return false;
  }
  return true;
}

const ANY = 255;
const ADDRESS_A = 1;
const ADDRESS_AAAA = 28;

/** The weakest of `parts`; the first bogus one gives the reason. */
export function weakest(parts: readonly AnswerVerdict[]): AnswerVerdict {
  const bad = parts.find((p) => p.status === 'bogus');
  if (bad) return bad;
  const unsure = parts.find((p) => p.status === 'insecure');
  return unsure ?? (parts.length > 0 ? SECURE : { status: 'insecure', whyInsecure: 'nothing to validate' });
}

/** An RRset's verdict, and the wildcard proof it needs when it was expanded from one. */
async function rrsetParts(
  set: SignedRrset,
  owner: Labels,
  fetched: Fetched,
  chain: ChainOfTrust,
  options: DenialOptions,
): Promise<AnswerVerdict[]> {
  if (set.rrsigs.length === 0) return [await unsignedPart(owner, `${fqdn(owner)} ${typeText(set)}: no RRSIG`, chain)];
  let best: AnswerVerdict | undefined;
  for (const signer of signersOf(set, owner)) {
    const zone = await chain.zoneOf(signer);
    let verdict: AnswerVerdict;
    if (zone.status === 'bogus') verdict = bogus(zone.why, zone.ede);
    else if (zone.status === 'insecure') {
      verdict = await insecureSigner(owner, signer, `${fqdn(owner)} ${typeText(set)}`, zone.why, chain);
    } else if (keyOf(zone.zone) !== keyOf(signer)) {
      verdict = bogus(`${fqdn(owner)} ${typeText(set)}: signed by ${fqdn(signer)}, which is not a zone apex`);
    } else {
      const checked = chain.verified.verify(set, zone.keys, signer, options);
      if (checked.status === 'secure' && checked.wildcard) {
        const input = denialInput(fetched, owner, typeOf(set) ?? 0, signer, zone.keys);
        const proof = proveWildcardAnswer(input, checked.wildcard, options);
        return [SECURE, fromVerdict(proof)];
      }
      verdict = fromVerdict(checked);
    }
    if (verdict.status === 'secure') return [verdict];
    if (!best || (best.status === 'bogus' && verdict.status === 'insecure')) best = verdict;
  }
  return [best ?? (await unsignedPart(owner, `${fqdn(owner)} ${typeText(set)}: no usable RRSIG`, chain))];
}

/** Data without a signature: insecure where the zone is proven insecure, bogus in a signed zone. */
async function unsignedPart(owner: Labels, why: string, chain: ChainOfTrust): Promise<AnswerVerdict> {
  const zone = await chain.zoneOf(owner);
  if (zone.status === 'secure') return bogus(`${why} in the signed zone ${fqdn(zone.zone)}`, Ede.RRSIGS_MISSING);
  if (zone.status === 'bogus') return bogus(zone.why, zone.ede);
  return { status: 'insecure', whyInsecure: zone.why };
}

/**
 * An RRSIG whose signer lies in an insecure zone (`why`): insecure only when the owner's own
 * zone is insecure too. A signer name is the attacker's to write: one above a trust anchor
 * deeper than the root (no anchor covers it) must not make the data of the anchored zone insecure.
 */
async function insecureSigner(
  owner: Labels,
  signer: Labels,
  what: string,
  why: string,
  chain: ChainOfTrust,
): Promise<AnswerVerdict> {
  const zone = await chain.zoneOf(owner);
  if (zone.status === 'insecure') return { status: 'insecure', whyInsecure: why };
  if (zone.status === 'bogus') return bogus(zone.why, zone.ede);
  return bogus(`${what}: signed by ${fqdn(signer)}, outside the chain of trust of the signed zone ${fqdn(zone.zone)}`);
}

/** NXDOMAIN or NODATA for `name`: proven by the NSEC/NSEC3 records of its zone, or insecure. */
async function denialPart(
  fetched: Fetched,
  name: Labels,
  qtype: number,
  chain: ChainOfTrust,
  options: DenialOptions,
): Promise<AnswerVerdict> {
  if (fetched.rcode !== Rcode.NOERROR && fetched.rcode !== Rcode.NXDOMAIN) {
    // SERVFAIL, REFUSED: nothing to validate, and nothing to use.
    return { status: 'insecure', whyInsecure: 'no data to validate' };
  }
  const signer = denialSigner(fetched, name);
  const what = `${fetched.rcode === Rcode.NXDOMAIN ? 'NXDOMAIN' : 'NODATA'} for ${fqdn(name)}`;
  if (!signer) {
    const part = await unsignedPart(name, `${what}: no signed NSEC or NSEC3`, chain);
    return part.status === 'bogus' && part.ede === Ede.RRSIGS_MISSING ? { ...part, ede: Ede.NSEC_MISSING } : part;
  }
  const zone = await chain.zoneOf(signer);
  if (zone.status === 'bogus') return bogus(zone.why, zone.ede);
  if (zone.status === 'insecure') return insecureSigner(name, signer, what, zone.why, chain);
  if (keyOf(zone.zone) !== keyOf(signer)) return bogus(`${what}: signed by ${fqdn(signer)}, not a zone apex`);
  const input = denialInput(fetched, name, qtype, signer, zone.keys);
  const verdict = fetched.rcode === Rcode.NXDOMAIN ? proveNxdomain(input, options) : proveNodata(input, options);
  return fromVerdict(verdict, what);
}

function denialInput(fetched: Fetched, qname: Labels, qtype: number, zone: Labels, keys: DenialInput['keys']) {
  return { qname, qtype, zone, rrsets: fetched.authoritySets, keys } satisfies DenialInput;
}

/** The signer of the authority section's NSEC, NSEC3 or SOA RRSIGs that may speak for `name`. */
function denialSigner(fetched: Fetched, name: Labels): Labels | undefined {
  for (const set of fetched.authoritySets) {
    const type = typeOf(set);
    if (type !== DnssecType.NSEC && type !== DnssecType.NSEC3 && type !== DnssecType.SOA) continue;
    for (const signer of signersOf(set, name)) return signer;
  }
  return undefined;
}

/** True when the authority section holds an SOA of a zone at or above `name` (a denial for it). */
function hasDenialFor(fetched: Fetched, name: Labels): boolean {
  return fetched.authority.some((r) => r.rrtype === DnssecType.SOA && isAtOrBelow(name, ownerOf(r)));
}

/** The distinct signer names of `set`'s RRSIGs that are `owner` or above it (RFC 4035 5.3.1). */
function signersOf(set: SignedRrset, owner: Labels): Labels[] {
  const found = new Map<string, Labels>();
  for (const record of set.rrsigs) {
    try {
      const signer = parseRrsig(record.rdata).signerName;
      if (isAtOrBelow(owner, signer)) found.set(keyOf(signer), signer);
    } catch {
      // A malformed RRSIG is one signature fewer: verifyRrset reports it if nothing else verifies.
    }
  }
  return [...found.values()];
}

function sameName(a: Labels | undefined, b: Labels | undefined): boolean {
  return a !== undefined && b !== undefined && keyOf(a) === keyOf(b);
}

function typeOf(set: SignedRrset): number | undefined {
  return set.records[0]?.rrtype;
}

function typeText(set: SignedRrset): string {
  return `type ${typeOf(set) ?? '?'}`;
}

function fromVerdict(verdict: Verdict, context?: string): AnswerVerdict {
  if (verdict.status === 'secure') return SECURE;
  if (verdict.status === 'insecure') return { status: 'insecure', whyInsecure: verdict.whyInsecure ?? 'insecure' };
  const why = verdict.whyBogus ?? 'not validated';
  return bogus(context && !why.includes(context) ? `${context}: ${why}` : why, verdict.ede);
}

function bogus(why: string, ede: number = Ede.DNSSEC_BOGUS): AnswerVerdict {
  return { status: 'bogus', whyBogus: why, ede };
}
