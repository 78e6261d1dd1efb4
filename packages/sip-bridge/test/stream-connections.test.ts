/** Outgoing TCP and TLS connections with a server name per connection, framed by `sip`'s parser. */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import sip from 'sip';
import { InvalidArgumentError } from '@dnscore/core';
import { SipTransportError } from '../src/errors.js';
import type { SipMessage, SipRemote, SipRequest } from '../src/sip-stack.js';
import { StreamConnections } from '../src/stream-connections.js';
import { stampVia, wellFormed } from '../src/stream-connections.js';
import {
  PEER,
  answer,
  freePort,
  makeCertificate,
  startSipPeer,
  type SipPeer,
  type TestCertificate,
} from './support/peers.js';

let tcp: SipPeer;
let tls: SipPeer;
let cert: TestCertificate;

beforeAll(async () => {
  cert = makeCertificate({ dns: ['right.example'], ip: [PEER(2)] });
  tcp = await startSipPeer({
    transport: 'tcp',
    address: PEER(1),
    port: await freePort(PEER(1)),
    behaviour: answer(200),
  });
  tls = await startSipPeer({
    transport: 'tls',
    address: PEER(2),
    port: await freePort(PEER(2)),
    behaviour: answer(200),
    tls: cert,
  });
});
afterAll(async () => {
  await tcp.close();
  await tls.close();
});

/** Outgoing connections whose incoming messages the test reads (`next`); closed when the test ends. */
function collect(): {
  streams: StreamConnections;
  received: { message: SipMessage; remote: SipRemote }[];
  next: () => Promise<{ message: SipMessage; remote: SipRemote }>;
} {
  const received: { message: SipMessage; remote: SipRemote }[] = [];
  let waiter: (() => void) | undefined;
  const streams = new StreamConnections(
    sip,
    (message, remote) => {
      received.push({ message, remote });
      waiter?.();
    },
    { via: { host: '127.0.0.1', port: 5999 }, tls: { ca: cert.cert } },
  );
  onTestFinished(() => streams.close());
  const next = async () => {
    const count = received.length;
    while (received.length === count) await new Promise<void>((r) => (waiter = r));
    return received[received.length - 1]!;
  };
  return { streams, received, next };
}

let seq = 0;
function options(uri: string): SipRequest {
  seq++;
  return {
    method: 'OPTIONS',
    uri,
    headers: {
      via: [{ params: { branch: `z9hG4bKstream${seq}` } }],
      to: { uri },
      from: { uri: 'sip:t@127.0.0.1', params: { tag: 'a' } },
      'call-id': `s${seq}`,
      cseq: { seq: 1, method: 'OPTIONS' },
    },
  };
}

describe('StreamConnections: nominal', () => {
  it('TCP: stamps our Via, sends, and hands the parsed response to the dispatcher with its remote', async () => {
    const { streams, next } = collect();
    const connection = streams.open({ transport: 'tcp', address: tcp.address, port: tcp.port });
    connection.send(options(`sip:a@${tcp.address}`));
    const { message, remote } = await next();
    expect((message as { status: number }).status).toBe(200);
    expect(remote).toMatchObject({ protocol: 'TCP', address: tcp.address, port: tcp.port });
    expect(tcp.requests.at(-1)!.headers.via[0]).toMatchObject({ protocol: 'TCP', host: '127.0.0.1', port: 5999 });
    // A second open to the same place shares the connection; get() finds it by remote.
    const again = streams.open({ transport: 'tcp', address: tcp.address, port: tcp.port });
    expect(streams.size).toBe(1);
    expect(streams.get({ protocol: 'tcp', address: tcp.address, port: tcp.port })).toBeDefined();
    connection.release();
    again.release();
  });

  it(
    'TLS: connects to the address and sends the server name as SNI; the certificate is checked against ' + 'it',
    async () => {
      const { streams, next } = collect();
      const connection = streams.open({
        transport: 'tls',
        address: tls.address,
        port: tls.port,
        serverName: 'right.example',
      });
      connection.send(options('sips:a@right.example'));
      expect((await next()).remote).toMatchObject({ protocol: 'TLS', address: tls.address });
      expect(tls.serverNames.at(-1)).toBe('right.example');
    },
  );

  it('TLS without a server name (an IP literal URI) checks the certificate against the address', async () => {
    const { streams, next } = collect();
    streams.open({ transport: 'tls', address: tls.address, port: tls.port }).send(options(`sips:a@${tls.address}`));
    expect(((await next()).message as { status: number }).status).toBe(200);
  });
});

describe('StreamConnections: off-nominal', () => {
  it('a refused connection reaches the holder as SipTransportError', async () => {
    const { streams } = collect();
    const port = await freePort(PEER(3));
    const error = await new Promise<Error>((resolve) =>
      streams.open({ transport: 'tcp', address: PEER(3), port }, resolve),
    );
    expect(error).toBeInstanceOf(SipTransportError);
    expect(error).toMatchObject({ code: 'BRIDGE_ERR_TRANSPORT', destination: `tcp ${PEER(3)} ${port}` });
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('a certificate for another name fails the handshake, although it names the address', async () => {
    const { streams } = collect();
    const error = await new Promise<Error>((resolve) =>
      streams.open({ transport: 'tls', address: tls.address, port: tls.port, serverName: 'wrong.example' }, resolve),
    );
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(tls.serverNames.at(-1)).toBe('wrong.example');
  });

  it('refuses to turn certificate checks off, and to open after close', () => {
    expect(
      () => new StreamConnections(sip, () => {}, { via: { host: 'h', port: 1 }, tls: { rejectUnauthorized: false } }),
    ).toThrow(InvalidArgumentError);
    const { streams } = collect();
    streams.close();
    expect(() => streams.open({ transport: 'tcp', address: tcp.address, port: tcp.port })).toThrow(/closed/);
  });

  it('wellFormed and stampVia follow `sip`', () => {
    expect(wellFormed(options('sip:a@b.example'))).toBe(true);
    expect(wellFormed({ status: 99, reason: '', headers: options('sip:a@b').headers })).toBe(false);
    expect(wellFormed({ method: 'OPTIONS', uri: 'sip:a@b', headers: { via: [] } })).toBe(false);
    const rq = options('sip:a@b.example');
    stampVia(rq, 'TLS', { host: '[::1]', port: 5070 });
    expect(rq.headers.via![0]).toMatchObject({ host: '[::1]', port: 5070, protocol: 'TLS' });
    const none: SipRequest = { method: 'ACK', uri: 'sip:a@b', headers: {} };
    stampVia(none, 'TCP', { host: 'h', port: 1 });
    expect(none.headers.via).toBeUndefined();
  });
});
