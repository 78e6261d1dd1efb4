/**
 * The validator engine of @dnscore/resolver-validating: pure functions, no network, no state
 * beyond a small cache of parsed public keys. The resolver (the chain-of-trust walk, the
 * questions, the caches) imports only this module.
 *
 * How a resolver uses it, per RFC 4035 section 5:
 *
 * 1. Records: `uncompressedRecord(packet, wireRecord)` turns each record of a message parsed
 *    by core's `parseMessage` into an `Rr` (core's RecordBase: name, rrtype, class, ttl,
 *    rdata) with the names in its RDATA expanded; `groupRrsets(records)` makes RRsets, each with
 *    the RRSIGs that cover it (`SignedRrset`).
 * 2. One `ValidationBudget` per question (KeyTrap, CVE-2023-50387; NSEC3 hashing,
 *    CVE-2023-50868): pass it in the options of every call for that question. When it runs
 *    out, the call in progress returns bogus with a reason; nothing loops or throws.
 * 3. Keys: `verifyDnskeys(dnskeyRrset, zone, trusted, options)` authenticates a zone's DNSKEY
 *    RRset with the parent's validated DS records, or with trust anchors (DS or DNSKEY
 *    records). Secure: `keys` are the zone keys for the next calls. Insecure: no DS/anchor with
 *    a supported algorithm and digest (RFC 4035 section 5.2), so the zone is treated unsigned.
 * 4. Data: `verifyRrset(rrset, keys, zone, options)` checks an RRset's RRSIGs (signer = zone,
 *    type covered, labels, validity window with `clockSkewSeconds` of slack against the
 *    injected `clock`, key tag, algorithm, zone-key and revoke flags) and the signature. A
 *    secure verdict carries `ttl` (RFC 4035 section 5.3.3) and, for a wildcard expansion,
 *    `wildcard` ("*.<closest encloser>"): then `proveWildcardAnswer` must also hold.
 *    A DS RRset is checked like any RRset, with the parent zone's keys.
 * 5. Denial: `proveNxdomain`, `proveNodata` (qtype DS included: the proof of an insecure
 *    delegation) and `proveWildcardAnswer` take the NSEC or NSEC3 RRsets of the authority
 *    section with their RRSIGs, and verify the ones a proof uses with the zone keys
 *    themselves, so their verdict is never better than what was validated. Insecure (as
 *    unbound has it): an NSEC3 opt-out span over the next closer name, iterations above
 *    `maxNsec3Iterations` (RFC 9276, default 100, EDE 27), a name below a proven unsigned
 *    delegation (NODATA for a non-DS type at one too). A secure
 *    proof carries `ttl` (lowest of the records used) and, for a NODATA proven by the name's
 *    own NSEC/NSEC3, its verified `types`: for qtype DS, NS without SOA there is an insecure
 *    delegation. Read bitmaps from here, never from the unverified authority records.
 *
 * Every verdict is `{ status: 'secure' | 'insecure' | 'bogus', whyBogus?, whyInsecure?, ede? }`
 * with core's DnssecStatus names and core's `Ede` INFO-CODEs (RFC 8914), ready for a
 * PluginAnswer. The engine never throws on hostile data; it throws only for a caller's bad
 * options (an InvalidArgumentError).
 */
export type { Rr, SignedRrset, TimeOptions, Verdict } from './types.js';
export {
  type BudgetLimits,
  ValidationBudget,
  DEFAULT_MAX_NSEC3_HASHES_PER_QUESTION,
  DEFAULT_MAX_VERIFICATIONS_PER_QUESTION,
  DEFAULT_MAX_VERIFICATIONS_PER_RRSET,
} from './budget.js';
export { DEFAULT_CLOCK_SKEW_SECONDS } from './time.js';
export { uncompressedRecord, groupRrsets, typeCovered } from './rrsets.js';
export { ownerOf } from './owner.js';
export { type RrsetVerdict, type VerifyOptions, type ZoneKey, verifyRrset, zoneKeys } from './verify-rrset.js';
export { type DnskeyVerdict, verifyDnskeys } from './verify-dnskeys.js';
export { proveNxdomain, proveNodata, proveWildcardAnswer } from './denial.js';
export {
  type DenialInput,
  type DenialOptions,
  type DenialVerdict,
  DEFAULT_MAX_NSEC3_ITERATIONS,
} from './denial-input.js';
export { nsec3Hash, base32hexEncode, base32hexDecode } from './nsec3-hash.js';
export { isSupportedAlgorithm, algorithmName } from './algorithms.js';
export { isSupportedDigest, dsDigest } from './ds-digest.js';
export { keyTag } from './key-tag.js';
export { compareNames, canonicalLabels } from './canonical-name.js';
export { canonicalRdata, hasCanonicalNames } from './rdata-names.js';
export {
  DnssecType,
  DnskeyFlag,
  NSEC3_OPT_OUT,
  RdataFormatError,
  type DnskeyData,
  type DsData,
  type NsecData,
  type Nsec3Data,
  type RrsigData,
  parseDnskey,
  parseDs,
  parseNsec,
  parseNsec3,
  parseRrsig,
} from './rdata.js';
