import { type WireRecord, parseName } from '@dnscore/core/plugin';
import { describe, expect, it } from 'vitest';
import {
  RdataFormatError,
  canonicalLabels,
  canonicalRdata,
  compareNames,
  groupRrsets,
  uncompressedRecord,
} from '../../src/validate/index.js';

const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'latin1')] : p)));
/** A name in wire form from dotted labels. */
const wire = (name: string): number[] => [...name.split('.').flatMap((l) => [l.length, ...Buffer.from(l)]), 0];

describe('canonical name order (RFC 4034 section 6.1)', () => {
  it('sorts the RFC example list', () => {
    const sorted = [
      'example',
      'a.example',
      'yljkjljk.a.example',
      'Z.a.example',
      'zABC.a.EXAMPLE',
      'z.example',
      '\\001.z.example',
      '*.z.example',
      '\\200.z.example',
    ];
    const shuffled = [...sorted].reverse();
    shuffled.sort((a, b) => compareNames(parseName(a), parseName(b)));
    expect(shuffled).toEqual(sorted);
  });

  it('treats names differing only in ASCII case as equal, other octets as different', () => {
    expect(compareNames(parseName('WWW.Example'), parseName('www.example'))).toBe(0);
    expect(compareNames(parseName('\\200.example'), parseName('\\224.example'))).not.toBe(0);
    expect(canonicalLabels('A.B').map((l) => Buffer.from(l).toString())).toEqual(['a', 'b']);
  });
});

describe('canonical RDATA (RFC 4034 section 6.2, RFC 6840 section 5.1)', () => {
  it('keeps the NSEC next name as written', () => {
    const nsec = bytes(wire('Next.Example'), [0, 1, 0x40]);
    expect(canonicalRdata(47, nsec)).toEqual(nsec);
  });

  it('lowercases the names of the listed types, and only their names', () => {
    expect(canonicalRdata(15, bytes([0, 10], wire('MX.Example')))).toEqual(bytes([0, 10], wire('mx.example')));
    expect(canonicalRdata(6, bytes(wire('NS1.X'), wire('Admin.X'), new Array(20).fill(0x41)))).toEqual(
      bytes(wire('ns1.x'), wire('admin.x'), new Array(20).fill(0x41)),
    );
    expect(canonicalRdata(33, bytes([0, 1, 0, 2, 0x13, 0xc4], wire('SIP.X')))).toEqual(
      bytes([0, 1, 0, 2, 0x13, 0xc4], wire('sip.x')),
    );
    const naptr = bytes([0, 1, 0, 2], [1], 'S', [7], 'SIP+D2U', [0], wire('_SIP._UDP.X'));
    expect(canonicalRdata(35, naptr)).toEqual(bytes([0, 1, 0, 2], [1], 'S', [7], 'SIP+D2U', [0], wire('_sip._udp.x')));
    const rrsig = bytes(new Array(18).fill(0x41), wire('Signer.X'), 'SIG');
    expect(canonicalRdata(46, rrsig)).toEqual(bytes(new Array(18).fill(0x41), wire('signer.x'), 'SIG'));
    expect(canonicalRdata(39, bytes(wire('Target.X')))).toEqual(bytes(wire('target.x')));
    const txt = bytes([3], 'ABC');
    expect(canonicalRdata(16, txt)).toEqual(txt);
    expect(canonicalRdata(65280, bytes(wire('NOT.A.NAME')))).toEqual(bytes(wire('NOT.A.NAME')));
  });

  it('leaves the RDATA it is given alone, a Buffer too', () => {
    const mx = Buffer.from(bytes([0, 10], wire('MX.Example')));
    const rrsig = Buffer.from(bytes(new Array(18).fill(0x41), wire('Signer.X'), 'SIG'));
    canonicalRdata(15, mx);
    canonicalRdata(46, rrsig);
    expect(mx.toString('latin1')).toContain('MX');
    expect(rrsig.toString('latin1')).toContain('Signer');
  });

  it('refuses RDATA that does not fit its layout', () => {
    expect(() => canonicalRdata(15, bytes([0, 10], wire('mx.x'), [1]))).toThrow(RdataFormatError);
    expect(() => canonicalRdata(15, bytes([0]))).toThrow(RdataFormatError);
    expect(() => canonicalRdata(2, bytes([0xc0, 12]))).toThrow(/compressed or invalid label/);
  });
});

describe('records from a packet', () => {
  // A response whose MX RDATA points back at the question name (RFC 1035 section 4.1.4).
  const packet = bytes(
    [0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0],
    wire('Example.COM'),
    [0, 15, 0, 1],
    [0xc0, 12, 0, 15, 0, 1, 0, 0, 0x0e, 0x10, 0, 6, 0, 10],
    [4],
    'MAIL',
    [0xc0, 12],
  );
  const answer: WireRecord = {
    name: 'Example.COM',
    labels: parseName('Example.COM'),
    type: 15,
    class: 1,
    ttl: 3600,
    rdataOffset: 41,
    rdlength: 9,
  };

  it('expands compressed names in RDATA, keeping their case', () => {
    const record = uncompressedRecord(packet, answer);
    expect(record).toEqual({
      name: 'Example.COM',
      rrtype: 15,
      class: 1,
      ttl: 3600,
      rdata: bytes([0, 10], wire('MAIL.Example.COM')),
    });
  });

  it('groups RRsets with the RRSIGs that cover them', () => {
    const a = { name: 'x', rrtype: 1, class: 1, ttl: 1, rdata: bytes([1, 2, 3, 4]) };
    const b = { ...a, name: 'X', rdata: bytes([1, 2, 3, 5]) };
    const sigA = { name: 'x', rrtype: 46, class: 1, ttl: 1, rdata: bytes([0, 1, 13]) };
    const sigOther = { ...sigA, rdata: bytes([0, 28, 13]) };
    expect(groupRrsets([a, sigA, b, sigOther])).toEqual([
      { records: [a, b], rrsigs: [sigA] },
      { records: [], rrsigs: [sigOther] },
    ]);
  });
});
