import { Ede } from '@dnscore/core/plugin';
import { describe, expect, it } from 'vitest';
import {
  type Rr,
  type SignedRrset,
  ValidationBudget,
  groupRrsets,
  verifyDnskeys,
  verifyRrset,
  zoneKeys,
} from '../../src/validate/index.js';
import { type KeySpec, rrsetOf, signZone, testClock } from './support/ldns.js';

const BODY = `@ IN SOA ns1 Admin.Example. 1 7200 3600 1209600 3600
@ IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.2
www IN A 192.0.2.3
www IN AAAA 2001:db8::1
*.wild IN TXT "wild"
MiXeD IN CNAME WWW.Example.
mail IN MX 10 MX.Example.
_sip._udp IN SRV 0 5 5060 SIP1.Example.
sub IN NS ns.sub
ns.sub IN A 192.0.2.9`;

const options = () => ({ clock: testClock, budget: new ValidationBudget() });

function keysOf(records: readonly Rr[], origin: string, ds: readonly Rr[]) {
  const verdict = verifyDnskeys(rrsetOf(records, origin, 48), origin, ds, options());
  expect(verdict).toMatchObject({ status: 'secure' });
  return verdict.keys!;
}

/** The zone's authoritative RRsets (glue and the delegation's NS are not signed). */
function signedRrsets(records: readonly Rr[]): SignedRrset[] {
  return groupRrsets(records).filter((set) => set.records.length > 0 && set.rrsigs.length > 0);
}

const ALGORITHMS: readonly (readonly [string, readonly KeySpec[]])[] = [
  ['RSASHA1 (5)', [{ algorithm: 'RSASHA1', ksk: true }, { algorithm: 'RSASHA1' }]],
  ['RSASHA1-NSEC3-SHA1 (7)', [{ algorithm: 'RSASHA1-NSEC3-SHA1', ksk: true }]],
  ['RSASHA256 (8)', [{ algorithm: 'RSASHA256', ksk: true }, { algorithm: 'RSASHA256' }]],
  ['RSASHA512 (10)', [{ algorithm: 'RSASHA512', ksk: true }]],
  ['ECDSAP256SHA256 (13)', [{ algorithm: 'ECDSAP256SHA256', ksk: true }, { algorithm: 'ECDSAP256SHA256' }]],
  ['ECDSAP384SHA384 (14)', [{ algorithm: 'ECDSAP384SHA384', ksk: true }]],
  ['ED25519 (15)', [{ algorithm: 'ED25519', ksk: true }, { algorithm: 'ED25519' }]],
  ['ED448 (16)', [{ algorithm: 'ED448', ksk: true }]],
];

describe.each(ALGORITHMS)('a zone signed by ldns with %s', (_name, keys) => {
  const zone = signZone({ origin: 'example', body: BODY, keys });

  it('validates the DNSKEY RRset from each DS digest (1, 2, 4) and every signed RRset', () => {
    for (const digest of [1, 2, 4]) keysOf(zone.records, 'example', zone.ds.get(digest)!);
    const zoneKeysList = keysOf(zone.records, 'example', zone.ds.get(2)!);
    const sets = signedRrsets(zone.records);
    expect(sets.length).toBeGreaterThanOrEqual(10);
    for (const set of sets) {
      const verdict = verifyRrset(set, zoneKeysList, 'example', options());
      expect(verdict, `${set.records[0]!.name} ${set.records[0]!.rrtype}`).toMatchObject({ status: 'secure' });
      expect(verdict.wildcard).toBeUndefined();
    }
  });

  it('is bogus for a changed RDATA octet, owner, or dropped record', () => {
    const k = keysOf(zone.records, 'example', zone.ds.get(2)!);
    const www = rrsetOf(zone.records, 'www.example', 1);
    expect(www.records).toHaveLength(2);
    const changed = { ...www, records: [www.records[0]!, { ...www.records[1]!, rdata: Uint8Array.of(192, 0, 2, 4) }] };
    expect(verifyRrset(changed, k, 'example', options())).toMatchObject({ status: 'bogus', ede: Ede.DNSSEC_BOGUS });
    const dropped = { ...www, records: [www.records[0]!] };
    expect(verifyRrset(dropped, k, 'example', options()).status).toBe('bogus');
    const moved = {
      records: www.records.map((r) => ({ ...r, name: 'ftp.example' })),
      rrsigs: www.rrsigs.map((r) => ({ ...r, name: 'ftp.example' })),
    };
    expect(verifyRrset(moved, k, 'example', options()).status).toBe('bogus');
  });
});

