/**
 * Responses to a request over UDP (RFC 3261 section 18.2.2, RFC 3581): to the source port when
 * the top Via asked for rport, else to the source address at the Via's sent-by port. A peer
 * that sends from one socket and listens on another gets its response where it listens.
 */
import sip from 'sip';
import { describe, expect, it } from 'vitest';
import { responseTarget } from '../src/response-target.js';
import type { SipBridge } from '../src/sip-bridge.js';
import type { SipRemote, SipRequest, SipStack } from '../src/sip-stack.js';
import { zoneBridge } from './support/bridge.js';
import { freePort } from './support/peers.js';
import { rawUdpClient } from './support/raw-udp-client.js';
import { optionsRequest } from './support/options-request.js';

const stack = sip as unknown as SipStack;
const ZONE = '$ORIGIN port.test.\n$TTL 300\n@ IN SOA ns h 1 3600 600 86400 300\n';

function options(bridgePort: number, via: string, callId: string): string {
  const uri = `sip:bridge@127.0.0.1:${bridgePort}`;
  return optionsRequest({ uri, via, toHost: '127.0.0.1', fromHost: '127.0.0.1', callId });
}

async function answeringBridge(): Promise<SipBridge> {
  const bridge: SipBridge = await zoneBridge(ZONE, {
    address: '127.0.0.1',
    port: await freePort(),
    onRequest: (request) => bridge.endpoint.respond(stack.makeResponse(request, 200, 'OK')),
  });
  return bridge;
}

describe('SipBridge over UDP: where a response goes', () => {
  it('without rport: to the sent-by port, not the port the request came from', async () => {
    const bridge = await answeringBridge();
    const [sender, listener] = [await rawUdpClient('127.0.0.1'), await rawUdpClient('127.0.0.1')];
    sender.send(
      options(bridge.endpoint.port, `SIP/2.0/UDP 127.0.0.1:${listener.port};branch=z9hG4bK-sb`, 'sb-1'),
      bridge.endpoint.port,
    );
    const response = await listener.next();
    expect(response.split('\r\n')[0]).toBe('SIP/2.0 200 OK');
    expect(response).toContain(`Via: SIP/2.0/UDP 127.0.0.1:${listener.port};branch=z9hG4bK-sb;received=127.0.0.1`);
    expect(sender.inbox).toEqual([]);
  });

  it('with rport: to the port the request came from, with rport filled in', async () => {
    const bridge = await answeringBridge();
    const [sender, listener] = [await rawUdpClient('127.0.0.1'), await rawUdpClient('127.0.0.1')];
    const via = `SIP/2.0/UDP 127.0.0.1:${listener.port};branch=z9hG4bK-rp;rport`;
    sender.send(options(bridge.endpoint.port, via, 'rp-1'), bridge.endpoint.port);
    const response = await sender.next();
    expect(response.split('\r\n')[0]).toBe('SIP/2.0 200 OK');
    expect(response).toContain(`;rport=${sender.port}`);
    expect(listener.inbox).toEqual([]);
  });
});

describe('responseTarget', () => {
  const remote: SipRemote = {
    protocol: 'UDP',
    address: '127.0.0.1',
    port: 40000,
    local: { address: '127.0.0.1', port: 5070 },
  };
  const asked = (via: SipRequest['headers']['via']): SipRequest =>
    ({ method: 'OPTIONS', uri: 'sip:b@127.0.0.1', version: '2.0', headers: { via } }) as SipRequest;

  it('keeps the source for rport, a stream, a Via of another transport or none; else the sent-by port, or 5060', () => {
    const udp = (port: number | undefined, params: Record<string, string | null>) => [
      { version: '2.0', protocol: 'UDP', host: 'peer.example', ...(port ? { port } : {}), params },
    ];
    expect(responseTarget(asked(udp(5062, { branch: 'z9hG4bK1', rport: '40000' })), remote)).toBe(remote);
    expect(responseTarget(asked(udp(5062, { branch: 'z9hG4bK1' })), { ...remote, protocol: 'TCP' }).port).toBe(40000);
    expect(responseTarget(asked([{ protocol: 'TCP', host: 'h', port: 5062, params: {} }]), remote)).toBe(remote);
    expect(responseTarget(asked(undefined), remote)).toBe(remote);
    expect(responseTarget(asked(udp(5062, { branch: 'z9hG4bK1', maddr: '192.0.2.9' })), remote)).toEqual({
      ...remote,
      port: 5062,
    });
    expect(responseTarget(asked(udp(undefined, { branch: 'z9hG4bK1' })), remote).port).toBe(5060);
  });
});
