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

type Expected = { nxdomain: boolean; nodata: (type: number) => boolean } | 'skip';

function truth(name: string): Expected {
  if (DELEGATIONS.some((d) => name.endsWith(`.${d}`))) return 'skip';
  // At a delegation the parent proves only that there is no DS, and only where there is none.
  if (DELEGATIONS.includes(name)) return { nxdomain: false, nodata: (type) => type === DS && name === 'sub.example' };
  // The apex's DS lives in the parent zone: its own NSEC cannot deny it.
  if (name === 'example') return { nxdomain: false, nodata: (type) => type !== DS && type !== 6 };
  const types = TRUTH.get(name);
  if (types) return { nxdomain: false, nodata: (type) => !types.includes(type) };
  if (name.endsWith('.w.example')) return { nxdomain: false, nodata: (type) => type !== TXT };
  return { nxdomain: true, nodata: () => false };
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
        const expected = truth(name);
        if (expected === 'skip') return;
        checked++;
        const input = { qname: name, qtype, zone: 'example', rrsets, keys };
        const nx = proveNxdomain(input, options()).status;
        const nd = proveNodata(input, options()).status;
        expect(nx, `NXDOMAIN ${name}`).toBe(expected.nxdomain ? 'secure' : 'bogus');
        expect(nd, `NODATA ${name} ${qtype}`).toBe(expected.nodata(qtype) ? 'secure' : 'bogus');
        // A wildcard answer is proven when the name does not exist and the wildcard's parent is its closest encloser.
        for (const parent of ['example', 'w.example']) {
          const proven = expected.nxdomain || name.endsWith('.w.example') ? closestEncloser(name) === parent : false;
          const exists = TRUTH.has(name) || DELEGATIONS.includes(name);
          const wild = proveWildcardAnswer(input, `*.${parent}`, options()).status;
          expect(wild, `${name} from *.${parent}`).toBe(proven && !exists ? 'secure' : 'bogus');
        }
      }),
      { seed: 5155, numRuns: 200 },
    );
    expect(checked).toBeGreaterThan(150);
  });
});
