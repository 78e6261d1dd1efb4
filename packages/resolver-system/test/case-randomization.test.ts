/**
 * Issue 21 item 10: 0x20 case randomization (draft-vixie-dnsext-dns0x20, unbound's
 * use-caps-for-id). With the port known, a forger must now guess the ID and one bit per letter
 * of the name: for www.bank.example (13 letters) 2^13 = 8,192 times as many forged answers as
 * the 18,000 that poisoned 7 of 10 trials with the ID alone. Tested on loopback: a forged
 * answer with the right ID but not our case is dropped and counted; a server that does not
 * echo case gets the plain name after one try (unbound's fallback) and is remembered.
 */
import { createSocket, type Socket } from 'node:dgram';
import dnsPacket from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { makeQuery, parseName, wireName } from '@dnscore/core/plugin';
import { freePort } from '../../../test/support/ports.js';
import { SystemResolver } from '../src/index.js';
import { randomizeCase, restoreQuestionCase } from '../src/case-randomization.js';
import { inspectResponse } from '../src/response-check.js';
import { encodeQuery, Flag, queryWireName } from '../src/wire.js';

const NAME = 'www.bank.example';

/** A name as randomizeCase() gives it: wire form, a latin1 character per byte. */
function sentForm(labels: readonly Uint8Array[]): string {
  return Buffer.from(wireName(labels)).toString('latin1');
}
const noResolvConf = '/nonexistent/resolv.conf';

interface RawServer {
  readonly endpoint: string;
  readonly received: string[];
  close(): Promise<void>;
}

