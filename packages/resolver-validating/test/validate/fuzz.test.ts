/**
 * A seeded fuzz of the engine: random mutations of RRsets and denial records that ldns signed
 * never come out secure, and nothing throws. The mutations that must not matter (a TTL, an
 * exact duplicate, the case of an owner) come out secure, so the oracle is not "always bogus".
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type SignedRrset,
  ValidationBudget,
  groupRrsets,
  proveNodata,
  proveNxdomain,
  verifyDnskeys,
  verifyRrset,
  zoneKeys,
} from '../../src/validate/index.js';
import { denialRrsets, rrsetOf, signZone, testClock } from './support/ldns.js';
import { DENIAL_BODY } from './support/zones.js';

const SEED = 4035;
const options = () => ({ clock: testClock, budget: new ValidationBudget() });
const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

type Mutation =
  | { kind: 'octet'; target: 'record' | 'rrsig'; index: number; position: number; value: number }
  | { kind: 'truncate'; target: 'record' | 'rrsig'; index: number; position: number }
  | { kind: 'extend'; target: 'record' | 'rrsig'; index: number; value: number }
  | { kind: 'owner'; label: string }
  | { kind: 'type'; value: number }
  | { kind: 'class'; value: number }
  | { kind: 'drop'; index: number }
  | { kind: 'add'; index: number; value: number };

const target = fc.constantFrom('record' as const, 'rrsig' as const);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('octet' as const),
    target,
    index: fc.nat(),
    position: fc.nat(),
    value: fc.integer({ min: 0, max: 255 }),
  }),
  fc.record({ kind: fc.constant('truncate' as const), target, index: fc.nat(), position: fc.nat() }),
  fc.record({ kind: fc.constant('extend' as const), target, index: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('owner' as const), label: fc.stringMatching(/^[a-z0-9]{1,5}$/) }),
  fc.record({ kind: fc.constant('type' as const), value: fc.integer({ min: 1, max: 300 }) }),
  fc.record({ kind: fc.constant('class' as const), value: fc.integer({ min: 2, max: 255 }) }),
  fc.record({ kind: fc.constant('drop' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), index: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
);

/** `set` changed by `m` so that the signed content differs; undefined when `m` cannot apply. */
function mutate(set: SignedRrset, m: Mutation): SignedRrset | undefined {
  const records = [...set.records];
  const rrsigs = [...set.rrsigs];
  const list = (t: 'record' | 'rrsig') => (t === 'record' ? records : rrsigs);
  switch (m.kind) {
    case 'octet': {
      const l = list(m.target);
      const i = m.index % l.length;
      const rdata = Uint8Array.from(l[i]!.rdata);
      const p = m.position % rdata.length;
      // A change of ASCII case only may be canonicalized away: not a mutation of the content.
      if (lower(rdata[p]!) === lower(m.value)) return undefined;
      rdata[p] = m.value;
      l[i] = { ...l[i]!, rdata };
      break;
    }
    case 'truncate': {
      const l = list(m.target);
      const i = m.index % l.length;
      l[i] = { ...l[i]!, rdata: l[i]!.rdata.subarray(0, m.position % l[i]!.rdata.length) };
      break;
    }
    case 'extend': {
      const l = list(m.target);
      const i = m.index % l.length;
      l[i] = { ...l[i]!, rdata: Uint8Array.of(...l[i]!.rdata, m.value) };
      break;
    }
    case 'owner':
      return {
        records: records.map((r) => ({ ...r, name: `${m.label}.${r.name}` })),
        rrsigs: rrsigs.map((r) => ({ ...r, name: `${m.label}.${r.name}` })),
      };
    case 'type':
      if (m.value === records[0]!.rrtype) return undefined;
      return { records: records.map((r) => ({ ...r, rrtype: m.value })), rrsigs };
    case 'class':
      return { records: records.map((r) => ({ ...r, class: m.value })), rrsigs };
    case 'drop':
      if (records.length < 2) return undefined;
      records.splice(m.index % records.length, 1);
      break;
    case 'add': {
      const base = records[m.index % records.length]!;
      const rdata = Uint8Array.of(...base.rdata, m.value);
      records.push({ ...base, rdata });
      break;
    }
  }
  return { records, rrsigs };
}

