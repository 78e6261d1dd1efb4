import { describe, expect, it } from 'vitest';
import { parseMessage, scanMessage, WireError } from '@dnscore/core/plugin';
import { answerPacket, bytes, domain, srvRdata, u16, u32 } from '../support/packets.js';

describe('parseMessage: nominal', () => {
  it('reads header flags, question and records with their RDATA bounds', () => {
    const packet = answerPacket({
      id: 0xbeef,
      rcode: 3,
      flags: 0x8400 | 0x0100 | 0x0080 | 0x0020,
      question: { name: 'Goose.Feathers', type: 33 },
      answers: [{ type: 33, ttl: 60, rdata: srvRdata(10, 20, 5060, 'sip.example') }],
    });
    const message = parseMessage(packet);
    expect(message.header).toEqual({
      id: 0xbeef,
      qr: true,
      opcode: 0,
      aa: true,
      tc: false,
      rd: true,
      ra: true,
      ad: true,
      cd: false,
      rcode: 3,
    });
    expect(message.questions).toHaveLength(1);
    expect(message.questions[0]!.name).toBe('Goose.Feathers');
    const record = message.answers[0]!;
    expect(record).toMatchObject({ name: 'Goose.Feathers', type: 33, class: 1, ttl: 60, rdlength: 19 });
    expect(Array.from(packet.subarray(record.rdataOffset, record.rdataOffset + 6))).toEqual([0, 10, 0, 20, 0x13, 0xc4]);
  });

  it('takes the OPT record out of the additional section and extends the rcode (RFC 6891)', () => {
    const opt = { name: '.', type: 41, class: 1232, ttl: (1 << 24) | 0x8000, rdata: new Uint8Array(0) };
    const message = parseMessage(answerPacket({ rcode: 0, additionals: [opt] }));
    expect(message.additionals).toHaveLength(0);
    expect(message.edns).toEqual({ udpPayloadSize: 1232, version: 0, dnssecOk: true });
    expect(message.header.rcode).toBe(16); // BADVERS/BADSIG
  });

  it("reads OPT's TTL field as extended rcode and flags, never as a TTL: its top bit is not cleared", () => {
    // Extended rcode 0xff (the top bit of the TTL field), version 1, DO set.
    const opt = { name: '.', type: 41, class: 4096, ttl: (0xff << 24) | (1 << 16) | 0x8000, rdata: new Uint8Array(0) };
    const packet = answerPacket({ rcode: 5, additionals: [opt] });
    const message = parseMessage(packet);
    expect(message.header.rcode).toBe((0xff << 4) | 5);
    expect(message.edns).toEqual({ udpPayloadSize: 4096, version: 1, dnssecOk: true });
    expect(scanMessage(packet).rcode).toBe(message.header.rcode);
  });

  it('treats a TTL with the top bit set as zero (RFC 2181 section 8)', () => {
    const message = parseMessage(answerPacket({ answers: [{ type: 1, ttl: 0x80000000, rdata: bytes([1, 2, 3, 4]) }] }));
    expect(message.answers[0]!.ttl).toBe(0);
  });

  it('follows a backward compression pointer', () => {
    const message = parseMessage(answerPacket({ answers: [{ type: 1, rdata: bytes([1, 2, 3, 4]) }] }));
    expect(message.answers[0]!.name).toBe('goose.feathers');
  });
});

describe('scanMessage: the header a transport needs, with parseMessage checks and nothing built', () => {
  it('sums up rcode (extended by OPT), TC, AD and whether an OPT came back', () => {
    const opt = { name: '.', type: 41, class: 1232, ttl: 1 << 24, rdata: new Uint8Array(0) };
    const packet = answerPacket({
      rcode: 2,
      flags: 0x8000 | 0x0200 | 0x0020,
      answers: [{ type: 33, ttl: 60, rdata: srvRdata(10, 20, 5060, 'sip.example') }],
      additionals: [{ type: 1, rdata: bytes([1, 2, 3, 4]) }, opt],
    });
    expect(scanMessage(packet)).toEqual({ rcode: 18, tc: true, ad: true, edns: true });
    expect(parseMessage(packet).header.rcode).toBe(18);
    expect(scanMessage(answerPacket({ rcode: 3 }))).toEqual({ rcode: 3, tc: false, ad: false, edns: false });
  });
});

