/** The `sip` stack assembled from makeTransport and makeTransactionLayer: one try, incoming requests, binding. */
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import sip from 'sip';
import { InvalidArgumentError } from '@dnscore/core';
import { BridgeClosedError, LocalBindError, SipTransportError } from '../src/errors.js';
import { SipEndpoint, type SipEndpointOptions, type TryEvent } from '../src/sip-endpoint.js';
import { isRequest, type SipRequest } from '../src/sip-stack.js';
import { PEER, answer, freePort, startSipPeer, type SipPeer } from './support/peers.js';
import { rawUdpClient } from './support/raw-udp-client.js';

let udp: SipPeer;
beforeAll(async () => {
  udp = await startSipPeer({
    transport: 'udp',
    address: PEER(5),
    port: await freePort(PEER(5)),
    behaviour: answer(200),
  });
});
afterAll(async () => udp.close());

let seq = 0;
function options(uri: string, method = 'OPTIONS'): SipRequest {
  seq++;
  return {
    method,
    uri,
    headers: {
      via: [{ params: {} }],
      to: { uri },
      from: { uri: 'sip:t@127.0.0.1', params: { tag: 'e' } },
      'call-id': `e${seq}`,
      cseq: { seq: 1, method },
    },
  };
}

function firstEvent(
  endpoint: SipEndpoint,
  request: SipRequest,
  target: Parameters<SipEndpoint['attempt']>[1],
): Promise<{ event: TryEvent; branch: string }> {
  return new Promise((resolve) => {
    const handle = endpoint.attempt(request, target, (event) => {
      handle.stop();
      resolve({ event, branch: handle.branch });
    });
  });
}

/** An endpoint on 127.0.0.1 at a free port, closed when the test ends. */
async function loopbackEndpoint(options: SipEndpointOptions = {}): Promise<SipEndpoint> {
  const endpoint = await SipEndpoint.create(sip, { address: '127.0.0.1', port: await freePort(), ...options });
  onTestFinished(() => endpoint.close());
  return endpoint;
}

const rawOptions = (port: number, from: string, fromPort: number, id: string): string =>
  `OPTIONS sip:app@127.0.0.1:${port} SIP/2.0\r\nVia: SIP/2.0/UDP ${from}:${fromPort};branch=z9hG4bK${id}\r\nFrom: ` +
  `<sip:raw@${from}>;tag=r\r\nTo: <sip:app@127.0.0.1>\r\nCall-ID: ${id}\r\nCSeq: 1 OPTIONS\r\nContent-Length: ` +
  `0\r\n\r\n`;

describe('SipEndpoint: nominal', () => {
  it('one try is one client transaction with a new branch; its responses come as events', async () => {
    const endpoint = await loopbackEndpoint();
    const { event, branch } = await firstEvent(endpoint, options(`sip:a@${udp.address}`), {
      transport: 'udp',
      address: udp.address,
      port: udp.port,
    });
    expect(event.type === 'response' && event.response.status).toBe(200);
    expect(branch).toMatch(/^z9hG4bK/);
    expect(udp.requests.at(-1)!.headers.via[0]!.params.branch).toBe(branch);
    expect(udp.requests.at(-1)!.headers.via[0]).toMatchObject({
      protocol: 'UDP',
      host: '127.0.0.1',
      port: endpoint.port,
    });
  });

  it('hands incoming requests to onRequest and sends the answer through their server transaction', async () => {
    const seen: string[] = [];
    const endpoint = await loopbackEndpoint({
      onRequest: (request, remote) => {
        seen.push(`${request.method} ${remote.protocol} ${remote.address}`);
        expect(endpoint.respond(sip.makeResponse(request, 486, 'Busy Here'))).toBe(true);
      },
    });
    const raw = await rawUdpClient(PEER(6));
    raw.send(rawOptions(endpoint.port, PEER(6), raw.port, 'in1'), endpoint.port);
    expect(await raw.next()).toMatch(/^SIP\/2.0 486 Busy Here\r\n/);
    expect(seen).toEqual([`OPTIONS UDP ${PEER(6)}`]);
  });

  it('sends a message outside any transaction (an ACK) to a target', async () => {
    const endpoint = await loopbackEndpoint();
    const before = udp.requests.length;
    endpoint.sendStateless(options(`sip:a@${udp.address}`, 'ACK'), {
      transport: 'udp',
      address: udp.address,
      port: udp.port,
    });
    while (udp.requests.length === before) await new Promise((r) => setTimeout(r, 5));
    expect(udp.requests.at(-1)!.method).toBe('ACK');
  });
});

describe('SipEndpoint: where it listens (issue 21 item 5)', () => {
  it('binds loopback unless told otherwise: a stranger cannot reach the `sip` parser', async () => {
    const endpoint = await SipEndpoint.create(sip, { port: await freePort() });
    try {
      expect(endpoint.address).toBe('127.0.0.1');
      expect(endpoint.viaHost).toBe('127.0.0.1');
    } finally {
      endpoint.close();
    }
  });
});

describe('SipEndpoint: off-nominal', () => {
  it('a taken port is LocalBindError before `sip` binds (it would crash the process)', async () => {
    const port = await freePort();
    const taken = createSocket('udp4');
    await new Promise<void>((r) => taken.bind(port, '127.0.0.1', () => r()));
    try {
      await expect(SipEndpoint.create(sip, { address: '127.0.0.1', port })).rejects.toBeInstanceOf(LocalBindError);
    } finally {
      taken.close();
    }
  });

  it('refuses a bad stack, address or port', async () => {
    await expect(SipEndpoint.create({} as never)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(SipEndpoint.create(sip, { address: 'localhost' })).rejects.toThrow(/not an IP address/);
    await expect(SipEndpoint.create(sip, { address: '127.0.0.1', port: 0 })).rejects.toThrow(/1\.\.65535/);
  });

  it('a UDP target of the other family is a transport error, not a crash of `sip`’s socket', async () => {
    const endpoint = await loopbackEndpoint();
    const { event } = await firstEvent(endpoint, options('sip:a@[::1]'), {
      transport: 'udp',
      address: '::1',
      port: 5060,
    });
    expect(event.type).toBe('transport-error');
    expect(event.type === 'transport-error' && event.error).toBeInstanceOf(SipTransportError);
  });

  it('an exception in onRequest answers 500 and goes to onError', async () => {
    const errors: unknown[] = [];
    const endpoint = await loopbackEndpoint({
      onRequest: () => {
        throw new Error('app bug');
      },
      onError: (e) => errors.push(e),
    });
    const raw = await rawUdpClient(PEER(6));
    raw.send(rawOptions(endpoint.port, PEER(6), raw.port, 'in2'), endpoint.port);
    expect(await raw.next()).toMatch(/^SIP\/2.0 500 Server Internal Error\r\n/);
    expect(errors).toEqual([new Error('app bug')]);
  });

  it('after close nothing is sent; a response without a transaction is not sent', async () => {
    const endpoint = await loopbackEndpoint();
    expect(endpoint.respond(sip.makeResponse(options('sip:a@b.example'), 200, 'OK'))).toBe(false);
    endpoint.close();
    expect(() =>
      endpoint.attempt(options('sip:a@b.example'), { transport: 'udp', address: '127.0.0.1', port: 9 }, () => {}),
    ).toThrow(BridgeClosedError);
    expect(isRequest(options('sip:a@b.example'))).toBe(true);
    expect(isRequest(sip.makeResponse(options('sip:a@b.example'), 200, 'OK'))).toBe(false);
  });
});
