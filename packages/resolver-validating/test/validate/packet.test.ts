/**
 * The path a resolver takes: a response with compressed names (pointers matched without
 * regard to case, as many servers do) parsed by core, records expanded, RRsets grouped and
 * verified. Names that come back in another case still validate (RFC 4034 section 6.2).
 */
import { parseMessage, parseName } from '@dnscore/core/plugin';
import { describe, expect, it } from 'vitest';
import {
  type Rr,
  ValidationBudget,
  groupRrsets,
  uncompressedRecord,
  verifyDnskeys,
  verifyRrset,
} from '../../src/validate/index.js';
import { rrsetOf, signZone, testClock } from './support/ldns.js';

/** A DNS message writer with name compression, case-insensitive like many servers. */
class Writer {
  readonly bytes: number[] = [];
  private readonly offsets = new Map<string, number>();

  u16(n: number): void {
    this.bytes.push(n >> 8, n & 0xff);
  }

  name(text: string): void {
    const labels = parseName(text);
    for (let i = 0; i < labels.length; i++) {
      const key = labels
        .slice(i)
        .map((l) => Buffer.from(l).toString('latin1').toLowerCase())
        .join('.');
      const known = this.offsets.get(key);
      if (known !== undefined) {
        this.u16(0xc000 | known);
        return;
      }
      if (this.bytes.length < 0x3fff) this.offsets.set(key, this.bytes.length);
      this.bytes.push(labels[i]!.length, ...labels[i]!);
    }
    this.bytes.push(0);
  }

  /** A record, the names of CNAME, NS, MX and SOA RDATA compressed. */
  record(r: Rr): void {
    this.name(r.name);
    this.u16(r.rrtype);
    this.u16(r.class);
    this.u16(r.ttl >>> 16);
    this.u16(r.ttl & 0xffff);
    const lengthAt = this.bytes.length;
    this.u16(0);
    const start = this.bytes.length;
    const names = (rdata: Uint8Array, offset: number): [string, number] => {
      const labels: string[] = [];
      let o = offset;
      while (rdata[o] !== 0) {
        labels.push(Buffer.from(rdata.subarray(o + 1, o + 1 + rdata[o]!)).toString('latin1'));
        o += rdata[o]! + 1;
      }
      return [labels.join('.') || '.', o + 1];
    };
    if (r.rrtype === 5 || r.rrtype === 2) this.name(names(r.rdata, 0)[0]);
    else if (r.rrtype === 15) {
      this.bytes.push(r.rdata[0]!, r.rdata[1]!);
      this.name(names(r.rdata, 2)[0]);
    } else if (r.rrtype === 6) {
      const [mname, next] = names(r.rdata, 0);
      const [rname, end] = names(r.rdata, next);
      this.name(mname);
      this.name(rname);
      this.bytes.push(...r.rdata.subarray(end));
    } else this.bytes.push(...r.rdata);
    const length = this.bytes.length - start;
    this.bytes[lengthAt] = length >> 8;
    this.bytes[lengthAt + 1] = length & 0xff;
  }
}

describe('records from a compressed response', () => {
  const zone = signZone({
    origin: 'example',
    body: `@ IN SOA NS1.Example. Admin.EXAMPLE. 1 7200 3600 1209600 3600
@ IN NS ns1
@ IN MX 10 Mail.EXAMPLE.
ns1 IN A 192.0.2.1
mail IN A 192.0.2.2
Alias IN CNAME MAIL.example.`,
    keys: [{ algorithm: 'ECDSAP256SHA256', ksk: true }],
  });

  it('validates every RRset after core parses it and the engine expands its names', () => {
    const signed = zone.records.filter((r) => [1, 2, 5, 6, 15, 46].includes(r.rrtype));
    const w = new Writer();
    w.bytes.push(0x12, 0x34, 0x81, 0x80, 0, 1);
    w.u16(signed.length);
    w.u16(0);
    w.u16(0);
    w.name('EXAMPLE');
    w.u16(255);
    w.u16(1);
    for (const r of signed) w.record(r);
    const packet = Uint8Array.from(w.bytes);
    const message = parseMessage(packet);
    const records = message.answers.map((r) => uncompressedRecord(packet, r));
    // The pointers made some names come back in another case than signed.
    const mx = records.find((r) => r.rrtype === 15)!;
    const wireMx = message.answers.find((r) => r.type === 15)!;
    expect(wireMx.rdlength).toBeLessThan(mx.rdata.length); // compressed on the wire
    expect(Buffer.from(mx.rdata).toString('latin1')).not.toContain('Mail.EXAMPLE');
    const keys = verifyDnskeys(rrsetOf(zone.records, 'example', 48), 'example', zone.ds.get(2)!, {
      clock: testClock,
      budget: new ValidationBudget(),
    }).keys!;
    const sets = groupRrsets(records).filter((s) => s.records.length > 0);
    expect(sets.map((s) => `${s.records[0]!.name.toLowerCase()}/${s.records[0]!.rrtype}`).sort()).toEqual([
      'alias.example/5',
      'example/15',
      'example/2',
      'example/6',
      'mail.example/1',
      'ns1.example/1',
    ]);
    expect(sets.length).toBe(6);
    for (const set of sets) {
      const verdict = verifyRrset(set, keys, 'example', { clock: testClock, budget: new ValidationBudget() });
      expect(verdict.status, `${set.records[0]!.name} ${set.records[0]!.rrtype}`).toBe('secure');
    }
  });
});
