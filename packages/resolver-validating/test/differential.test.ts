/**
 * The same questions over the signed tree of ./support/tree.ts, through this backend and
 * through libunbound with the same trust anchor, both asking nsd directly: identical verdicts
 * (rcode, secure, bogus) and identical records, and each verdict the one RFC 4035 section 4.3
 * gives. Where the libunbound addon is not built, this backend is still held to the table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore, type DnsResult } from '@dnscore/core';
import { UnboundResolver, unboundAvailability } from '@dnscore/resolver-unbound';
import { ValidatingResolver } from '../src/index.js';
import { startTree, type Tree } from './support/tree.js';

type Status = 'secure' | 'insecure' | 'bogus';

/** name, type, rcode, status, records ("owner TYPE data"), EDE of a bogus answer. */
const CASES: readonly [string, string, string, Status, readonly string[], number?][] = [
  ['www.secure.example', 'A', 'NOERROR', 'secure', ['www.secure.example A 192.0.2.80']],
  ['alias.secure.example', 'A', 'NOERROR', 'secure', ['www.secure.example A 192.0.2.80']],
  ['nothere.secure.example', 'A', 'NXDOMAIN', 'secure', []],
  ['www.secure.example', 'AAAA', 'NOERROR', 'secure', []],
  ['deep.secure.example', 'TXT', 'NOERROR', 'secure', []],
  ['x.wild.secure.example', 'A', 'NOERROR', 'secure', ['x.wild.secure.example A 192.0.2.88']],
  ['to-other.secure.example', 'A', 'NOERROR', 'secure', ['www.other.example A 192.0.2.70']],
  ['to-nsec3.secure.example', 'A', 'NOERROR', 'secure', ['www.nsec3.example A 192.0.2.30']],
  ['to-insecure.secure.example', 'A', 'NOERROR', 'insecure', ['www.insecure.example A 192.0.2.90']],
  ['to-bogus.secure.example', 'A', 'NOERROR', 'bogus', [], 6],
  ['www.insecure.example', 'A', 'NOERROR', 'insecure', ['www.insecure.example A 192.0.2.90']],
  ['alias.insecure.example', 'A', 'NOERROR', 'insecure', ['www.secure.example A 192.0.2.80']],
  ['www.nsec3.example', 'A', 'NOERROR', 'secure', ['www.nsec3.example A 192.0.2.30']],
  ['nothere.nsec3.example', 'A', 'NXDOMAIN', 'secure', []],
  ['www.nsec3.example', 'AAAA', 'NOERROR', 'secure', []],
  ['x.wild.nsec3.example', 'A', 'NOERROR', 'secure', ['x.wild.nsec3.example A 192.0.2.33']],
  ['www.optout.example', 'A', 'NOERROR', 'secure', ['www.optout.example A 192.0.2.40']],
  ['www.child.optout.example', 'A', 'NOERROR', 'insecure', ['www.child.optout.example A 192.0.2.41']],
  ['www.expired.example', 'A', 'NOERROR', 'bogus', [], 7],
  ['www.future.example', 'A', 'NOERROR', 'bogus', [], 8],
  ['www.bogus.example', 'A', 'NOERROR', 'bogus', [], 6],
  ['www.nokey.example', 'A', 'NOERROR', 'bogus', [], 9],
  ['www.norrsig.example', 'A', 'NOERROR', 'bogus', [], 10],
  ['other.norrsig.example', 'A', 'NOERROR', 'secure', ['other.norrsig.example A 192.0.2.11']],
  ['www.nowild.example', 'A', 'NOERROR', 'secure', ['www.nowild.example A 192.0.2.13']],
  ['x.wild.nowild.example', 'A', 'NOERROR', 'bogus', []],
  ['www.unknownalg.example', 'A', 'NOERROR', 'insecure', ['www.unknownalg.example A 192.0.2.14']],
  ['www.rollover.example', 'A', 'NOERROR', 'secure', ['www.rollover.example A 192.0.2.15']],
  ['www.ed25519.example', 'A', 'NOERROR', 'secure', ['www.ed25519.example A 192.0.2.16']],
  ['www.moved.secure.example', 'A', 'NOERROR', 'secure', ['www.other.example A 192.0.2.70']],
  // nsd follows the DNAME into other.example but leaves out the NSEC that covers x.other.example:
  // the end of the chain is asked again on its own, as libunbound and delv do.
  ['x.moved.secure.example', 'A', 'NXDOMAIN', 'secure', []],
  // A question for the CNAME itself: the CNAME is the answer, no denial is needed (RFC 1034 section 3.6.2).
  ['alias.secure.example', 'CNAME', 'NOERROR', 'secure', ['alias.secure.example CNAME www.secure.example']],
  [
    'to-insecure.secure.example',
    'CNAME',
    'NOERROR',
    'secure',
    ['to-insecure.secure.example CNAME www.insecure.example'],
  ],
  ['alias.insecure.example', 'CNAME', 'NOERROR', 'insecure', ['alias.insecure.example CNAME www.secure.example']],
  ['x.wildalias.secure.example', 'CNAME', 'NOERROR', 'secure', ['x.wildalias.secure.example CNAME www.secure.example']],
  ['x.wildalias.secure.example', 'A', 'NOERROR', 'secure', ['www.secure.example A 192.0.2.80']],
  ['www.iterations.example', 'A', 'NOERROR', 'secure', ['www.iterations.example A 192.0.2.17']],
  ['nothere.iterations.example', 'A', 'NXDOMAIN', 'insecure', []],
  ['www.iterations.example', 'AAAA', 'NOERROR', 'insecure', []],
  ['nothere.example', 'A', 'NXDOMAIN', 'secure', []],
  ['www.mixedalg.example', 'A', 'NOERROR', 'bogus', [], 9],
  ['www.mixeddigest.example', 'A', 'NOERROR', 'bogus', [], 9],
  ['www.unknowndigest.example', 'A', 'NOERROR', 'insecure', ['www.unknowndigest.example A 192.0.2.20']],
  // Opt-out (RFC 5155 section 7.2.2): a name in an opt-out span proves nothing, insecure, not secure.
  ['nothere.optout.example', 'A', 'NXDOMAIN', 'insecure', []],
  ['nothere.child.optout.example', 'A', 'NXDOMAIN', 'insecure', []],
  ['child.optout.example', 'DS', 'NOERROR', 'secure', []],
  ['www.child.optout.example', 'DS', 'NOERROR', 'insecure', []],
  // Wildcard NODATA (RFC 4035 section 3.1.3.4, RFC 5155 section 7.2.5) and a two-label expansion.
  ['x.wild.secure.example', 'AAAA', 'NOERROR', 'secure', []],
  ['x.wild.nsec3.example', 'AAAA', 'NOERROR', 'secure', []],
  ['x.y.wild.secure.example', 'A', 'NOERROR', 'secure', ['x.y.wild.secure.example A 192.0.2.88']],
  ['insecure.example', 'DS', 'NOERROR', 'secure', []],
  ['x.wild.optout.example', 'A', 'NOERROR', 'insecure', ['x.wild.optout.example A 192.0.2.42']],
  ['x.wild.optout.example', 'AAAA', 'NOERROR', 'insecure', []],
  ['www.salted.example', 'A', 'NOERROR', 'secure', ['www.salted.example A 192.0.2.23']],
  ['nothere.salted.example', 'A', 'NXDOMAIN', 'secure', []],
  ['x.wild.salted.example', 'A', 'NOERROR', 'secure', ['x.wild.salted.example A 192.0.2.24']],
  ['x.wild.salted.example', 'TXT', 'NOERROR', 'secure', []],
  ['ent.salted.example', 'A', 'NOERROR', 'secure', []],
  ['nothere.ent.salted.example', 'A', 'NXDOMAIN', 'secure', []],
  ['nothere.hundred.example', 'A', 'NXDOMAIN', 'secure', []],
  ['www.hundred.example', 'TXT', 'NOERROR', 'secure', []],
  ['www.signed.insecure.example', 'A', 'NOERROR', 'insecure', ['www.signed.insecure.example A 192.0.2.27']],
  ['nothere.signed.insecure.example', 'A', 'NXDOMAIN', 'insecure', []],
  ['www.revokedplus.example', 'A', 'NOERROR', 'secure', ['www.revokedplus.example A 192.0.2.30']],
];

