/**
 * The hostile test server (test/support/hostile-server.ts) does what each behaviour says, so
 * the resolver tests that rely on it, and later fuzz tests, can trust it.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { connect } from 'node:net';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireError, parseMessage } from '@dnscore/core/plugin';
import { startHostileServer, type Behaviour, type HostileServer } from '../../../test/support/hostile-server.js';
import { HOSTILE_ZONE } from './helpers.js';

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer({ zone: HOSTILE_ZONE });
});
afterAll(() => server.close());

function query(name = 'www.hostile.example', type: dnsPacket.RecordType = 'A', id = 0x1234): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type, class: 'IN' }],
    additionals: [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: 1232,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: 0,
        flag_do: false,
        options: [],
      },
    ],
  });
}

/** Sends one UDP query with the plan and collects `count` datagrams. */
async function udp(plan: Behaviour[], count: number, packet = query()): Promise<{ msg: Buffer; from: RemoteInfo }[]> {
  server.setPlan({ udp: plan });
  const socket = createSocket('udp4');
  const got: { msg: Buffer; from: RemoteInfo }[] = [];
  await new Promise<void>((resolve) => {
    socket.on('message', (msg, from) => {
      got.push({ msg, from });
      if (got.length === count) resolve();
    });
    socket.send(packet, server.port, server.address);
  });
  socket.close();
  return got;
}

describe('hostile server, nominal', () => {
  it('answers from its zone, echoing ID, question and EDNS, and records the query', async () => {
    const before = server.received.length;
    const [reply] = await udp(['answer'], 1);
    const answer = dnsPacket.decode(reply!.msg);
    expect(answer).toMatchObject({ id: 0x1234, type: 'response', rcode: 'NOERROR' });
    expect(answer.answers).toEqual([
      expect.objectContaining({ name: 'www.hostile.example', type: 'A', data: '192.0.2.80' }),
    ]);
    expect(answer.additionals).toEqual([expect.objectContaining({ type: 'OPT', udpPayloadSize: 1232 })]);
    expect(server.received[before]).toMatchObject({
      transport: 'udp',
      id: 0x1234,
      name: 'www.hostile.example',
      type: 'A',
      rd: true,
      udpPayloadSize: 1232,
      nth: expect.any(Number),
    });
  });

  it('follows CNAMEs, and answers NXDOMAIN and NODATA with the SOA', async () => {
    const [alias] = await udp(['answer'], 1, query('alias.hostile.example'));
    expect(dnsPacket.decode(alias!.msg).answers!.map((r) => r.type)).toEqual(['CNAME', 'A']);
    const [nx] = await udp(['answer'], 1, query('missing.hostile.example'));
    expect(dnsPacket.decode(nx!.msg)).toMatchObject({
      rcode: 'NXDOMAIN',
      authorities: [expect.objectContaining({ type: 'SOA' })],
    });
    const [nodata] = await udp(['answer'], 1, query('www.hostile.example', 'MX'));
    expect(dnsPacket.decode(nodata!.msg)).toMatchObject({
      rcode: 'NOERROR',
      answers: [],
      authorities: [expect.objectContaining({ type: 'SOA' })],
    });
  });

  it('answers over TCP with a length prefix', async () => {
    const socket = connect(server.port, server.address);
    const packet = query();
    socket.write(Buffer.concat([Buffer.from([packet.length >> 8, packet.length & 0xff]), packet]));
    const data = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
    socket.destroy();
    expect(data.readUInt16BE(0)).toBe(data.length - 2);
    expect(dnsPacket.decode(data.subarray(2)).id).toBe(0x1234);
  });
});

describe('hostile server, each behaviour', () => {
  it('sends error rcodes, TC, and AD', async () => {
    const rcodes: number[] = [];
    for (const b of ['servfail', 'refused', 'notimp', 'formerr'] as const)
      rcodes.push(parseMessage((await udp([b], 1))[0]!.msg).header.rcode);
    expect(rcodes).toEqual([2, 5, 4, 1]);
    expect(dnsPacket.decode((await udp(['formerr'], 1))[0]!.msg).additionals).toEqual([]);
    const tc = dnsPacket.decode((await udp(['truncate'], 1))[0]!.msg);
    expect([tc.flag_tc, tc.answers]).toEqual([true, []]);
    expect(dnsPacket.decode((await udp(['ad'], 1))[0]!.msg).flag_ad).toBe(true);
  });

  it('sends from another port and from another address', async () => {
    const [fromPort] = await udp(['other-port'], 1);
    expect(fromPort!.from.address).toBe(server.address);
    expect(fromPort!.from.port).not.toBe(server.port);
    const [fromAddress] = await udp(['other-address'], 1);
    expect(fromAddress!.from.address).toBe('127.0.0.2');
  });

  it('sends wrong IDs, questions and types, and a changed case', async () => {
    const got = await udp(
      ['wrong-id', 'wrong-question', 'wrong-type', 'case-changed', 'no-question', 'not-response'],
      6,
    );
    const [wrongId, wrongQuestion, wrongType, caseChanged, noQuestion, notResponse] = got.map((g) => g.msg);
    expect(dnsPacket.decode(wrongId!).id).toBe(0x1235);
    expect(dnsPacket.decode(wrongQuestion!).questions![0]!.name).toBe('evil.www.hostile.example');
    expect(dnsPacket.decode(wrongType!).questions![0]!.type).toBe('AAAA');
    expect(dnsPacket.decode(caseChanged!).questions![0]!.name).toBe('WWW.HOSTILE.EXAMPLE');
    expect(noQuestion!.readUInt16BE(4)).toBe(0);
    expect(notResponse![2]! & 0x80).toBe(0);
  });

  it('sends garbage, short, malformed and compression-loop packets the core parser refuses', async () => {
    const got = (await udp(['garbage', 'short', 'malformed', 'compression-loop'], 4)).map((g) => g.msg);
    expect(got[0]!.readUInt16BE(0)).not.toBe(0x1234);
    expect(got[1]).toHaveLength(5);
    for (const packet of got.slice(1)) expect(() => parseMessage(packet)).toThrow(WireError);
    expect(got[2]!.readUInt16BE(0)).toBe(0x1234);
    expect(() => parseMessage(got[3]!)).toThrow(/compression pointer/);
  });

  it('sends an oversized answer without TC, and other records beside the answer', async () => {
    const [big] = await udp(['oversized'], 1);
    expect(big!.msg.length).toBeGreaterThan(2000);
    expect(dnsPacket.decode(big!.msg)).toMatchObject({ flag_tc: false });
    const [mixed] = await udp(['other-records'], 1);
    expect(dnsPacket.decode(mixed!.msg).answers!.map((r) => `${r.name} ${r.type}`)).toEqual([
      'www.hostile.example TXT',
      'www.hostile.example MX',
      'elsewhere.www.hostile.example A',
      'www.hostile.example A',
    ]);
  });
});

describe('hostile server, off-nominal', () => {
  it('ignores what it cannot decode', async () => {
    const before = server.received.length;
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) =>
      socket.send(Buffer.from('junk'), server.port, server.address, () => resolve()),
    );
    socket.close();
    await udp(['answer'], 1); // a later query is still served, and the junk was not recorded
    expect(server.received.length - before).toBe(1);
  });
});
