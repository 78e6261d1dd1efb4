/**
 * Denial proofs against the zone's truth (seeded): for random names in zones ldns signed with
 * NSEC and with NSEC3, NXDOMAIN is proven exactly for the names that do not exist and no
 * wildcard covers, NODATA exactly for the names (or wildcard matches) without the type.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ValidationBudget,
  proveNodata,
  proveNxdomain,
  proveWildcardAnswer,
  verifyDnskeys,
} from '../../src/validate/index.js';
import { denialRrsets, rrsetOf, signZone, testClock } from './support/ldns.js';
import { DENIAL_BODY } from './support/zones.js';

const A = 1;
const TXT = 16;
const DS = 43;
const options = () => ({ clock: testClock, budget: new ValidationBudget() });

/** The names of DENIAL_BODY with their types; empty non-terminals have none. */
const TRUTH = new Map<string, number[]>([
  ['example', [2, 6]],
  ['ns1.example', [A]],
  ['a.example', [A]],
  ['c.example', [TXT]],
  ['x.y.e.example', [A]],
  ['y.e.example', []],
  ['e.example', []],
  ['*.w.example', [TXT]],
  ['w.example', []],
]);
const DELEGATIONS = ['sub.example', 'sec.example'];

type Status = 'secure' | 'insecure' | 'bogus';
type Expected = { nxdomain: (qtype: number) => Status; nodata: (qtype: number) => Status };

const secureIf = (proven: boolean): Status => (proven ? 'secure' : 'bogus');

/** What the proofs must give for `name`, with NSEC or with NSEC3 (unbound's verdicts). */
function truth(name: string, nsec3: boolean): Expected {
  // Below the unsigned delegation sub.example: the child's names, insecure (NSEC3 refuses DS there).
  if (name.endsWith('.sub.example')) {
    const below = (qtype: number): Status => (nsec3 && qtype === DS ? 'bogus' : 'insecure');
    return { nxdomain: below, nodata: below };
  }
  // Below the signed delegation sec.example the parent must refer, never deny.
  if (name.endsWith('.sec.example')) return { nxdomain: () => 'bogus', nodata: () => 'bogus' };
  // At a delegation the parent proves that there is no DS where there is none; other types are the child's.
  if (name === 'sub.example') return { nxdomain: () => 'bogus', nodata: (t) => (t === DS ? 'secure' : 'insecure') };
  if (name === 'sec.example') return { nxdomain: () => 'bogus', nodata: () => 'bogus' };
  // The apex's DS lives in the parent zone: its own NSEC cannot deny it.
  if (name === 'example') return { nxdomain: () => 'bogus', nodata: (t) => secureIf(t !== DS) };
  const types = TRUTH.get(name);
  if (types) return { nxdomain: () => 'bogus', nodata: (t) => secureIf(!types.includes(t)) };
  if (name.endsWith('.w.example')) return { nxdomain: () => 'bogus', nodata: (t) => secureIf(t !== TXT) };
  return { nxdomain: () => 'secure', nodata: () => 'bogus' };
}

/** The longest ancestor of a name that does not exist (the closest encloser), in the zone's truth. */
function closestEncloser(name: string): string {
  let ce = name;
  while (!TRUTH.has(ce) && !DELEGATIONS.includes(ce)) ce = ce.slice(ce.indexOf('.') + 1);
  return ce;
}

const qname = fc
  .array(fc.constantFrom('a', 'b', 'c', 'e', 'y', 'x', 'w', 'sub', 'zz', 'ns1', '*'), { minLength: 1, maxLength: 3 })
  .map((labels) => `${labels.join('.')}.example`);

describe.each([
  ['NSEC', undefined, 47 as const],
  ['NSEC3', { salt: '5eed', iterations: 2 }, 50 as const],
])('%s proofs agree with the zone', (_name, nsec3, type) => {
  const zone = signZone({
    origin: 'example',
    body: DENIAL_BODY,
    keys: [{ algorithm: 'ED25519', ksk: true }],
    ...(nsec3 ? { nsec3 } : {}),
  });
  const keys = verifyDnskeys(rrsetOf(zone.records, 'example', 48), 'example', zone.ds.get(2)!, options()).keys!;
  const rrsets = denialRrsets(zone.records, type);

  it('for 200 random names and types A, TXT, DS', () => {
    let checked = 0;
    fc.assert(
      fc.property(qname, fc.constantFrom(A, TXT, DS), (name, qtype) => {
        const expected = truth(name, type === 50);
        checked++;
        const input = { qname: name, qtype, zone: 'example', rrsets, keys };
        expect(proveNxdomain(input, options()).status, `NXDOMAIN ${name} ${qtype}`).toBe(expected.nxdomain(qtype));
        expect(proveNodata(input, options()).status, `NODATA ${name} ${qtype}`).toBe(expected.nodata(qtype));
        // A wildcard answer is proven when the name does not exist and the wildcard's parent is its closest encloser.
        if (name.endsWith('.sub.example') || name.endsWith('.sec.example')) return;
        for (const parent of ['example', 'w.example']) {
          const exists = TRUTH.has(name) || DELEGATIONS.includes(name);
          const wild = proveWildcardAnswer(input, `*.${parent}`, options()).status;
          expect(wild, `${name} from *.${parent}`).toBe(secureIf(!exists && closestEncloser(name) === parent));
        }
      }),
      { seed: 5155, numRuns: 200 },
    );
    expect(checked).toBe(200);
  });
});
