/**
 * VerifiedRrsets keeps a secure verdict per exact RRset and RRSIGs (a digest of every octet),
 * key set and zone: a copy with the same octets is found, any changed octet is checked anew,
 * and nothing but secure verdicts is kept.
 */
import { parseName } from '@dnscore/core/plugin';
import { describe, expect, it } from 'vitest';
import { type Rr, type SignedRrset, ValidationBudget, verifyDnskeys, zoneKeys } from '../src/validate/index.js';
import { VerifiedRrsets } from '../src/verified-rrsets.js';
import { rrsetOf, signZone, testClock } from './validate/support/ldns.js';
import { ed25519Key, signRrset } from './validate/support/signer.js';

const zone = signZone({
  origin: 'example',
  body: `@ IN SOA ns1 admin 1 7200 3600 1209600 3600
@ IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.2
www IN A 192.0.2.3`,
  keys: [{ algorithm: 'ECDSAP256SHA256', ksk: true }],
});
const options = () => ({ clock: testClock, budget: new ValidationBudget() });
const keys = verifyDnskeys(rrsetOf(zone.records, 'example', 48), 'example', zone.ds.get(2)!, options()).keys!;
const origin = parseName('example');
const copy = (set: SignedRrset, change: (r: Rr) => Rr = (r) => r): SignedRrset => ({
  records: set.records.map((r) => change({ ...r, rdata: Uint8Array.from(r.rdata) })),
  rrsigs: set.rrsigs.map((r) => ({ ...r, rdata: Uint8Array.from(r.rdata) })),
});

describe('VerifiedRrsets', () => {
  it('finds a copy with the same octets (owner in any case) and checks a changed one anew', () => {
    const cache = new VerifiedRrsets(testClock, 100);
    const www = rrsetOf(zone.records, 'www.example', 1);
    expect(cache.verify(www, keys, origin, options()).status).toBe('secure');
    expect(cache.verify(copy(www), keys, origin, options()).status).toBe('secure');
    expect(
      cache.verify(
        copy(www, (r) => ({ ...r, name: 'WWW.Example' })),
        keys,
        origin,
        options(),
      ).status,
    ).toBe('secure');
    expect(cache.hits).toBe(2);
    const changed = copy(www, (r) => (r.rdata[3] === 3 ? { ...r, rdata: Uint8Array.of(192, 0, 2, 4) } : r));
    expect(cache.verify(changed, keys, origin, options()).status).toBe('bogus');
    // One record moved into the next one's octets: the same bytes in all, another RRset.
    const [a, b] = www.records;
    const shifted = {
      ...www,
      records: [
        { ...a!, rdata: Uint8Array.of(192, 0, 2) },
        { ...b!, rdata: Uint8Array.of(2, 192, 0, 2, 3) },
      ],
    };
    expect(cache.verify(shifted, keys, origin, options()).status).toBe('bogus');
    expect(cache.hits).toBe(2);
  });

  it('keeps no bogus verdict, and another key set is another entry', () => {
    const cache = new VerifiedRrsets(testClock, 100);
    const www = rrsetOf(zone.records, 'www.example', 1);
    const forged = copy(www, (r) => ({ ...r, rdata: Uint8Array.of(203, 0, 113, 1) }));
    expect(cache.verify(forged, keys, origin, options()).status).toBe('bogus');
    expect(cache.verify(forged, keys, origin, options()).status).toBe('bogus');
    expect(cache.hits).toBe(0);
    expect(cache.verify(www, keys, origin, options()).status).toBe('secure');
    expect(cache.verify(www, [...keys], origin, options()).status).toBe('secure');
    expect(cache.hits).toBe(0);
  });

  it('tells owners apart that hold "/": a forged RRset spelling a signed one in other fields is checked anew', () => {
    // The key was once "owner/type/class/length/RDATA" per record: an owner with "/" in a label
    // could end where another RRset's RDATA goes on. Signed: `signed`, one TXT record at an owner
    // that spells "a.example/16/1/<n>/b.example". Forged: a TXT at a.example, no RRSIG, its RDATA
    // the rest of the signed RRset's text, so the old key was the same text.
    const key = ed25519Key('example');
    const txt = Uint8Array.of(3, 0x61, 0x62, 0x63);
    const build = (n: number) => {
      const owner = `a.example/16/1/${n}/b.example`;
      const record: Rr = { name: owner, rrtype: 16, class: 1, ttl: 3600, rdata: txt };
      const rrsig = signRrset([record], 'example', key);
      const rest = `b.example/16/1/${txt.length}/${String.fromCharCode(...txt)}${owner}/46/1/${rrsig.rdata.length}/`;
      const rdata = Uint8Array.from([...rest].map((c) => c.charCodeAt(0)).concat([...rrsig.rdata]));
      return { signed: { records: [record], rrsigs: [rrsig] }, forged: { name: 'a.example', rdata } };
    };
    // The forged RDATA's length appears in the signed owner: a fixed point, found by trying.
    let n = 100;
    while (build(n).forged.rdata.length !== n) n = build(n).forged.rdata.length;
    const { signed, forged } = build(n);
    const cache = new VerifiedRrsets(testClock, 100);
    const zoneKeySet = zoneKeys([key.dnskey]);
    expect(cache.verify(signed, zoneKeySet, origin, options()).status).toBe('secure');
    const forgedSet: SignedRrset = {
      records: [{ name: forged.name, rrtype: 16, class: 1, ttl: 3600, rdata: forged.rdata }],
      rrsigs: [],
    };
    expect(cache.verify(forgedSet, zoneKeySet, origin, options()).status).toBe('bogus');
    expect(cache.hits).toBe(0);
  });
});
