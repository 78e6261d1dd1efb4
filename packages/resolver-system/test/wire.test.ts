import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { makeQuery, parseMessage } from '@dnscore/core/plugin';
import { encodeAddressAnswer, encodeQuery } from '../src/wire.js';

describe('encodeQuery, nominal', () => {
  it('writes a recursive query with an EDNS0 OPT record of 1232 bytes', () => {
    const packet = encodeQuery(makeQuery('_sip._udp.biloxi.example', 'SRV'), { id: 0xbeef, udpPayloadSize: 1232 });
    const decoded = dnsPacket.decode(Buffer.from(packet));
    expect(decoded.id).toBe(0xbeef);
    expect(decoded.type).toBe('query');
    expect(decoded.flags).toBe(dnsPacket.RECURSION_DESIRED);
    expect(decoded.questions).toEqual([{ name: '_sip._udp.biloxi.example', type: 'SRV', class: 'IN' }]);
    expect(decoded.additionals).toHaveLength(1);
    expect(decoded.additionals![0]).toMatchObject({
      type: 'OPT',
      udpPayloadSize: 1232,
      flags: 0,
      ednsVersion: 0,
      extendedRcode: 0,
    });
  });

  it('writes labels holding dots and binary bytes exactly (dns-packet cannot)', () => {
    const query = makeQuery('a\\.b.\\000\\255.example', 'TXT');
    const message = parseMessage(encodeQuery(query, { id: 1 }));
    expect(message.questions[0]!.labels.map((l) => Buffer.from(l).toString('hex'))).toEqual([
      '612e62',
      '00ff',
      Buffer.from('example').toString('hex'),
    ]);
    expect(message.questions[0]!.type).toBe(16);
  });

  it('sets DO in the OPT record and CD in the header for a validating caller (RFC 3225, RFC 4035 3.2.2)', () => {
    const query = makeQuery('biloxi.example', 'DNSKEY');
    const message = parseMessage(
      encodeQuery(query, { id: 9, udpPayloadSize: 1232, dnssecOk: true, checkingDisabled: true }),
    );
    expect(message.header).toMatchObject({ id: 9, rd: true, ad: false, cd: true });
    expect(message.edns).toEqual({ udpPayloadSize: 1232, version: 0, dnssecOk: true });
    const plain = parseMessage(encodeQuery(query, { id: 9, udpPayloadSize: 1232 }));
    expect(plain.header.cd).toBe(false);
    expect(plain.edns).toEqual({ udpPayloadSize: 1232, version: 0, dnssecOk: false });
  });

  it('sets AD when asked, RD unless told not to, and leaves OPT out without a payload size', () => {
    const message = parseMessage(encodeQuery(makeQuery('example', 'A'), { id: 7, ad: true, rd: false }));
    expect(message.header).toMatchObject({ id: 7, qr: false, rd: false, ad: true, cd: false, opcode: 0 });
    expect(message.edns).toBeUndefined();
    expect(message.additionals).toHaveLength(0);
  });

  it('writes the root name and other classes', () => {
    const message = parseMessage(encodeQuery(makeQuery('.', 'NS', 'CH'), { id: 9 }));
    expect(message.questions[0]).toMatchObject({ name: '.', type: 2, class: 3 });
  });
});

describe('encodeAddressAnswer, nominal and off-nominal', () => {
  it('points each owner at the question name', () => {
    const query = makeQuery('host.example', 'AAAA');
    const packet = encodeAddressAnswer(query, [new Uint8Array(16).fill(1)], 42);
    const message = parseMessage(packet);
    expect(message.answers).toHaveLength(1);
    expect(message.answers[0]).toMatchObject({ name: 'host.example', type: 28, class: 1, ttl: 42, rdlength: 16 });
    expect(packet[message.answers[0]!.rdataOffset - 12]).toBe(0xc0);
  });

  it('writes an empty answer section when there is no address', () => {
    const message = parseMessage(encodeAddressAnswer(makeQuery('host.example', 'A'), [], 0));
    expect(message.answers).toHaveLength(0);
    expect(message.header.rcode).toBe(0);
  });
});
