/**
 * A man in the middle on loopback: a UDP and TCP DNS proxy between a resolver and nsd that
 * forwards every query and lets the test rewrite each answer (strip RRSIGs, forge records,
 * flip AD, drop DS, break RDATA) or forge one outright. It stands for an on-path attacker,
 * so tests can show that what libunbound flags is reported bogus or insecure, never secure.
 * In-process: its sockets close with close() or with the test process.
 */
import { createSocket } from 'node:dgram';
import { connect, createServer, type Socket as TcpSocket } from 'node:net';
import { freePort } from './ports.js';

/** What the proxy knows of one query. */
export interface ProxiedQuery {
  /** Lower-case, no trailing dot. */
  readonly name: string;
  readonly type: number;
  /** The DO bit (RFC 3225): a validator asks with it; a plain stub does not. */
  readonly dnssecOk: boolean;
  readonly transport: 'udp' | 'tcp';
  /** The query as it came in. */
  readonly packet: Uint8Array;
}

/**
 * Turns nsd's answer into the one the client gets; return the answer unchanged to pass it on.
 * `answer` is a fresh copy, free to change.
 */
export type Rewrite = (query: ProxiedQuery, answer: Uint8Array) => Uint8Array;

export interface DnsProxy {
  readonly address: string;
  readonly port: number;
  /** "127.0.0.1:5301" */
  readonly endpoint: string;
  /** Every query seen, in order. */
  readonly queries: ProxiedQuery[];
  /** TCP connections accepted so far (a client that reuses its streams opens few). */
  readonly tcpConnections: number;
  /** Replaces the rewrite (default: pass everything on). */
  rewrite: Rewrite;
  close(): Promise<void>;
}

const passThrough: Rewrite = (_query, answer) => answer;

/** Starts a proxy to `upstream` ({ address, port } of nsd) on a free loopback port. */
export async function startDnsProxy(upstream: { address: string; port: number }): Promise<DnsProxy> {
  const address = '127.0.0.1';
  const port = await freePort(address);
  const udp = createSocket('udp4');
  const tcp = createServer();
  const open = new Set<TcpSocket>();
  let tcpConnections = 0;
  const proxy: DnsProxy = {
    address,
    port,
    endpoint: `${address}:${port}`,
    queries: [],
    get tcpConnections() {
      return tcpConnections;
    },
    rewrite: passThrough,
    close: async () => {
      for (const socket of open) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };

  const answer = async (packet: Uint8Array, transport: 'udp' | 'tcp'): Promise<Uint8Array | undefined> => {
    const query = describe(packet, transport);
    if (!query) return undefined;
    proxy.queries.push(query);
    const upstreamAnswer = await ask(upstream, packet);
    return proxy.rewrite(query, Uint8Array.from(upstreamAnswer));
  };

  udp.on('message', (message, remote) => {
    answer(message, 'udp').then(
      (reply) => {
        if (reply) udp.send(reply, remote.port, remote.address);
      },
      () => undefined, // an upstream that does not answer: the client times out, as it would
    );
  });
  tcp.on('connection', (socket) => {
    tcpConnections++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const packet = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + packet.length);
        answer(packet, 'tcp').then(
          (reply) => {
            if (reply && !socket.destroyed) socket.write(frame(reply));
          },
          () => socket.destroy(),
        );
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, address, () => resolve());
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, address, () => resolve());
  });
  return proxy;
}

/** Asks upstream over TCP (no truncation to handle; nsd answers every query over it). */
function ask(upstream: { address: string; port: number }, packet: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(upstream.port, upstream.address);
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('upstream did not answer'));
    }, 5000);
    socket.on('connect', () => socket.write(frame(packet)));
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        clearTimeout(timer);
        socket.end();
        resolve(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function frame(packet: Uint8Array): Buffer {
  const out = Buffer.alloc(2 + packet.length);
  out.writeUInt16BE(packet.length, 0);
  out.set(packet, 2);
  return out;
}

/** Name, type and DO bit of a query, read by hand; undefined for anything unreadable. */
function describe(packet: Uint8Array, transport: 'udp' | 'tcp'): ProxiedQuery | undefined {
  if (packet.length < 12) return undefined;
  const view = Buffer.from(packet.buffer, packet.byteOffset, packet.length);
  let offset = 12;
  const labels: string[] = [];
  while (offset < view.length && view[offset] !== 0) {
    const length = view[offset]!;
    if (length > 63) return undefined;
    labels.push(
      view
        .subarray(offset + 1, offset + 1 + length)
        .toString('latin1')
        .toLowerCase(),
    );
    offset += 1 + length;
  }
  offset += 1;
  if (offset + 4 > view.length) return undefined;
  const type = view.readUInt16BE(offset);
  offset += 4;
  // The OPT record (RFC 6891) in the additional section: root owner, type 41, DO in its TTL.
  let dnssecOk = false;
  const additionals = view.readUInt16BE(10);
  if (additionals > 0 && offset + 11 <= view.length && view[offset] === 0 && view.readUInt16BE(offset + 1) === 41) {
    dnssecOk = (view.readUInt16BE(offset + 7) & 0x8000) !== 0;
  }
  return { name: labels.join('.'), type, dnssecOk, transport, packet: Uint8Array.from(packet) };
}
