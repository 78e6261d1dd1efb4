/**
 * VerifiedRrsets keeps a secure verdict per exact RRset and RRSIGs (a digest of every octet),
 * key set and zone: a copy with the same octets is found, any changed octet is checked anew,
 * and nothing but secure verdicts is kept.
 */
import { parseName } from '@dnscore/core/plugin';
import { describe, expect, it } from 'vitest';
import { type Rr, type SignedRrset, ValidationBudget, verifyDnskeys } from '../src/validate/index.js';
import { VerifiedRrsets } from '../src/verified-rrsets.js';
import { rrsetOf, signZone, testClock } from './validate/support/ldns.js';

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
});