describe('fuzz: mutated signed data never validates', () => {
  const zone = signZone({
    origin: 'example',
    body: DENIAL_BODY.replace('a IN A 192.0.2.2', 'a IN A 192.0.2.2\na IN A 192.0.2.4\nm IN MX 10 A.Example.'),
    keys: [{ algorithm: 'ECDSAP256SHA256', ksk: true }, { algorithm: 'RSASHA256' }],
  });
  const keys = verifyDnskeys(rrsetOf(zone.records, 'example', 48), 'example', zone.ds.get(2)!, options()).keys!;
  const sets = groupRrsets(zone.records).filter((s) => s.records.length > 0 && s.rrsigs.length > 0);

  it('keeps every untouched RRset secure (the control)', () => {
    for (const set of sets) expect(verifyRrset(set, keys, 'example', options()).status).toBe('secure');
  });

  it('gives bogus, never secure and never a throw, for 400 random mutations', () => {
    let applied = 0;
    fc.assert(
      fc.property(fc.nat(), mutation, (pick, m) => {
        const changed = mutate(sets[pick % sets.length]!, m);
        if (!changed) return;
        applied++;
        const verdict = verifyRrset(changed, keys, 'example', options());
        const owner = changed.records[0]?.name ?? '';
        if (m.kind === 'owner' && owner.includes('*')) {
          // A name below a wildcard owner is a genuine expansion: secure, flagged for its proof.
          expect(verdict).toMatchObject({ status: 'secure', wildcard: expect.any(Array) });
          return;
        }
        expect(verdict.status, JSON.stringify(m)).toBe('bogus');
        expect(verdict.whyBogus).toBeTruthy();
      }),
      { seed: SEED, numRuns: 400 },
    );
    expect(applied).toBeGreaterThan(300);
  });

  it('stays secure for what is not signed: TTLs, exact duplicates, owner case', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 0, max: 0x7fffffff }), (pick, ttl) => {
        const set = sets[pick % sets.length]!;
        const same: SignedRrset = {
          records: [...set.records.map((r) => ({ ...r, ttl, name: r.name.toUpperCase() })), set.records[0]!],
          rrsigs: set.rrsigs,
        };
        expect(verifyRrset(same, keys, 'example', options()).status).toBe('secure');
      }),
      { seed: SEED, numRuns: 50 },
    );
  });
});

describe.each([
  ['NSEC', undefined, 47 as const],
  ['NSEC3', { salt: 'f00d', iterations: 1 }, 50 as const],
])('fuzz: mutated %s records never prove a denial', (_name, nsec3, type) => {
  const zone = signZone({
    origin: 'example',
    body: DENIAL_BODY,
    keys: [{ algorithm: 'ECDSAP256SHA256', ksk: true }],
    ...(nsec3 ? { nsec3 } : {}),
  });
  const keys = verifyDnskeys(rrsetOf(zone.records, 'example', 48), 'example', zone.ds.get(2)!, options()).keys!;

  it('for 300 mutations of the records each proof needs', () => {
    const nsecs = denialRrsets(zone.records, type);

    const input = (rrsets: readonly SignedRrset[], qname: string, qtype: number) => ({
      qname,
      qtype,
      zone: 'example',
      rrsets,
      keys,
    });
    // The proofs and the records each needs (found by leaving each out once).
    const cases = [
      { prove: proveNxdomain, qname: 'b.example', qtype: 1 },
      { prove: proveNodata, qname: 'a.example', qtype: 28 },
      { prove: proveNodata, qname: 'y.e.example', qtype: 1 },
      { prove: proveNodata, qname: 'sub.example', qtype: 43 },
    ].map((c) => {
      expect(c.prove(input(nsecs, c.qname, c.qtype), options()).status).toBe('secure');
      const needed = nsecs
        .map((_, i) => i)
        .filter((i) => c.prove(input(nsecs.toSpliced(i, 1), c.qname, c.qtype), options()).status !== 'secure');
      expect(needed.length).toBeGreaterThan(0);
      return { ...c, needed };
    });
    let applied = 0;
    fc.assert(
      fc.property(fc.nat(), fc.nat(), mutation, (which, pick, m) => {
        const c = cases[which % cases.length]!;
        const index = c.needed[pick % c.needed.length]!;
        const changed = mutate(nsecs[index]!, m);
        if (!changed) return;
        applied++;
        const verdict = c.prove(input(nsecs.toSpliced(index, 1, changed), c.qname, c.qtype), options());
        expect(verdict.status, `${c.qname} ${JSON.stringify(m)}`).not.toBe('secure');
      }),
      { seed: SEED, numRuns: 300 },
    );
    expect(applied).toBeGreaterThan(200);
  });
});

describe('fuzz: random records', () => {
  const rr = (name: string, rrtype: number, rdata: Uint8Array) => ({ name, rrtype, class: 1, ttl: 60, rdata });
  const name = fc.constantFrom('example', 'a.example', 'b.a.example', '*.example', 'x.y.example', '.');
  const record = fc.tuple(name, fc.constantFrom(1, 43, 46, 47, 48, 50), fc.uint8Array({ maxLength: 80 }));

  it('never throw and never validate: RRSIGs, DNSKEYs, DS, NSEC and NSEC3 of random octets', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 12 }), name, fc.constantFrom(1, 43), (tuples, qname, qtype) => {
        const records = tuples.map(([n, t, d]) => rr(n, t, d));
        const dnskeys = records.filter((r) => r.rrtype === 48 && r.name === 'example');
        const sigs = records.filter((r) => r.rrtype === 46);
        const ds = records.filter((r) => r.rrtype === 43);
        const keyVerdict = verifyDnskeys({ records: dnskeys, rrsigs: sigs }, 'example', ds, options());
        expect(keyVerdict.status).not.toBe('secure');
        const keys = zoneKeys(dnskeys);
        for (const set of groupRrsets(records)) {
          if (set.records.length > 0) expect(verifyRrset(set, keys, 'example', options()).status).not.toBe('secure');
        }
        const input = { qname, qtype, zone: 'example', rrsets: groupRrsets(records), keys };
        expect(proveNxdomain(input, options()).status).not.toBe('secure');
        expect(proveNodata(input, options()).status).not.toBe('secure');
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