describe('RRSIG checks', () => {
  const zone = signZone({
    origin: 'example',
    body: BODY,
    keys: [{ algorithm: 'ECDSAP256SHA256', ksk: true }, { algorithm: 'ED25519' }],
  });
  const keys = keysOf(zone.records, 'example', zone.ds.get(2)!);
  const www = rrsetOf(zone.records, 'www.example', 1);

  it('keeps names case-insensitive: an owner and RDATA names in another case still verify', () => {
    const upper = {
      records: www.records.map((r) => ({ ...r, name: 'WwW.EXAMPLE' })),
      rrsigs: www.rrsigs.map((r) => ({ ...r, name: 'www.Example' })),
    };
    expect(verifyRrset(upper, keys, 'EXAMPLE', options()).status).toBe('secure');
    const mx = rrsetOf(zone.records, 'mail.example', 15);
    const rdata = mx.records[0]!.rdata.slice();
    rdata[3] = 'm'.charCodeAt(0); // "MX" -> "mX": RFC 4034 section 6.2 lowercases MX's exchange
    expect(verifyRrset({ ...mx, records: [{ ...mx.records[0]!, rdata }] }, keys, 'example', options()).status).toBe(
      'secure',
    );
  });

  it('caps the TTL at the original TTL (RFC 4035 section 5.3.3)', () => {
    const longer = { ...www, records: www.records.map((r) => ({ ...r, ttl: 86400 })) };
    expect(verifyRrset(longer, keys, 'example', options())).toMatchObject({ status: 'secure', ttl: 3600 });
    const shorter = { ...www, records: www.records.map((r) => ({ ...r, ttl: 60 })) };
    expect(verifyRrset(shorter, keys, 'example', options())).toMatchObject({ status: 'secure', ttl: 60 });
  });

  it('tells expired and not yet valid signatures apart, with the clock skew allowance', () => {
    const at = (iso: string, skew?: number) => ({
      clock: { now: () => Date.parse(iso) },
      budget: new ValidationBudget(),
      ...(skew === undefined ? {} : { clockSkewSeconds: skew }),
    });
    expect(verifyRrset(www, keys, 'example', at('2028-01-01T00:04:00Z')).status).toBe('secure');
    expect(verifyRrset(www, keys, 'example', at('2028-01-01T00:06:00Z'))).toMatchObject({
      status: 'bogus',
      ede: Ede.SIGNATURE_EXPIRED,
    });
    expect(verifyRrset(www, keys, 'example', at('2028-01-01T00:06:00Z', 3600)).status).toBe('secure');
    expect(verifyRrset(www, keys, 'example', at('2025-12-31T23:50:00Z'))).toMatchObject({
      status: 'bogus',
      ede: Ede.SIGNATURE_NOT_YET_VALID,
    });
    expect(verifyRrset(www, keys, 'example', at('2025-12-31T23:50:00Z', 0)).whyBogus).toMatch(/not valid before/);
  });

  it('needs a key with the RRSIG key tag and algorithm, a zone key, not revoked', () => {
    const other = signZone({ origin: 'example', body: BODY, keys: [{ algorithm: 'ED25519', ksk: true }] });
    const otherKeys = zoneKeys(other.records.filter((r) => r.rrtype === 48));
    expect(verifyRrset(www, otherKeys, 'example', options())).toMatchObject({
      status: 'bogus',
      ede: Ede.DNSKEY_MISSING,
    });
    const noZoneBit = zoneKeys(
      keys.map((k) => ({ ...k.record, rdata: Uint8Array.of(k.record.rdata[0]! & 0xfe, ...k.record.rdata.slice(1)) })),
    );
    // Clearing the zone bit changes the key tag too; the RRSIG then finds no key.
    expect(verifyRrset(www, noZoneBit, 'example', options()).status).toBe('bogus');
    // The same keys under their own tags, flags changed: not a zone key, revoked (RFC 5011).
    const flagged = (flags: (f: number) => number) =>
      keys.map((k) => ({ ...k, data: { ...k.data, flags: flags(k.data.flags) } }));
    expect(
      verifyRrset(
        www,
        flagged((f) => f & ~0x0100),
        'example',
        options(),
      ),
    ).toMatchObject({
      status: 'bogus',
      ede: Ede.NO_ZONE_KEY_BIT_SET,
    });
    expect(
      verifyRrset(
        www,
        flagged((f) => f | 0x0080),
        'example',
        options(),
      ),
    ).toMatchObject({
      status: 'bogus',
      whyBogus: expect.stringMatching(/revoked/),
    });
    const wrongTag = www.rrsigs.map((r) => {
      const rdata = r.rdata.slice();
      rdata[17] = rdata[17]! ^ 1;
      return { ...r, rdata };
    });
    expect(verifyRrset({ ...www, rrsigs: wrongTag }, keys, 'example', options())).toMatchObject({
      status: 'bogus',
      ede: Ede.DNSKEY_MISSING,
    });
  });

  it('needs the signer to be the zone and an RRSIG to exist', () => {
    expect(verifyRrset(www, keys, 'www.example', options()).status).toBe('bogus');
    expect(verifyRrset({ ...www, rrsigs: [] }, keys, 'example', options())).toMatchObject({
      status: 'bogus',
      ede: Ede.RRSIGS_MISSING,
    });
  });

  it('reconstructs a wildcard owner from the labels field and reports the expansion', () => {
    const wild = rrsetOf(zone.records, '*.wild.example', 16);
    expect(verifyRrset(wild, keys, 'example', options()).wildcard).toBeUndefined();
    const expanded = {
      records: wild.records.map((r) => ({ ...r, name: 'a.b.wild.example' })),
      rrsigs: wild.rrsigs.map((r) => ({ ...r, name: 'a.b.wild.example' })),
    };
    const verdict = verifyRrset(expanded, keys, 'example', options());
    expect(verdict.status).toBe('secure');
    expect(verdict.wildcard?.map((l) => Buffer.from(l).toString())).toEqual(['*', 'wild', 'example']);
    const elsewhere = {
      records: wild.records.map((r) => ({ ...r, name: 'a.other.example' })),
      rrsigs: wild.rrsigs.map((r) => ({ ...r, name: 'a.other.example' })),
    };
    expect(verifyRrset(elsewhere, keys, 'example', options()).status).toBe('bogus');
  });
});