/** A UDP server on loopback that answers A 192.0.2.1 through `reply`, which may send forgeries first. */
async function rawServer(
  reply: (query: dnsPacket.Packet, send: (packet: dnsPacket.Packet) => void) => void,
): Promise<RawServer> {
  const port = await freePort('127.0.0.1');
  const socket: Socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', () => resolve()));
  const received: string[] = [];
  socket.on('message', (message, from) => {
    const query = dnsPacket.decode(message);
    received.push(query.questions![0]!.name);
    reply(query, (packet) => socket.send(dnsPacket.encode(packet), from.port, from.address));
  });
  return {
    endpoint: `127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

function answer(query: dnsPacket.Packet, questionName: string, address: string): dnsPacket.Packet {
  const q = query.questions![0]!;
  return {
    id: query.id,
    type: 'response',
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
    questions: [{ ...q, name: questionName }],
    answers: [{ type: 'A', class: 'IN', name: questionName, ttl: 60, data: address }],
  };
}

const flipCase = (name: string) =>
  [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

let server: RawServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function resolver(endpoint: string, options: { caseRandomization?: boolean } = {}) {
  return new SystemResolver(
    { nameservers: [endpoint], resolvConf: noResolvConf, search: [] },
    { attempts: 1, timeoutMs: 300, ...options },
  );
}

describe('0x20 on the wire', () => {
  it('sends the name in random case and gives the answer back in the case asked', async () => {
    server = await rawServer((q, send) => send(answer(q, q.questions![0]!.name, '192.0.2.1')));
    const r = resolver(server.endpoint);
    for (let i = 0; i < 8; i++) {
      const result = await r.resolve(makeQuery(NAME, 'A'), new AbortController().signal);
      const records = dnsPacket.decode(Buffer.from(result.answer!)).answers!;
      expect(records.map((a) => [a.name, (a as { data: string }).data])).toEqual([[NAME, '192.0.2.1']]);
    }
    expect(server.received.map((n) => n.toLowerCase())).toEqual(Array(8).fill(NAME));
    // 8 x 13 random bits: all lowercase has a chance of 2^-104.
    expect(server.received.some((n) => n !== NAME)).toBe(true);
    expect(r.stats).toMatchObject({ caseMismatch: 0, caseFallbacks: 0 });
  });

  it('drops a forged answer with the right ID but not our case, and takes the real one', async () => {
    server = await rawServer((q, send) => {
      const sent = q.questions![0]!.name;
      send(answer(q, flipCase(sent), '6.6.6.6')); // the forger guessed ID and port, not the case
      send(answer(q, sent, '192.0.2.1'));
    });
    const r = resolver(server.endpoint);
    const result = await r.resolve(makeQuery(NAME, 'A'), new AbortController().signal);
    const records = dnsPacket.decode(Buffer.from(result.answer!)).answers!;
    expect(records.map((a) => (a as { data: string }).data)).toEqual(['192.0.2.1']);
    expect(r.stats).toMatchObject({ caseMismatch: 1, caseFallbacks: 0, answers: 1 });
  });

  it('a server that does not echo case is asked plainly after one try, and remembered', async () => {
    server = await rawServer((q, send) => send(answer(q, q.questions![0]!.name.toLowerCase(), '192.0.2.1')));
    const r = resolver(server.endpoint);
    const first = await r.resolve(makeQuery(NAME, 'A'), new AbortController().signal);
    expect(first.rcode).toBe(0);
    expect(r.stats).toMatchObject({ caseMismatch: 1, caseFallbacks: 1, timeouts: 1 });
    expect(server.received).toHaveLength(2);
    expect(server.received[1]).toBe(NAME);
    await r.resolve(makeQuery('other.bank.example', 'A'), new AbortController().signal);
    expect(server.received[2]).toBe('other.bank.example');
    expect(r.stats).toMatchObject({ caseMismatch: 1, caseFallbacks: 1, timeouts: 1 });
  });

  it('caseRandomization: false sends the name as asked', async () => {
    server = await rawServer((q, send) => send(answer(q, q.questions![0]!.name, '192.0.2.1')));
    const r = resolver(server.endpoint, { caseRandomization: false });
    for (let i = 0; i < 4; i++) await r.resolve(makeQuery(NAME, 'A'), new AbortController().signal);
    expect(server.received).toEqual(Array(4).fill(NAME));
  });
});

describe('randomizeCase', () => {
  it('draws each letter independently, about half upper case; digits and other bytes stay', () => {
    const labels = parseName('ab1-c.example');
    const upper = new Array(13).fill(0);
    for (let i = 0; i < 2000; i++) {
      const out = randomizeCase(sentForm(labels));
      expect([out.charCodeAt(0), out.charCodeAt(6), out.charCodeAt(14)]).toEqual([5, 7, 0]); // lengths and root stay
      const text = `${out.slice(1, 6)}.${out.slice(7, 14)}`;
      expect(text.toLowerCase()).toBe('ab1-c.example');
      [...text].forEach((c, j) => {
        if (c !== c.toLowerCase()) upper[j]++;
      });
    }
    for (const j of [0, 1, 4, 6, 7, 8, 9, 10, 11, 12]) expect(upper[j] / 2000).toBeGreaterThan(0.4);
    for (const j of [0, 1, 4, 6, 7, 8, 9, 10, 11, 12]) expect(upper[j] / 2000).toBeLessThan(0.6);
    expect([upper[2], upper[3], upper[5]]).toEqual([0, 0, 0]);
  });

  it('queryWireName reads a name without escapes from its text, and any other from its labels', () => {
    const names = [
      'www.bank.example',
      'A-1._sip._UDP.example',
      'x',
      '.',
      'Mail\\.Box.Example',
      'caf\\195\\169.example',
    ];
    for (const name of names) {
      const query = makeQuery(name, 'A');
      expect(queryWireName(query)).toBe(sentForm(query.labels));
    }
    // A DnsQuery made by hand with an empty or over-long label is written from its labels, never
    // as a length octet of 0 or above 63 in the middle of a name.
    const long = 'a'.repeat(64);
    for (const name of ['a..example', `${long}.example`]) {
      const labels = [Uint8Array.of(0x61), Uint8Array.of(0x62)];
      expect(queryWireName({ name, labels, type: 1, class: 1 })).toBe(sentForm(labels));
    }
  });

  it('randomizeCase keeps a name longer than any name may be whole (a hand-made query)', () => {
    const long = sentForm(Array.from({ length: 6 }, () => new TextEncoder().encode('a'.repeat(60))));
    expect(long.length).toBeGreaterThan(255);
    const out = randomizeCase(long);
    expect(out.length).toBe(long.length);
    expect(out.toLowerCase()).toBe(long);
  });

  it('restoreQuestionCase puts the asked case back, in a copy', () => {
    const query = makeQuery(NAME, 'A');
    // Drawn until a letter came out in capitals (all 14 in lower case is 1 draw in 16,384): else the
    // copy would equal the packet and the last check could not tell.
    let sent = randomizeCase(queryWireName(query));
    while (!/[A-Z]/.test(sent)) sent = randomizeCase(queryWireName(query));
    const packet = encodeQuery(query, { id: 7, name: sent });
    const restored = restoreQuestionCase(packet, sent, query);
    expect(Buffer.from(restored)).toEqual(Buffer.from(encodeQuery(query, { id: 7 })));
    expect(Buffer.from(packet)).not.toEqual(Buffer.from(restored)); // a copy; the original kept
  });

  it('restoreQuestionCase puts back the case of names whose text is not their bytes (escapes) too', () => {
    for (const name of ['Mail\\.Box.Example', 'caf\\195\\169.EXample', 'a\\\\b.Example', 'WWW.Example.COM', '-.x']) {
      const query = makeQuery(name, 'A');
      for (let i = 0; i < 20; i++) {
        const packet = encodeQuery(query, { id: 7, name: randomizeCase(queryWireName(query)) });
        const sent = Buffer.from(packet.subarray(12, packet.length - 4)).toString('latin1');
        expect(Buffer.from(restoreQuestionCase(packet, sent, query))).toEqual(
          Buffer.from(encodeQuery(query, { id: 7 })),
        );
      }
    }
  });

  it('restoreQuestionCase rewrites every full copy of the sent name after the header, left to right', () => {
    const original = parseName('www.example');
    const asked = makeQuery('www.example', 'A');
    const sent = parseName('wWw.ExAmPlE');
    const wire = (labels: readonly Uint8Array[]): number[] => [...labels.flatMap((l) => [l.length, ...l]), 0];
    const header = [...wire(sent), 0, 0, 0, 0].slice(0, 12); // the same bytes inside the header stay
    const packet = Buffer.from([
      ...header,
      ...wire(sent), // the question
      0xc0,
      12, // a pointer: not a full copy
      3,
      ...Buffer.from('WWW'),
      ...wire(sent), // a name ending in the sent name is rewritten too
      ...wire(sent).slice(0, 6), // a cut copy at the end
    ]);
    const restored = restoreQuestionCase(packet, sentForm(sent), asked);
    expect([...restored]).toEqual([
      ...header,
      ...wire(original),
      0xc0,
      12,
      3,
      ...Buffer.from('WWW'),
      ...wire(original),
      ...wire(sent).slice(0, 6),
    ]);
    expect(restored).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(restored)).toBe(false);
  });

  it('restoreQuestionCase rewrites a suffix of the sent name written out in full (a decompressed pointer)', () => {
    const original = parseName('alias.trace.example');
    const asked = makeQuery('alias.trace.example', 'A');
    const sent = parseName('aLiAs.TrAce.eXAmpLE');
    const wire = (labels: readonly Uint8Array[]): number[] => [...labels.flatMap((l) => [l.length, ...l]), 0];
    const header = new Array<number>(12).fill(0);
    const cnameTarget = [...wire(parseName('www.other')).slice(0, -1), ...wire(sent.slice(2))]; // www.other.eXAmpLE
    const inZone = [...wire(parseName('ns1')).slice(0, -1), ...wire(sent.slice(1))]; // ns1.TrAce.eXAmpLE
    const otherCase = wire(parseName('www.other.ExamplE')); // not our random case: left as it is
    const packet = Buffer.from([...header, ...wire(sent), ...cnameTarget, ...inZone, ...otherCase]);
    const restored = restoreQuestionCase(packet, sentForm(sent), asked);
    expect([...restored]).toEqual([
      ...header,
      ...wire(original),
      ...wire(parseName('www.other.example')),
      ...wire(parseName('ns1.trace.example')),
      ...otherCase,
    ]);
  });

  it('restoreQuestionCase leaves a suffix without a capital alone: signed data in lower case may match it', () => {
    const original = parseName('WWW.EXAMPLE.COM');
    const asked = makeQuery('WWW.EXAMPLE.COM', 'A');
    const sent = parseName('wWw.ExAmPlE.com');
    const wire = (labels: readonly Uint8Array[]): number[] => [...labels.flatMap((l) => [l.length, ...l]), 0];
    // An NSEC next name in the zone's case, written in full (RFC 4034 section 4.1.1), keeps it (RFC 6840 5.1).
    const nextName = wire(parseName('example.com'));
    const decompressed = [...wire(parseName('ns1')).slice(0, -1), ...wire(sent.slice(1))];
    const packet = Buffer.from([...new Array<number>(12).fill(0), ...wire(sent), ...nextName, ...decompressed]);
    expect([...restoreQuestionCase(packet, sentForm(sent), asked)].slice(12)).toEqual([
      ...wire(original),
      ...nextName,
      ...wire(parseName('ns1.EXAMPLE.COM')),
    ]);
  });
});

describe('forgeries needed, measured', () => {
  it('a forger with the right ID and port is accepted once per 2^letters tries (ab.cd: 1 in 16)', () => {
    const query = makeQuery('ab.cd', 'A');
    const forgeries = 16_000;
    let accepted = 0;
    for (let i = 0; i < forgeries; i++) {
      const sent = randomizeCase(queryWireName(query)); // what our query carried
      const guess = randomizeCase(queryWireName(query)); // the forger's guess of it
      const forged = Buffer.from(encodeQuery(query, { id: 99, name: guess }));
      forged.writeUInt16BE(Flag.QR | Flag.RD | Flag.RA, 2);
      if (inspectResponse(forged, 99, query, sent).kind === 'accept') accepted++;
    }
    // Expected 1,000 (binomial, sd 31); without 0x20 every one of them would be accepted.
    expect(accepted).toBeGreaterThan(850);
    expect(accepted).toBeLessThan(1150);
  });
});