let tree: Tree;
let validating: DnsCore;
let unbound: DnsCore | undefined;

beforeAll(async () => {
  tree = await startTree();
  validating = new DnsCore([
    new ValidatingResolver({ nameservers: [tree.nsd.endpoint] }, { trustAnchors: [tree.anchor] }),
  ]);
  if (unboundAvailability().available) {
    unbound = new DnsCore([
      new UnboundResolver({
        nameservers: [tree.nsd.endpoint],
        resolvConf: false,
        hosts: false,
        qnameMinimisation: false,
        trustAnchors: [tree.anchor],
      }),
    ]);
  }
}, 60_000);

afterAll(async () => {
  await validating?.close();
  await unbound?.close();
  await tree?.stop();
});

function verdict(result: DnsResult): { rcode: string; status: Status; records: string[] } {
  return {
    rcode: result.rcodeName,
    status: result.bogus ? 'bogus' : result.secure ? 'secure' : 'insecure',
    records: result.records.map((r) => `${r.name} ${r.type} ${String(r.data)}`).sort(),
  };
}

describe('the same verdicts as libunbound over a signed tree', () => {
  it.each(CASES)('%s %s: %s, %s', async (name, type, rcode, status, records, ede) => {
    const ours = await validating.resolve(name, type);
    expect(verdict(ours)).toEqual({ rcode, status, records: [...records].sort() });
    if (status === 'bogus') {
      expect(ours.whyBogus?.startsWith(`validation failure <${name}. ${type} IN>: `)).toBe(true);
      if (ede !== undefined) expect(ours.ede).toBe(ede);
    } else {
      expect(ours.whyBogus).toBeUndefined();
    }
    if (unbound) expect(verdict(await unbound.resolve(name, type))).toEqual(verdict(ours));
  });
});