describe('DNSKEY RRsets and DS records', () => {
  const zone = signZone({
    origin: 'example',
    body: BODY,
    keys: [{ algorithm: 'RSASHA256', ksk: true }, { algorithm: 'RSASHA256' }],
  });
  const dnskeys = rrsetOf(zone.records, 'example', 48);
  const ds = zone.ds.get(2)!;

  it('is bogus when the DS digest matches no key', () => {
    const wrong = ds.map((r) => {
      const rdata = r.rdata.slice();
      rdata[rdata.length - 1] = rdata[rdata.length - 1]! ^ 0xff;
      return { ...r, rdata };
    });
    expect(verifyDnskeys(dnskeys, 'example', wrong, options())).toMatchObject({
      status: 'bogus',
      ede: Ede.DNSKEY_MISSING,
    });
  });

  it('is insecure when no DS has a supported digest or algorithm (RFC 4035 section 5.2)', () => {
    const gost = ds.map((r) => ({ ...r, rdata: Uint8Array.of(...r.rdata.slice(0, 3), 3, ...r.rdata.slice(4)) }));
    expect(verifyDnskeys(dnskeys, 'example', gost, options())).toMatchObject({
      status: 'insecure',
      ede: Ede.UNSUPPORTED_DS_DIGEST_TYPE,
    });
    const privateAlgorithm = ds.map((r) => ({
      ...r,
      rdata: Uint8Array.of(r.rdata[0]!, r.rdata[1]!, 253, ...r.rdata.slice(3)),
    }));
    expect(verifyDnskeys(dnskeys, 'example', privateAlgorithm, options())).toMatchObject({
      status: 'insecure',
      ede: Ede.UNSUPPORTED_DNSKEY_ALGORITHM,
    });
  });

  it('is bogus, not insecure, when a SHA-256 DS has a digest of the wrong length', () => {
    const tag = (ds[0]!.rdata[0]! << 8) | ds[0]!.rdata[1]!;
    for (const rdata of [ds[0]!.rdata.slice(0, -1), Uint8Array.of(...ds[0]!.rdata, 0)]) {
      expect(verifyDnskeys(dnskeys, 'example', [{ ...ds[0]!, rdata }], options())).toEqual({
        status: 'bogus',
        whyBogus: `example: no DNSKEY matches a DS or trust anchor (${tag}/RSASHA256)`,
        ede: Ede.DNSKEY_MISSING,
      });
    }
  });

  it('ignores a SHA-1 DS beside a SHA-256 one (RFC 4509 section 3)', () => {
    const sha1 = zone.ds.get(1)!;
    const brokenSha256 = ds.map((r) => ({ ...r, rdata: Uint8Array.of(...r.rdata.slice(0, -1), r.rdata.at(-1)! ^ 1) }));
    expect(verifyDnskeys(dnskeys, 'example', sha1, options()).status).toBe('secure');
    expect(verifyDnskeys(dnskeys, 'example', [...sha1, ...brokenSha256], options()).status).toBe('bogus');
  });

  it('takes a DNSKEY trust anchor by its RDATA', () => {
    const ksk = dnskeys.records.find((r) => r.rdata[1] === 1)!;
    expect(verifyDnskeys(dnskeys, 'example', [ksk], options()).status).toBe('secure');
    const zsk = dnskeys.records.find((r) => r.rdata[1] === 0)!;
    // ldns signs the DNSKEY RRset with the KSK only, so an anchored ZSK does not validate it.
    expect(verifyDnskeys(dnskeys, 'example', [zsk], options()).status).toBe('bogus');
  });

  it('is bogus for a DNSKEY RRset without its RRSIG', () => {
    expect(verifyDnskeys({ ...dnskeys, rrsigs: [] }, 'example', ds, options())).toMatchObject({
      status: 'bogus',
      ede: Ede.RRSIGS_MISSING,
    });
  });
});
