/**
 * Requests from an IPv6 peer (a raw socket on ::1) to a bridge on ::1, over UDP and TCP: their
 * Via sent-by is an IPv6 reference, which `sip` 0.0.6 cannot read; the bridge reads it (via.ts),
 * so the response goes back with the branch and sent-by intact and the Call-ID pin names where
 * the peer listens. A Via that breaks the grammar is refused and counted; the next request is
 * answered. And the other way: a bridge on ::1 writes its own Via as [::1]:port, so without this
 * it could not match the response to its own request.
 */
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import sip from 'sip';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SipBridge } from '../src/sip-bridge.js';
import type { SipRequest, SipStack } from '../src/sip-stack.js';
import { request, tries, zoneBridge } from './support/bridge.js';
import { freePort } from './support/peers.js';
import { hasIpv6Loopback } from '../../../test/support/ports.js';
import { optionsRequest } from './support/options-request.js';

const stack = sip as unknown as SipStack;
const ZONE = '$ORIGIN v6.test.\n$TTL 300\n@ IN SOA ns h 1 3600 600 86400 300\n';

/** A bridge on [::1] that answers every request 200 and says which it got. */
async function bridgeOnV6(): Promise<{ bridge: SipBridge; heard: SipRequest[] }> {
  const heard: SipRequest[] = [];
  const bridge: SipBridge = await zoneBridge(ZONE, {
    address: '::1',
    port: await freePort('::1'),
    onRequest: (request) => {
      heard.push(request);
      bridge.endpoint.respond(stack.makeResponse(request, 200, 'OK'));
    },
  });
  return { bridge, heard };
}

function options(bridge: SipBridge, via: string, callId: string): string {
  const uri = `sip:bridge@[::1]:${bridge.endpoint.port}`;
  return optionsRequest({ uri, via, toHost: '[::1]', fromHost: '[::1]', callId });
}

/** A UDP socket on [::1] that plays the peer; `next()` is the next datagram it gets. */
async function udpPeer() {
  const socket = createSocket('udp6');
  const inbox: string[] = [];
  let wake: (() => void) | undefined;
  socket.on('message', (data) => {
    inbox.push(data.toString('latin1'));
    wake?.();
  });
  await new Promise<void>((resolve) => socket.bind(0, '::1', () => resolve()));
  onTestFinished(() => void socket.close());
  return {
    port: socket.address().port,
    send: (text: string, port: number) => socket.send(Buffer.from(text, 'latin1'), port, '::1'),
    next: async () => {
      while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return inbox.shift()!;
    },
  };
}

const viaLine = (response: string) => response.split('\r\n').find((line) => line.startsWith('Via:'));

describe.skipIf(!hasIpv6Loopback())('SipBridge: a request from an IPv6 peer', () => {
  it('UDP: answered at its sent-by with the branch, received and rport; the Call-ID pinned there', async () => {
    const { bridge, heard } = await bridgeOnV6();
    const peer = await udpPeer();
    peer.send(
      options(bridge, `SIP/2.0/UDP [::1]:${peer.port};branch=z9hG4bK-v6udp;rport`, 'v6-udp'),
      bridge.endpoint.port,
    );
    const response = await peer.next();
    expect(response.startsWith('SIP/2.0 200 OK\r\n')).toBe(true);
    expect(viaLine(response)).toBe(
      `Via: SIP/2.0/UDP [::1]:${peer.port};branch=z9hG4bK-v6udp;rport=${peer.port};received=::1`,
    );
    expect(heard.map((r) => r.headers.via)).toEqual([
      [
        {
          version: '2.0',
          protocol: 'UDP',
          host: '[::1]',
          port: peer.port,
          params: { branch: 'z9hG4bK-v6udp', rport: peer.port, received: '::1' },
        },
      ],
    ]);
    expect(bridge.locator.dialogs.lookup('v6-udp')).toEqual({
      transport: 'udp',
      address: '::1',
      port: peer.port,
      learned: 'incoming',
    });
  });

  it('TCP from an ephemeral port: answered on the connection, pinned at the Via port', async () => {
    const { bridge } = await bridgeOnV6();
    const listening = await freePort('::1');
    const socket = connect({ host: '::1', port: bridge.endpoint.port });
    onTestFinished(() => void socket.destroy());
    let data = '';
    const answered = new Promise<string>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        data += chunk.toString('latin1');
        if (data.includes('\r\n\r\n')) resolve(data);
      }),
    );
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(options(bridge, `SIP/2.0/TCP [::1]:${listening};branch=z9hG4bK-v6tcp`, 'v6-tcp'), 'latin1');
    const response = await answered;
    expect(response.startsWith('SIP/2.0 200 OK\r\n')).toBe(true);
    expect(viaLine(response)).toBe(`Via: SIP/2.0/TCP [::1]:${listening};branch=z9hG4bK-v6tcp;received=::1`);
    expect(socket.localPort).not.toBe(listening);
    expect(bridge.locator.dialogs.lookup('v6-tcp')).toEqual({
      transport: 'tcp',
      address: '::1',
      port: listening,
      learned: 'incoming',
    });
  });

  it('an unterminated bracket or a flood of parameters: refused and counted; the next request answered', async () => {
    const { bridge, heard } = await bridgeOnV6();
    const peer = await udpPeer();
    const flood = Array.from({ length: 100 }, (_, i) => `;p${i}`).join('');
    peer.send(options(bridge, `SIP/2.0/UDP [::1:${peer.port};branch=z9hG4bK-bad`, 'v6-bad'), bridge.endpoint.port);
    peer.send(
      options(bridge, `SIP/2.0/UDP [::1]:${peer.port}${flood};branch=z9hG4bK-bad2`, 'v6-bad2'),
      bridge.endpoint.port,
    );
    peer.send(options(bridge, `SIP/2.0/UDP [::1]:${peer.port};branch=z9hG4bK-good`, 'v6-good'), bridge.endpoint.port);
    const response = await peer.next();
    expect(viaLine(response)).toBe(`Via: SIP/2.0/UDP [::1]:${peer.port};branch=z9hG4bK-good;received=::1`);
    expect(heard.map((r) => r.headers['call-id'])).toEqual(['v6-good']);
    expect(bridge.endpoint.inboundStats.rejected['malformed-via']).toBe(2);
    expect(bridge.locator.dialogs.lookup('v6-bad')).toBeUndefined();
  });

  it("a request the bridge sends from [::1]: the peer's 200 echoes its Via, and the transaction matches", async () => {
    const bridge = await zoneBridge(ZONE, { address: '::1', port: await freePort('::1') }, { ipv6: true });
    const peer = await udpPeer();
    const sent: string[] = [];
    const served = (async () => {
      const text = await peer.next();
      sent.push(viaLine(text)!);
      // A stateless UAS: the 200 copies Via, To, From, Call-ID and CSeq, as RFC 3261 8.2.6.2 says.
      const copied = text.split('\r\n').filter((line) => /^(Via|To|From|Call-ID|CSeq):/.test(line));
      peer.send(['SIP/2.0 200 OK', ...copied, 'Content-Length: 0', '', ''].join('\r\n'), bridge.endpoint.port);
    })();
    const report = await bridge.send(request(`sip:svc@[::1]:${peer.port}`));
    await served;
    expect(sent[0]).toMatch(new RegExp(`^Via: SIP/2\\.0/UDP \\[::1\\]:${bridge.endpoint.port};branch=z9hG4bK`));
    expect(tries(report)).toEqual(['udp ::1 response 200']);
  });
});