describe('parseMessage: off-nominal', () => {
  const header = (qd: number, an: number): number[] => [
    ...u16(1),
    ...u16(0x8000),
    ...u16(qd),
    ...u16(an),
    ...u16(0),
    ...u16(0),
  ];

  /** scanMessage refuses what parseMessage refuses, with the same WireError. */
  function refusedAlike(packet: Uint8Array): WireError {
    let parsed: unknown;
    let scanned: unknown;
    try {
      parseMessage(packet);
    } catch (error) {
      parsed = error;
    }
    try {
      scanMessage(packet);
    } catch (error) {
      scanned = error;
    }
    expect(parsed).toBeInstanceOf(WireError);
    expect(scanned).toBeInstanceOf(WireError);
    expect([(scanned as WireError).message, (scanned as WireError).offset]).toEqual([
      (parsed as WireError).message,
      (parsed as WireError).offset,
    ]);
    return parsed as WireError;
  }

  it('scanMessage refuses each of these packets with the error parseMessage gives', () => {
    const long = [...Array(5)].flatMap(() => [63, ...Array(63).fill(0x61)]);
    const opt = { name: '.', type: 41, class: 512, ttl: 0, rdata: new Uint8Array(0) };
    const cutRdata = [header(1, 1), domain('a'), u16(1), u16(1), domain('a'), u16(1), u16(1), u32(1), u16(10)];
    const packets = [
      new Uint8Array(11),
      bytes(header(1, 0), [0xc0, 12], u16(1), u16(1)),
      bytes(header(1, 0), [0xc0, 20], u16(1), u16(1), domain('x')),
      bytes(header(1, 0), [1, 0x61, 0xc0, 12], u16(1), u16(1)),
      bytes(header(1, 0), [0x41, 0], u16(1), u16(1)),
      bytes(header(1, 0), long, [0], u16(1), u16(1)),
      bytes(...cutRdata, [1, 2, 3, 4]),
      bytes(header(1, 3), domain('a'), u16(1), u16(1)),
      answerPacket({ additionals: [opt, opt] }),
      // Two OPTs, then a record cut short: the cut record is what both report.
      withThirdAdditional(answerPacket({ additionals: [opt, opt] })),
      answerPacket({ answers: [{ type: 1, ttl: 60, rdata: new Uint8Array(4) }, opt] }),
      answerPacket({ authorities: [opt] }),
      answerPacket({ additionals: [{ ...opt, name: 'goose.feathers' }] }),
    ];
    const messages = packets.map((packet) => refusedAlike(packet).message);
    expect(messages[8]).toBe('more than one OPT record');
    expect(messages[9]).toBe('additional record type needs 2 bytes, 0 left');
    expect(messages[10]).toBe('an OPT record in the answer section (RFC 6891: only in the additional section)');
    expect(messages[11]).toBe('an OPT record in the authority section (RFC 6891: only in the additional section)');
    expect(messages[12]).toBe('an OPT record whose owner is not the root (RFC 6891 section 6.1.2)');
  });

  /** ARCOUNT one higher, and only the owner (the root) of that record. */
  function withThirdAdditional(packet: Uint8Array): Uint8Array {
    const out = new Uint8Array(packet.length + 1);
    out.set(packet);
    out[11] = packet[11]! + 1;
    return out;
  }

  it('refuses a packet shorter than a header', () => {
    expect(() => parseMessage(new Uint8Array(11))).toThrow(WireError);
  });

  it('refuses a pointer to itself (a loop)', () => {
    const packet = bytes(header(1, 0), [0xc0, 12], u16(1), u16(1));
    expect(() => parseMessage(packet)).toThrow(/does not point backwards/);
  });

  it('refuses a forward pointer', () => {
    const packet = bytes(header(1, 0), [0xc0, 20], u16(1), u16(1), domain('x'));
    expect(() => parseMessage(packet)).toThrow(/does not point backwards/);
  });

  it('refuses a pointer chain that loops through earlier names', () => {
    // name at 12: label "a" then a pointer back to 12 -> a loop through a backward pointer.
    const packet = bytes(header(1, 0), [1, 0x61, 0xc0, 12], u16(1), u16(1));
    expect(() => parseMessage(packet)).toThrow(WireError);
  });

  it('refuses label types 01 and 10', () => {
    expect(() => parseMessage(bytes(header(1, 0), [0x41, 0], u16(1), u16(1)))).toThrow(/label type/);
    expect(() => parseMessage(bytes(header(1, 0), [0x81, 0], u16(1), u16(1)))).toThrow(/label type/);
  });

  it('refuses a name longer than 255 octets', () => {
    const long = [...Array(5)].flatMap(() => [63, ...Array(63).fill(0x61)]);
    expect(() => parseMessage(bytes(header(1, 0), long, [0], u16(1), u16(1)))).toThrow(/longer than 255/);
  });

  it('refuses RDATA that runs past the end of the packet', () => {
    const packet = bytes(
      header(1, 1),
      domain('a'),
      u16(1),
      u16(1),
      domain('a'),
      u16(1),
      u16(1),
      u32(1),
      u16(10),
      [1, 2, 3, 4],
    );
    expect(() => parseMessage(packet)).toThrow(/runs past the end of the packet/);
  });

  it('refuses counts that promise more records than the packet holds', () => {
    expect(() => parseMessage(bytes(header(1, 3), domain('a'), u16(1), u16(1)))).toThrow(WireError);
  });

  it('refuses an OPT record in the answer or authority section (RFC 6891 section 6.1.1)', () => {
    const opt = { name: '.', type: 41, class: 512, ttl: 0, rdata: new Uint8Array(0) };
    const a = { type: 1, ttl: 60, rdata: new Uint8Array([192, 0, 2, 1]) };
    expect(() => parseMessage(answerPacket({ answers: [a, opt] }))).toThrow(/an OPT record in the answer section/);
    expect(() => parseMessage(answerPacket({ answers: [a], authorities: [opt] }))).toThrow(
      /an OPT record in the authority section/,
    );
    expect(parseMessage(answerPacket({ answers: [a], additionals: [opt] })).edns?.udpPayloadSize).toBe(512);
  });

  it('refuses an OPT record whose owner is not the root (RFC 6891 section 6.1.2), even through a pointer', () => {
    const written = { name: 'goose.feathers', type: 41, class: 512, ttl: 0, rdata: new Uint8Array(0) };
    const pointer = { type: 41, class: 512, ttl: 0, rdata: new Uint8Array(0) }; // owner: a pointer to the question
    for (const opt of [written, pointer]) {
      const packet = answerPacket({ additionals: [opt] });
      expect(() => parseMessage(packet)).toThrow(/OPT record whose owner is not the root/);
      expect(() => scanMessage(packet)).toThrow(/OPT record whose owner is not the root/);
    }
  });

  it('refuses two OPT records', () => {
    const opt = { name: '.', type: 41, class: 512, ttl: 0, rdata: new Uint8Array(0) };
    expect(() => parseMessage(answerPacket({ additionals: [opt, opt] }))).toThrow(/more than one OPT/);
  });
});
