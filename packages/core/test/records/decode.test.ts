import { describe, expect, it } from 'vitest';
import { parseMessage, type WireRecord } from '@dnscore/core/plugin';
import { formatRdata } from '../../src/presentation.js';
import { decodeRecord, hasTypedView } from '../../src/records/decode.js';
import { RdataError } from '../../src/records/rdata-error.js';
import { answerPacket, bytes, characterString, domain, u16, u32 } from '../support/packets.js';

/** The first answer record of a packet whose single answer has `rdata` (owner: pointer to the question). */
function decodeOne(type: number, rdata: Uint8Array, age = 0) {
  const message = parseMessage(
    answerPacket({ question: { name: 'owner.example', type }, answers: [{ type, rdata, ttl: 300 }] }),
  );
  return decodeRecord(message.packet, message.answers[0]!, age);
}

describe('decodeRecord: nominal, one typed view per type', () => {
  it.each([
    ['A', 1, bytes([192, 0, 2, 1]), '192.0.2.1'],
    ['AAAA', 28, bytes([0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1]), '2001:db8::1'],
    ['CNAME', 5, bytes(domain('target.example')), 'target.example'],
    ['NS', 2, bytes(domain('ns1.example')), 'ns1.example'],
    ['PTR', 12, bytes(domain('host.example')), 'host.example'],
    ['DNAME', 39, bytes(domain('other.example')), 'other.example'],
    ['MX', 15, bytes(u16(10), domain('mail.example')), { preference: 10, exchange: 'mail.example' }],
    ['TXT', 16, bytes(characterString('v=spf1 -all'), characterString('')), ['v=spf1 -all', '']],
    [
      'SOA',
      6,
      bytes(
        domain('ns1.example'),
        domain('hostmaster.example'),
        u32(2026112901),
        u32(7200),
        u32(900),
        u32(1209600),
        u32(300),
      ),
      {
        mname: 'ns1.example',
        rname: 'hostmaster.example',
        serial: 2026112901,
        refresh: 7200,
        retry: 900,
        expire: 1209600,
        minimum: 300,
      },
    ],
    [
      'TLSA',
      52,
      bytes([3, 1, 1, 0xab, 0xcd]),
      { usage: 3, selector: 1, matchingType: 1, certificate: Uint8Array.from([0xab, 0xcd]) },
    ],
  ])('%s', (typeName, type, rdata, data) => {
    const record = decodeOne(type, rdata);
    expect(record.type).toBe(typeName);
    expect(record.rrtype).toBe(type);
    expect(record.ttl).toBe(300);
    expect(record.data).toEqual(data);
    expect(Array.from(record.rdata)).toEqual(Array.from(rdata));
    expect(hasTypedView(type)).toBe(true);
  });

  it('keeps a type without a typed view as raw RDATA (RFC 3597)', () => {
    const record = decodeOne(65280, bytes([1, 2, 3]));
    expect(record.type).toBe('TYPE65280');
    expect(Array.from(record.data as Uint8Array)).toEqual([1, 2, 3]);
  });

  it('subtracts the age from the TTL, never below zero', () => {
    expect(decodeOne(1, bytes([1, 2, 3, 4]), 100).ttl).toBe(200);
    expect(decodeOne(1, bytes([1, 2, 3, 4]), 1000).ttl).toBe(0);
  });

  it('follows a compression pointer inside RDATA to an earlier name', () => {
    // CNAME RDATA "www" + pointer to the question name at offset 12.
    const record = decodeOne(5, bytes([3, 0x77, 0x77, 0x77, 0xc0, 12]));
    expect(record.data).toBe('www.owner.example');
  });

  it('expands a DNAME target a sender compressed (RFC 6672 section 2.5), in presentation format too', () => {
    // DNAME RDATA "moved" + pointer to "example" in the question name (offset 12 + 6).
    const record = decodeOne(39, bytes([5, ...Buffer.from('moved'), 0xc0, 18]));
    expect(record.type).toBe('DNAME');
    expect(record.data).toBe('moved.example');
    expect(formatRdata(record)).toBe('moved.example.');
  });

  it('returns frozen records', () => {
    const record = decodeOne(15, bytes(u16(10), domain('mail.example')));
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record.data)).toBe(true);
  });
});

describe('decodeRecord: off-nominal (RDATA must fill exactly its RDLENGTH)', () => {
  it.each([
    ['A too short', 1, bytes([1, 2, 3])],
    ['A too long', 1, bytes([1, 2, 3, 4, 5])],
    ['AAAA too short', 28, bytes(Array(15).fill(0))],
    ['CNAME name cut', 5, bytes([3, 0x77, 0x77])],
    ['DNAME target with bytes after it', 39, bytes(domain('a'), [0])],
    ['MX without exchange', 15, bytes(u16(10))],
    ['TXT string longer than the RDATA', 16, bytes([10, 0x61])],
    ['TXT empty RDATA', 16, new Uint8Array(0)],
    ['SOA missing MINIMUM', 6, bytes(domain('a'), domain('b'), u32(1), u32(2), u32(3), u32(4))],
    ['TLSA without data', 52, bytes([3, 1, 1])],
    ['a pointer forward out of the RDATA', 5, bytes([0xc0, 0xff])],
  ])('%s', (_name, type, rdata) => {
    expect(() => decodeOne(type, rdata)).toThrow(RdataError);
  });

  it('names the rule and the type', () => {
    try {
      decodeOne(1, bytes([1, 2, 3]));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RdataError);
      expect((error as RdataError).rule).toBe('rdlength');
      expect((error as Error).message).toMatch(/^A RDATA/);
    }
  });

  it('never reads a name in RDATA past the RDATA end, even when the packet goes on', () => {
    // CNAME RDATA declares 2 bytes; the label it starts runs into the next record.
    const packet = answerPacket({
      question: { name: 'x', type: 5 },
      answers: [
        { type: 5, rdata: bytes([3, 0x61]) },
        { type: 1, rdata: bytes([0x62, 0x63, 0, 0]) },
      ],
    });
    const message = parseMessage(packet);
    const record: WireRecord = message.answers[0]!;
    expect(() => decodeRecord(packet, record)).toThrow(/runs past its data/);
  });
});
