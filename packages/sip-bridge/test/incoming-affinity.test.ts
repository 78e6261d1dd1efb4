/**
 * Call-ID affinity learned from requests the far side sends us, with node SIP peers on loopback.
 * A TCP peer connects from an ephemeral port; the pin must name where it listens (its Via
 * sent-by port, RFC 3261 18.2.2), so a later request of the same dialog goes to that listed
 * target first.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { SipBridge } from '../src/sip-bridge.js';
import type { SipRemote } from '../src/sip-stack.js';
import { request, tries, zoneBridge } from './support/bridge.js';
import { PEER, answer, freePort, startSipPeer, type SipPeer } from './support/peers.js';
import { rawUdpClient } from './support/raw-udp-client.js';
import { optionsRequest } from './support/options-request.js';

const ORIGIN = 'incoming.test';
const FIRST = PEER(50);
const SECOND = PEER(51);

let port: number;
let zone: string;
const peers: SipPeer[] = [];

beforeAll(async () => {
  port = await freePort(FIRST);
  zone = `$ORIGIN ${ORIGIN}.
$TTL 300
@ IN SOA ns h 1 3600 600 86400 300
_sip._tcp.cluster IN SRV 10 0 ${port} first
_sip._tcp.cluster IN SRV 20 0 ${port} second
_sip._udp.cluster IN SRV 10 0 ${port} first
_sip._udp.cluster IN SRV 20 0 ${port} second
first IN A ${FIRST}
second IN A ${SECOND}
`;
  for (const address of [FIRST, SECOND])
    for (const transport of ['udp', 'tcp'] as const)
      peers.push(await startSipPeer({ transport, address, port, behaviour: answer(200) }));
});

afterAll(async () => {
  for (const peer of peers) await peer.close();
});

/** An OPTIONS from `from`'s SIP peer: its Via names where it listens, `viaPort` (absent: none). */
function incoming(bridge: SipBridge, from: string, callId: string, transport: 'UDP' | 'TCP', viaPort?: number) {
  const sentBy = viaPort === undefined ? from : `${from}:${viaPort}`;
  return optionsRequest({
    uri: `sip:bridge@127.0.0.1:${bridge.endpoint.port};transport=${transport.toLowerCase()}`,
    via: `SIP/2.0/${transport} ${sentBy};branch=z9hG4bK-${callId}`,
    toHost: '127.0.0.1',
    fromHost: from,
    callId,
  });
}

/** A bridge that tells `heard` each request the far side sends it (after it learned the pin). */
async function listeningBridge(): Promise<{ bridge: SipBridge; heard: () => Promise<SipRemote> }> {
  const waiting: ((remote: SipRemote) => void)[] = [];
  const bridge = await zoneBridge(zone, { onRequest: (_request, remote) => waiting.shift()?.(remote) });
  return { bridge, heard: () => new Promise((resolve) => waiting.push(resolve)) };
}

/** Sends `text` over a new TCP connection from `from`; the connection's port is ephemeral. */
async function sendOverTcp(bridgePort: number, from: string, text: string): Promise<number> {
  const socket: Socket = connect({ host: '127.0.0.1', port: bridgePort, localAddress: from });
  onTestFinished(() => void socket.destroy());
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(text, 'latin1');
  return socket.localPort!;
}

describe('SipBridge: Call-ID affinity from incoming requests', () => {
  it('a TCP peer that connected from an ephemeral port is pinned at its listening port', async () => {
    const { bridge: b, heard } = await listeningBridge();
    const arrived = heard();
    const sourcePort = await sendOverTcp(b.endpoint.port, SECOND, incoming(b, SECOND, 'tcp-dialog', 'TCP', port));
    expect(await arrived).toMatchObject({ protocol: 'TCP', address: SECOND, port: sourcePort });
    expect(sourcePort).not.toBe(port);
    expect(b.locator.dialogs.lookup('tcp-dialog')).toEqual({
      transport: 'tcp',
      address: SECOND,
      port,
      learned: 'incoming',
    });
    const rq = request(`sip:svc@cluster.${ORIGIN};transport=tcp`);
    const report = await b.send({ ...rq, headers: { ...rq.headers, 'call-id': 'tcp-dialog' } });
    expect(tries(report)).toEqual([`tcp ${SECOND} response 200 pinned`]);
  });

  it('a Via without a port means the transport default, 5060 (RFC 3261 18.2.2, 19.1.2)', async () => {
    const { bridge: b, heard } = await listeningBridge();
    const arrived = heard();
    await sendOverTcp(b.endpoint.port, SECOND, incoming(b, SECOND, 'no-port', 'TCP'));
    await arrived;
    expect(b.locator.dialogs.lookup('no-port')).toEqual({
      transport: 'tcp',
      address: SECOND,
      port: 5060,
      learned: 'incoming',
    });
  });

  it('a UDP peer sending from another port than it listens on is pinned at its Via port', async () => {
    const { bridge: b, heard } = await listeningBridge();
    const raw = await rawUdpClient(SECOND);
    const arrived = heard();
    raw.send(incoming(b, SECOND, 'udp-dialog', 'UDP', port), b.endpoint.port);
    expect(await arrived).toMatchObject({ protocol: 'UDP', address: SECOND, port: raw.port });
    expect(b.locator.dialogs.lookup('udp-dialog')).toMatchObject({ transport: 'udp', address: SECOND, port });
    const rq = request(`sip:svc@cluster.${ORIGIN}`);
    const report = await b.send({ ...rq, headers: { ...rq.headers, 'call-id': 'udp-dialog' } });
    expect(tries(report)).toEqual([`udp ${SECOND} response 200 pinned`]);
  });

  it('a Via of another transport than the connection learns no pin', async () => {
    const { bridge: b, heard } = await listeningBridge();
    const arrived = heard();
    await sendOverTcp(b.endpoint.port, SECOND, incoming(b, SECOND, 'mismatch', 'UDP', port));
    await arrived;
    expect(b.locator.dialogs.lookup('mismatch')).toBeUndefined();
    const rq = request(`sip:svc@cluster.${ORIGIN};transport=tcp`);
    const report = await b.send({ ...rq, headers: { ...rq.headers, 'call-id': 'mismatch' } });
    expect(tries(report)).toEqual([`tcp ${FIRST} response 200`]);
  });
});
