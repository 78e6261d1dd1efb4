/**
 * Issue 21 item 5, on loopback: the `sip` 0.0.6 parser is quadratic in whitespace (one 60 KB
 * datagram blocked the event loop ~0.9 s, one TCP connection ~17.7 s). The bridge's endpoint
 * must refuse such messages before `sip` parses them and keep answering. "Responsive" is checked
 * by what happens, never by a clock: every hostile message is refused (counted, published) before
 * the next is sent, `sip.parse` never sees one, and a request sent after them is answered.
 */
import diagnostics from 'node:diagnostics_channel';
import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import sip from 'sip';
import { CHANNELS, type SipRejectedEvent } from '@dnscore/core/diagnostics';
import { SipEndpoint } from '../src/sip-endpoint.js';
import type { InboundLimits } from '../src/guarded-transport.js';
import type { SipRequest, SipStack } from '../src/sip-stack.js';
import type { TryEvent } from '../src/sip-endpoint.js';
import { PEER, freePort } from './support/peers.js';
import { rawUdpClient } from './support/raw-udp-client.js';

const LOCAL = '127.0.0.1';
const CLIENT = PEER(21);

/** rport (RFC 3581): the raw client listens on the port it sends from, not at its sent-by. */
const options = (transport: 'UDP' | 'TCP', port: number, id: string, extra = ''): string =>
  `OPTIONS sip:app@${LOCAL}:${port} SIP/2.0\r\nVia: SIP/2.0/${transport} ${CLIENT}:5999;branch=z9hG4bK${id};rport\r\n` +
  `From: <sip:raw@${CLIENT}>;tag=r\r\nTo: <sip:app@${LOCAL}>\r\nCall-ID: ${id}\r\nCSeq: 1 OPTIONS\r\n${extra}` +
  'Content-Length: 0\r\n\r\n';

/** The datagram: 60 KB of whitespace (no start line, no end of header section). */
const WHITESPACE_60K = ' '.repeat(60_000);

