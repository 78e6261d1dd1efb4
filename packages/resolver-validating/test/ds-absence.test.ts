/**
 * What a proven absence of DS says about a zone cut is read from the bitmap the proof verified,
 * never from the authority section: a forged NSEC placed before the real one must not turn a
 * name of a signed zone into an "insecure delegation" (a downgrade of everything below it).
 */
import { Rcode, parseName } from '@dnscore/core/plugin';
import { describe, expect, it } from 'vitest';
import { dsAbsence } from '../src/ds-absence.js';
import type { Fetched } from '../src/upstream.js';
import { type Rr, type SignedRrset, ValidationBudget, verifyDnskeys } from '../src/validate/index.js';
import { denialRrsets, rrsetOf, signZone, testClock } from './validate/support/ldns.js';
import { typeBitmaps } from './validate/support/signer.js';
import { DENIAL_BODY } from './validate/support/zones.js';

const NS = 2;
const NSEC = 47;
const DNSKEY = 48;

const zone = signZone({ origin: 'example', body: DENIAL_BODY, keys: [{ algorithm: 'ECDSAP256SHA256', ksk: true }] });
const options = () => ({ clock: testClock, budget: new ValidationBudget() });
const keys = verifyDnskeys(rrsetOf(zone.records, 'example', DNSKEY), 'example', zone.ds.get(2)!, options()).keys!;
const above = { zone: parseName('example'), keys };

function wireName(name: string): Uint8Array {
  const labels = name.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
  return Buffer.concat([...labels, Buffer.from([0])]);
}

/** A NODATA answer to "name DS" whose authority section holds `authority`, in that order. */
function noDs(authority: readonly SignedRrset[]): Fetched {
  return {
    rcode: Rcode.NOERROR,
    answer: [],
    authority: authority.flatMap((set) => [...set.records, ...set.rrsigs]),
    additional: [],
    answerSets: [],
    authoritySets: authority,
  } as unknown as Fetched;
}

/** The zone's own NSEC of `name` (the one a proof of "no DS at name" uses). */
const nsecOf = (name: string): SignedRrset => {
  const found = denialRrsets(zone.records, NSEC).find((set) => set.records[0]!.name === name);
  if (!found) throw new Error(`no NSEC at ${name}`);
  return found;
};

describe('dsAbsence: a zone cut is read from the verified bitmap only', () => {
  it('a name of the zone with no DS is no cut', () => {
    const verdict = dsAbsence(parseName('a.example'), noDs([nsecOf('a.example')]), above, options());
    expect(verdict.kind).toBe('no-cut');
  });

  it('an unsigned delegation (NS, no DS, no SOA in the signed NSEC) is an insecure delegation', () => {
    const verdict = dsAbsence(parseName('sub.example'), noDs([nsecOf('sub.example')]), above, options());
    expect(verdict.kind).toBe('insecure-delegation');
  });

  it('a forged, unsigned NSEC saying "NS only" placed before the real one changes nothing', () => {
    const forged: Rr = {
      name: 'a.example',
      rrtype: NSEC,
      class: 1,
      ttl: 3600,
      rdata: Buffer.concat([wireName('c.example'), typeBitmaps([NS])]),
    };
    const fetched = noDs([{ records: [forged], rrsigs: [] }, nsecOf('a.example')]);
    const verdict = dsAbsence(parseName('a.example'), fetched, above, options());
    expect(verdict.kind).not.toBe('insecure-delegation');
    expect(verdict.kind).toBe('no-cut');
  });
});