/**
 * Where Debian's libunbound says otherwise and delv (BIND 9.18) agrees with this backend: a DS
 * matching only a revoked KSK (RFC 5011 section 2.1: a revoked key validates nothing but its own
 * revocation; libunbound checks the bit for its RFC 5011 anchors only), signatures expired two
 * hours ago (no skew in BIND; libunbound allows 10% of the window, at most a day), and Ed448
 * (Debian's libunbound is built without it: insecure there, delv says secure).
 */
describe('where libunbound differs, as delv has it', () => {
  it.each([
    ['www.revoked.example', 'bogus', [], 'revoked.example DNSKEY: DNSKEY \\d+ is revoked$'],
    ['www.lapsed.example', 'bogus', [], 'lapsed.example DNSKEY: RRSIG \\(key \\d+\\) expired at '],
    ['www.ed448.example', 'secure', ['www.ed448.example A 192.0.2.21'], undefined],
  ] as const)('%s A: %s', async (name, status, records, why) => {
    const ours = await validating.resolve(name, 'A');
    expect(verdict(ours)).toEqual({ rcode: 'NOERROR', status, records });
    if (why === undefined) expect(ours.whyBogus).toBeUndefined();
    else expect(ours.whyBogus).toMatch(new RegExp(`^validation failure <${name}\\. A IN>: ${why}`));
  });
});

/** ANY (RFC 8482): whatever the server hands back, every RRset validated; not compared with libunbound. */
describe('ANY', () => {
  it('www.secure.example ANY: its RRsets validated, secure', async () => {
    const result = await validating.resolve('www.secure.example', 'ANY');
    expect([result.rcodeName, result.secure, result.bogus]).toEqual(['NOERROR', true, false]);
    expect(result.records.map((r) => `${r.name} ${r.type}`)).toContain('www.secure.example A');
  });

  it('www.bogus.example ANY: its changed A makes it bogus', async () => {
    const result = await validating.resolve('www.bogus.example', 'ANY');
    expect([result.bogus, result.records]).toEqual([true, []]);
  });
});