/** `sip` with `parse` watched: what reached the parser. */
function watchedStack(): { stack: SipStack; parsed: number[] } {
  const parsed: number[] = [];
  const stack: SipStack = {
    ...(sip as SipStack),
    parse: (data) => {
      parsed.push(data.length);
      return sip.parse(data);
    },
  };
  return { stack, parsed };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** The dnscore:sip:rejected events, one promise per event to come. */
function rejections(): { events: SipRejectedEvent[]; next: () => Promise<SipRejectedEvent> } {
  const events: SipRejectedEvent[] = [];
  const waiting: ((event: SipRejectedEvent) => void)[] = [];
  let read = 0;
  const listener = (message: unknown): void => {
    events.push(message as SipRejectedEvent);
    waiting.shift()?.(message as SipRejectedEvent);
  };
  diagnostics.subscribe(CHANNELS.sipRejected, listener);
  cleanups.push(() => diagnostics.unsubscribe(CHANNELS.sipRejected, listener));
  return {
    events,
    next: () => {
      const index = read++;
      if (index < events.length) return Promise.resolve(events[index]!);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/** An endpoint on loopback that answers every OPTIONS 200 and records the requests it got. */
async function answering(stack: SipStack, inbound?: InboundLimits) {
  const port = await freePort(LOCAL);
  const requests: { callId: string; protocol: string }[] = [];
  const endpoint = await SipEndpoint.create(stack, {
    address: LOCAL,
    port,
    ...(inbound ? { inbound } : {}),
    onRequest: (request, remote) => {
      requests.push({ callId: String(request.headers['call-id']), protocol: remote.protocol });
      endpoint.respond(stack.makeResponse(request, 200, 'OK'));
    },
  });
  cleanups.push(() => endpoint.close());
  return { endpoint, port, requests };
}

interface TcpClient {
  readonly socket: Socket;
  readonly received: () => string;
  /** Resolves when the bridge closed the connection. */
  readonly closed: Promise<void>;
  /** Resolves with everything received once `text` is in it. */
  waitFor(text: string): Promise<string>;
}

async function tcpClient(port: number): Promise<TcpClient> {
  const socket = connect({ host: LOCAL, port, localAddress: CLIENT });
  cleanups.push(() => socket.destroy());
  let data = '';
  let wake: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    data += chunk.toString('latin1');
    wake?.();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    socket,
    received: () => data,
    closed,
    async waitFor(text) {
      while (!data.includes(text)) await new Promise<void>((resolve) => (wake = resolve));
      return data;
    },
  };
}

describe('UDP: a message sip would choke on is dropped before it parses', () => {
  it('ten 60 KB whitespace datagrams are refused, never parsed, and a request after them is answered', async () => {
    const { stack, parsed } = watchedStack();
    const { endpoint, port, requests } = await answering(stack);
    const refused = rejections();
    const client = await rawUdpClient(CLIENT);
    for (let i = 0; i < 10; i++) {
      client.send(WHITESPACE_60K, port);
      expect(await refused.next()).toEqual({
        transport: 'udp',
        address: CLIENT,
        port: client.socket.address().port,
        reason: 'whitespace-run',
        detail: 'a whitespace run is over 16 bytes',
        answered: false,
      });
    }
    const request = options('UDP', port, 'u-after');
    client.send(request, port);
    expect(await client.next()).toMatch(/^SIP\/2\.0 200 OK\r\n[\s\S]*Call-ID: u-after\r\n/);
    expect(requests).toEqual([{ callId: 'u-after', protocol: 'UDP' }]);
    expect(parsed).toEqual([request.length]);
    expect(endpoint.inboundStats.rejected['whitespace-run']).toBe(10);
  });

  it('the attack inside a Via parameter (10 s a datagram unguarded) is refused at 17 whitespace bytes', async () => {
    const { stack, parsed } = watchedStack();
    const { port } = await answering(stack);
    const refused = rejections();
    const client = await rawUdpClient(CLIENT);
    const hostile = options('UDP', port, 'u-via').replace(
      ';branch=z9hG4bKu-via',
      `;branch=z9hG4bKx${' '.repeat(60_000)}x`,
    );
    client.send(hostile, port);
    expect((await refused.next()).reason).toBe('whitespace-run');
    client.send(options('UDP', port, 'u-via2'), port);
    expect(await client.next()).toMatch(/Call-ID: u-via2\r\n/);
    expect(parsed).toHaveLength(1);
  });

  it('a request at every limit at once is parsed exactly as sip parses its bytes', async () => {
    const { stack } = watchedStack();
    const seen: unknown[] = [];
    const port = await freePort(LOCAL);
    const endpoint = await SipEndpoint.create(stack, {
      address: LOCAL,
      port,
      onRequest: (request) => {
        seen.push(request);
        endpoint.respond(stack.makeResponse(request, 200, 'OK'));
      },
    });
    cleanups.push(() => endpoint.close());
    const client = await rawUdpClient(CLIENT);
    const contact = `Contact: <sip:a@${CLIENT};x=${'c'.repeat(1004 - CLIENT.length)}>\r\n`;
    expect(contact).toHaveLength(1026);
    const fields = Array.from({ length: 119 }, (_, i) => `X-${i}: ${i}\r\n`).join('');
    const base = options('UDP', port, 'u-edge', `${contact}X-Pad: a${' '.repeat(16)}b\r\n${fields}`);
    const text = base.replace('Content-Length', `X-Long: ${'l'.repeat(4096 - 8)}\r\nContent-Length`);
    client.send(text, port);
    expect(await client.next()).toMatch(/Call-ID: u-edge\r\n/);
    const expected = sip.parse(Buffer.from(text, 'latin1'))!;
    // Stamped as sip stamps them (RFC 3261 18.2.1, RFC 3581).
    Object.assign(expected.headers.via![0]!.params, { received: CLIENT, rport: client.port });
    expect(seen).toEqual([expected]);
    expect(endpoint.inboundStats.rejected).toMatchObject({ 'line-too-long': 0, 'too-many-headers': 0 });
  });

  it('a request over maxMessageBytes whose header section passes is answered 513 (RFC 3261 21.5.14)', async () => {
    const { stack, parsed } = watchedStack();
    const { port, requests } = await answering(stack, { maxMessageBytes: 2000 });
    const refused = rejections();
    const client = await rawUdpClient(CLIENT);
    const big = options('UDP', port, 'u-big').replace('Content-Length: 0', 'Content-Length: 3000') + 'b'.repeat(3000);
    client.send(big, port);
    expect(await client.next()).toMatch(/^SIP\/2\.0 513 Message Too Large\r\n[\s\S]*Call-ID: u-big\r\n/);
    expect(await refused.next()).toMatchObject({ reason: 'message-too-large', answered: true });
    expect(requests).toEqual([]);
    expect(parsed).toEqual([big.length - 3000]);
  });
});

describe('UDP: a body cut short by the datagram is an error, bytes after the body are not the message', () => {
  /** A request whose Content-Length says `length` and whose datagram carries `body`. */
  const withBody = (port: number, id: string, body: string, length: number, method = 'OPTIONS'): string =>
    options('UDP', port, id)
      .replaceAll('OPTIONS', method)
      .replace('Content-Length: 0', `Content-Type: text/plain\r\nContent-Length: ${length}`) + body;

  it('a request whose body is shorter than its Content-Length is answered 400 and not handed on', async () => {
    const { stack, parsed } = watchedStack();
    const { endpoint, port, requests } = await answering(stack);
    const refused = rejections();
    const client = await rawUdpClient(CLIENT);
    const cut = withBody(port, 'u-short', 'abc', 10);
    client.send(cut, port);
    expect(await client.next()).toMatch(/^SIP\/2\.0 400 Bad Request\r\n[\s\S]*Call-ID: u-short\r\n/);
    expect(await refused.next()).toEqual({
      transport: 'udp',
      address: CLIENT,
      port: client.socket.address().port,
      reason: 'content-length',
      detail: 'the datagram ends 7 bytes before the end of its Content-Length body',
      answered: true,
    });
    expect(requests).toEqual([]);
    expect(parsed).toEqual([cut.length - 3]); // the header section only, to answer it
    expect(endpoint.inboundStats.rejected['content-length']).toBe(1);
  });

  it('an ACK or a response cut short is dropped without an answer', async () => {
    const { stack, parsed } = watchedStack();
    const { port, requests } = await answering(stack);
    const refused = rejections();
    const client = await rawUdpClient(CLIENT);
    client.send(withBody(port, 'u-ack', 'abc', 10, 'ACK'), port);
    expect(await refused.next()).toMatchObject({ reason: 'content-length', answered: false });
    const response =
      `SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP ${LOCAL}:${port};branch=z9hG4bKu-resp\r\n` +
      `From: <sip:app@${LOCAL}>;tag=a\r\nTo: <sip:raw@${CLIENT}>;tag=b\r\nCall-ID: u-resp\r\nCSeq: 1 OPTIONS\r\n` +
      'Content-Length: 20\r\n\r\nshort';
    client.send(response, port);
    expect(await refused.next()).toMatchObject({ reason: 'content-length', answered: false });
    // only their header sections were parsed, to see that they are no request to answer
    expect(parsed).toEqual([withBody(port, 'u-ack', 'abc', 10, 'ACK').length - 3, response.length - 5]);
    // the endpoint still answers, and said nothing to either
    client.send(options('UDP', port, 'u-then'), port);
    expect(await client.next()).toMatch(/^SIP\/2\.0 200 OK\r\n[\s\S]*Call-ID: u-then\r\n/);
    expect(requests).toEqual([{ callId: 'u-then', protocol: 'UDP' }]);
  });

  it('a body longer than its Content-Length is cut to it; Content-Length 0 means no body', async () => {
    const { stack } = watchedStack();
    const port = await freePort(LOCAL);
    const bodies: unknown[] = [];
    const endpoint = await SipEndpoint.create(stack, {
      address: LOCAL,
      port,
      onRequest: (request) => {
        bodies.push([request.headers['call-id'], request.content]);
        endpoint.respond(stack.makeResponse(request, 200, 'OK'));
      },
    });
    cleanups.push(() => endpoint.close());
    const client = await rawUdpClient(CLIENT);
    client.send(withBody(port, 'u-long', 'abcdef', 3), port);
    expect(await client.next()).toMatch(/Call-ID: u-long\r\n/);
    client.send(withBody(port, 'u-zero', 'junk', 0), port);
    expect(await client.next()).toMatch(/Call-ID: u-zero\r\n/);
    expect(bodies).toEqual([
      ['u-long', 'abc'],
      ['u-zero', ''],
    ]);
  });
});

describe('TCP: streams are framed and checked before sip parses; connections are bounded', () => {
  it('60 KB of whitespace, sent slowly, closes the connection at 17 bytes; another one is answered', async () => {
    const { stack, parsed } = watchedStack();
    const { endpoint, port, requests } = await answering(stack);
    const refused = rejections();
    const hostile = await tcpClient(port);
    for (let i = 0; i < 60 && !hostile.socket.destroyed; i++) hostile.socket.write(' '.repeat(1000));
    expect(await refused.next()).toMatchObject({ transport: 'tcp', address: CLIENT, reason: 'whitespace-run' });
    await hostile.closed;
    const honest = await tcpClient(port);
    honest.socket.write(options('TCP', port, 't-after'));
    expect(await honest.waitFor('Call-ID: t-after')).toMatch(/^SIP\/2\.0 200 OK\r\n/);
    expect(requests).toEqual([{ callId: 't-after', protocol: 'TCP' }]);
    expect(parsed).toEqual([options('TCP', port, 't-after').length]);
    expect(endpoint.inboundStats).toMatchObject({ tcpConnections: 1 });
  });

  it('pipelined requests in 1-byte writes at the limits are each answered, parsed as sip would', async () => {
    const { stack } = watchedStack();
    const { port, requests } = await answering(stack);
    const client = await tcpClient(port);
    const edge = options('TCP', port, 't-edge', `X-Pad: a${' '.repeat(16)}b\r\n`);
    const text = `${options('TCP', port, 't-1')}\r\n\r\n${edge}${options('TCP', port, 't-2')}`;
    for (const byte of Buffer.from(text, 'latin1')) client.socket.write(Buffer.of(byte));
    await client.waitFor('Call-ID: t-2');
    expect(requests.map((r) => r.callId)).toEqual(['t-1', 't-edge', 't-2']);
  });

  it('a huge Content-Length gets 513 and the connection closes, before the body is read', async () => {
    const { stack, parsed } = watchedStack();
    const { port, requests } = await answering(stack);
    const refused = rejections();
    const client = await tcpClient(port);
    const head = options('TCP', port, 't-huge').replace('Content-Length: 0', 'Content-Length: 100000000');
    client.socket.write(head + 'b'.repeat(10_000));
    await client.closed;
    expect(client.received()).toMatch(/^SIP\/2\.0 513 Message Too Large\r\n[\s\S]*Call-ID: t-huge\r\n/);
    expect(await refused.next()).toMatchObject({ reason: 'message-too-large', answered: true });
    expect(requests).toEqual([]);
    expect(parsed).toEqual([head.length]);
  });

  it('a message that does not finish within tcpMessageMs closes the connection (slowloris)', async () => {
    const { stack } = watchedStack();
    const { endpoint, port } = await answering(stack, { tcpMessageMs: 300 });
    const refused = rejections();
    const client = await tcpClient(port);
    client.socket.write(options('TCP', port, 't-slow').slice(0, 60));
    await client.closed;
    expect(await refused.next()).toMatchObject({
      reason: 'message-timeout',
      detail: 'a message took over 300 ms to arrive',
    });
    expect(endpoint.inboundStats.rejected['message-timeout']).toBe(1);
  });

  it('an incoming connection idle for tcpIdleMs, with no transaction on it, closes; nothing is refused', async () => {
    const { stack } = watchedStack();
    const { endpoint, port } = await answering(stack, { tcpIdleMs: 200 });
    const client = await tcpClient(port);
    client.socket.write('\r\n\r\n'); // an RFC 5626 keep-alive: no message, nothing held
    await client.closed;
    expect(client.received()).toBe('');
    expect(Object.values(endpoint.inboundStats.rejected).every((n) => n === 0)).toBe(true);
    expect(endpoint.inboundStats.tcpConnections).toBe(0);
  });

  it('past maxTcpConnections a new connection is closed at once; when one leaves, the next is served', async () => {
    const { stack } = watchedStack();
    const { endpoint, port } = await answering(stack, { maxTcpConnections: 2 });
    const refused = rejections();
    const first = await tcpClient(port);
    const second = await tcpClient(port);
    second.socket.write(options('TCP', port, 't-c2'));
    await second.waitFor('Call-ID: t-c2');
    const third = await tcpClient(port);
    await third.closed;
    expect(await refused.next()).toMatchObject({ transport: 'tcp', reason: 'connection-limit' });
    expect(third.received()).toBe('');
    first.socket.destroy();
    await first.closed;
    while (endpoint.inboundStats.tcpConnections > 1) await new Promise((resolve) => setImmediate(resolve));
    const fourth = await tcpClient(port);
    fourth.socket.write(options('TCP', port, 't-c4'));
    expect(await fourth.waitFor('Call-ID: t-c4')).toMatch(/^SIP\/2\.0 200 OK\r\n/);
    expect(endpoint.inboundStats.rejected['connection-limit']).toBe(1);
  });
});

describe('TCP: a server the bridge calls is checked the same way', () => {
  it('a response stream of whitespace ends the try with a transport error, counted and published', async () => {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.write(WHITESPACE_60K);
    });
    const address = PEER(22);
    const serverPort = await freePort(address);
    await new Promise<void>((resolve) => server.listen(serverPort, address, () => resolve()));
    cleanups.push(() => server.close());
    const { stack, parsed } = watchedStack();
    const { endpoint } = await answering(stack);
    const refused = rejections();
    const request: SipRequest = {
      method: 'OPTIONS',
      uri: `sip:app@${address}:${serverPort};transport=tcp`,
      headers: {
        via: [{ params: {} }],
        to: { uri: `sip:app@${address}` },
        from: { uri: `sip:t@${LOCAL}`, params: { tag: 'o' } },
        'call-id': 'out-1',
        cseq: { seq: 1, method: 'OPTIONS' },
      },
    };
    const event = await new Promise<TryEvent>((resolve) => {
      endpoint.attempt(request, { transport: 'tcp', address, port: serverPort }, resolve);
    });
    expect(event.type).toBe('transport-error');
    expect(event.type === 'transport-error' && event.error.message).toMatch(/message refused \(whitespace-run: /);
    expect(await refused.next()).toMatchObject({
      transport: 'tcp',
      address,
      port: serverPort,
      reason: 'whitespace-run',
    });
    expect(parsed).toEqual([]);
    expect(endpoint.inboundStats.rejected['whitespace-run']).toBe(1);
  });
});
