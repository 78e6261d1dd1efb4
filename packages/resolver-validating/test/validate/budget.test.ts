/**
 * Hostile zones against the work limits: KeyTrap (CVE-2023-50387) floods of signatures and of
 * keys sharing a tag, and NSEC3 hashing (CVE-2023-50868) of long names. Each ends in a typed
 * bogus verdict after exactly the allowed work.
 */
import { randomBytes } from 'node:crypto';
import { Ede, InvalidArgumentError } from '@dnscore/core/plugin';
import { describe, expect, it } from 'vitest';
import {
  type Rr,
  ValidationBudget,
  keyTag,
  proveNxdomain,
  verifyDnskeys,
  verifyRrset,
  zoneKeys,
} from '../../src/validate/index.js';
import { denialRrsets, rrsetOf, signZone, testClock } from './support/ldns.js';
import { ed25519Key, signRrset } from './support/signer.js';
import { DENIAL_BODY } from './support/zones.js';

const key = ed25519Key('example');
const www: Rr[] = [
  { name: 'www.example', rrtype: 1, class: 1, ttl: 3600, rdata: Uint8Array.of(192, 0, 2, 1) },
  { name: 'www.example', rrtype: 1, class: 1, ttl: 3600, rdata: Uint8Array.of(192, 0, 2, 2) },
];
const goodSig = signRrset(www, 'example', key);

/** An Ed25519 DNSKEY that is not `key` but has its key tag (the last two octets chosen to collide). */
function collidingKey(tag: number): Rr {
  const rdata = Uint8Array.of(1, 1, 3, 15, ...randomBytes(32));
  for (let w = 0; w <= 0xffff; w++) {
    rdata[34] = w >> 8;
    rdata[35] = w & 0xff;
    if (keyTag(rdata) === tag) return { ...key.dnskey, rdata };
  }
  throw new Error('no colliding key');
}

/** An RRSIG with `key`'s tag and a signature of random octets. */
function junkSig(): Rr {
  const rdata = Uint8Array.from(goodSig.rdata);
  rdata.set(randomBytes(64), rdata.length - 64);
  return { ...goodSig, rdata };
}

const options = (budget = new ValidationBudget()) => ({ clock: testClock, budget });

describe('KeyTrap limits (CVE-2023-50387)', () => {
  it('stops after 8 signature checks on one RRset flooded with signatures', () => {
    const budget = new ValidationBudget();
    const flood = { records: www, rrsigs: [...Array.from({ length: 40 }, junkSig), goodSig] };
    const verdict = verifyRrset(flood, zoneKeys([key.dnskey]), 'example', options(budget));
    expect(verdict).toMatchObject({ status: 'bogus', ede: Ede.DNSSEC_BOGUS });
    expect(verdict.whyBogus).toMatch(/gave up after 8 signature checks \(limit per RRset, KeyTrap guard\)/);
    expect(budget.verifications).toBe(8);
  });

  it('stops after 8 checks when many keys share the signing key tag', () => {
    const colliders = Array.from({ length: 30 }, () => collidingKey(key.tag));
    expect(new Set(colliders.map((k) => keyTag(k.rdata)))).toEqual(new Set([key.tag]));
    const budget = new ValidationBudget();
    const keys = zoneKeys([...colliders, key.dnskey]);
    const verdict = verifyRrset({ records: www, rrsigs: [goodSig] }, keys, 'example', options(budget));
    expect(verdict.status).toBe('bogus');
    expect(budget.verifications).toBe(8);
    // The real key tried first: one check, secure.
    const first = new ValidationBudget();
    expect(
      verifyRrset({ records: www, rrsigs: [goodSig] }, zoneKeys([key.dnskey, ...colliders]), 'example', options(first))
        .status,
    ).toBe('secure');
    expect(first.verifications).toBe(1);
  });

  it('bounds a DNSKEY RRset whose self-signatures are a flood the same way', () => {
    const dnskeys = [key.dnskey];
    const selfSig = signRrset(dnskeys, 'example', key);
    const junk = Array.from({ length: 20 }, () => {
      const rdata = Uint8Array.from(selfSig.rdata);
      rdata.set(randomBytes(64), rdata.length - 64);
      return { ...selfSig, rdata };
    });
    const budget = new ValidationBudget();
    const verdict = verifyDnskeys(
      { records: dnskeys, rrsigs: [...junk, selfSig] },
      'example',
      dnskeys,
      options(budget),
    );
    expect(verdict.status).toBe('bogus');
    expect(budget.verifications).toBe(8);
    expect(verifyDnskeys({ records: dnskeys, rrsigs: [selfSig] }, 'example', dnskeys, options()).status).toBe('secure');
  });

  it('bounds the signature checks of a whole question', () => {
    const budget = new ValidationBudget({ maxVerificationsPerQuestion: 3 });
    const keys = zoneKeys([key.dnskey]);
    for (let i = 0; i < 3; i++) {
      expect(verifyRrset({ records: www, rrsigs: [goodSig] }, keys, 'example', options(budget)).status).toBe('secure');
    }
    expect(verifyRrset({ records: www, rrsigs: [goodSig] }, keys, 'example', options(budget))).toMatchObject({
      status: 'bogus',
      whyBogus: expect.stringMatching(/the question's 3 signature checks are spent/),
    });
    expect(budget.verifications).toBe(3);
  });

  it('refuses limits that are not positive integers', () => {
    expect(() => new ValidationBudget({ maxVerificationsPerRrset: 0 })).toThrow(InvalidArgumentError);
    expect(() => new ValidationBudget({ maxNsec3HashesPerQuestion: 1.5 })).toThrow(/positive integer/);
  });
});

describe('NSEC3 hash limit (CVE-2023-50868)', () => {
  const zone = signZone({
    origin: 'example',
    body: DENIAL_BODY,
    keys: [{ algorithm: 'ECDSAP256SHA256', ksk: true }],
    nsec3: { salt: 'beef', iterations: 100 },
  });
  const keysVerdict = verifyDnskeys(rrsetOf(zone.records, 'example', 48), 'example', zone.ds.get(2)!, options());
  const input = (qname: string) => ({
    qname,
    qtype: 1,
    zone: 'example',
    rrsets: denialRrsets(zone.records, 50),
    keys: keysVerdict.keys!,
  });
  const longName = `${Array.from({ length: 100 }, () => 'a').join('.')}.example`;

  it('ends a proof for a 101-label name after the question allowance of hashes', () => {
    const budget = new ValidationBudget();
    const verdict = proveNxdomain(input(longName), options(budget));
    expect(verdict).toMatchObject({ status: 'bogus', ede: Ede.DNSSEC_BOGUS });
    expect(verdict.whyBogus).toMatch(/64 NSEC3 hashes are spent/);
    expect(budget.nsec3Hashes).toBe(64);
  });

  it('proves the same NXDOMAIN with a larger allowance, hashing each name once', () => {
    const budget = new ValidationBudget({ maxNsec3HashesPerQuestion: 200 });
    expect(proveNxdomain(input(longName), options(budget))).toMatchObject({ status: 'secure' });
    // qname, its 100 ancestors down to the zone, and the wildcard: 102 at most.
    expect(budget.nsec3Hashes).toBeLessThanOrEqual(102);
  });
});
