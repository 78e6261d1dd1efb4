/**
 * Owner labels read once per record (ownerOf), and RDATA copied as it is when its names are
 * not compressed (uncompressedRdata): the shortcuts must give exactly what the full readings
 * give, and never hand a record the labels of another.
 */
import { formatName, nameKey, parseMessage, parseName } from '@dnscore/core/plugin';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyOf } from '../../src/names.js';
import { type Rr, RdataFormatError, ownerOf, uncompressedRecord } from '../../src/validate/index.js';

const text = (labels: readonly Uint8Array[]): string[] => labels.map((l) => Buffer.from(l).toString('latin1'));

/** A response with one question and `records` (owner, type, RDATA bytes) in its answer section. */
function message(records: readonly { owner: number[]; type: number; rdata: number[] }[]): Uint8Array {
  const bytes = [0x12, 0x34, 0x81, 0x80, 0, 1, 0, records.length, 0, 0, 0, 0];
  bytes.push(7, ...Buffer.from('example'), 0, 0, 1, 0, 1); // question at offset 12: example. A IN
  for (const r of records) {
    bytes.push(
      ...r.owner,
      r.type >> 8,
      r.type & 0xff,
      0,
      1,
      0,
      0,
      0x0e,
      0x10,
      r.rdata.length >> 8,
      r.rdata.length & 0xff,
    );
    bytes.push(...r.rdata);
  }
  return Uint8Array.from(bytes);
}

const POINTER_TO_EXAMPLE = [0xc0, 12];
const wireName = (...labels: string[]): number[] => [...labels.flatMap((l) => [l.length, ...Buffer.from(l)]), 0];

describe('ownerOf', () => {
  it('gives a record from a message the labels the message was read with', () => {
    const packet = message([
      { owner: [3, ...Buffer.from('WwW'), ...POINTER_TO_EXAMPLE], type: 1, rdata: [192, 0, 2, 1] },
    ]);
    const wire = parseMessage(packet).answers[0]!;
    const record = uncompressedRecord(packet, wire);
    expect(Object.isFrozen(record)).toBe(true);
    expect(record.name).toBe('WwW.example');
    expect(ownerOf(record)).toBe(wire.labels);
    expect(text(ownerOf(record))).toEqual(['WwW', 'example']);
  });

  it('parses a copy with another name anew, never with the labels of the record it was copied from', () => {
    const packet = message([{ owner: wireName('www', 'example'), type: 1, rdata: [192, 0, 2, 1] }]);
    const record = uncompressedRecord(packet, parseMessage(packet).answers[0]!);
    const copy: Rr = { ...record, name: 'ftp.example' };
    expect(text(ownerOf(copy))).toEqual(['ftp', 'example']);
    expect(text(ownerOf(record))).toEqual(['www', 'example']);
  });

  it('reads a record that is not frozen at every call (its name may change)', () => {
    const record = { name: 'a.example', rrtype: 1, class: 1, ttl: 1, rdata: new Uint8Array(4) };
    expect(text(ownerOf(record))).toEqual(['a', 'example']);
    record.name = 'b.example';
    expect(text(ownerOf(record))).toEqual(['b', 'example']);
    const frozen = Object.freeze({ ...record, name: 'c\\.d.example' });
    expect(text(ownerOf(frozen))).toEqual(['c.d', 'example']);
    expect(ownerOf(frozen)).toBe(ownerOf(frozen));
  });
});

describe('uncompressedRecord RDATA', () => {
  it('copies RDATA whose names are not compressed byte for byte, case kept, and a copy', () => {
    const target = wireName('SIP1', 'Example');
    const srv = [0, 10, 0, 60, 0x13, 0xc4, ...target];
    const packet = message([{ owner: wireName('_sip', '_udp', 'example'), type: 33, rdata: srv }]);
    const wire = parseMessage(packet).answers[0]!;
    const record = uncompressedRecord(packet, wire);
    expect([...record.rdata]).toEqual(srv);
    expect(record.rdata.buffer).not.toBe(packet.buffer);
  });

  it('expands a compressed name in RDATA', () => {
    const packet = message([
      { owner: wireName('alias', 'example'), type: 5, rdata: [4, ...Buffer.from('MAIL'), ...POINTER_TO_EXAMPLE] },
    ]);
    const record = uncompressedRecord(packet, parseMessage(packet).answers[0]!);
    expect([...record.rdata]).toEqual(wireName('MAIL', 'example'));
  });

  it('refuses RDATA that does not fit its layout, as the full reading does', () => {
    const cases: number[][] = [
      [3, ...Buffer.from('abc')], // a name without its end
      [0, 10], // MX: a name missing after the preference
      [...wireName('a'), 1], // a byte left over
      [0x40, 1, 0], // the label type 01
      [...Array.from({ length: 5 }, () => [63, ...new Array<number>(63).fill(0x61)]).flat(), 0], // over 255 octets
    ];
    for (const [i, rdata] of cases.entries()) {
      const type = i === 1 ? 15 : 5;
      const packet = message([{ owner: wireName('x', 'example'), type, rdata }]);
      expect(() => uncompressedRecord(packet, parseMessage(packet).answers[0]!), `case ${i}`).toThrow(RdataFormatError);
    }
  });
});

describe('keyOf', () => {
  const label = fc.uint8Array({ minLength: 1, maxLength: 8 });
  it("is core's nameKey of the formatted name, for any labels", () => {
    fc.assert(
      fc.property(fc.array(label, { maxLength: 4 }), (labels) => {
        expect(keyOf(labels)).toBe(nameKey(formatName(labels)));
      }),
      { seed: 20261202, numRuns: 2000 },
    );
    expect(keyOf(parseName('Sip1.Biloxi.EXAMPLE'))).toBe('sip1.biloxi.example');
    expect(keyOf([])).toBe('.');
  });

  it('tells apart names that differ outside ASCII letters', () => {
    expect(keyOf([Uint8Array.of(0xc0)])).not.toBe(keyOf([Uint8Array.of(0xe0)]));
    expect(keyOf(parseName('a\\.b'))).not.toBe(keyOf(parseName('a.b')));
  });
});
