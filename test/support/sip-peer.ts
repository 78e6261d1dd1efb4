/**
 * A small SIP server in node for the tests, over UDP, TCP or TLS on loopback: it parses each
 * request with the `sip` package and answers as told (a status, a provisional then a final, or
 * nothing at all). It keeps every request and, for TLS, the server name each client sent.
 * sipp plays the servers where it can; this one plays the TLS peer (this sipp lacks TLS) and
 * the behaviours sipp scenarios cannot express cheaply.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createSecureContext, createServer as createTlsServer, type SecureContext, type TLSSocket } from 'node:tls';
import sip from 'sip';

type Message = ReturnType<typeof sip.parse> & object;
type Request = Message & {
  method: string;
  uri: string;
  headers: Record<string, unknown> & { via: { params: Record<string, unknown> }[] };
};

/** What to answer to one request: responses in order (ms delay each), or nothing. */
export type Behaviour = (request: Request, earlier: readonly Request[]) => readonly PeerResponse[];

export interface PeerResponse {
  readonly status: number;
  readonly reason?: string;
  readonly headers?: Record<string, unknown>;
  readonly delayMs?: number;
  /** Answer this earlier request instead (the 487 of an INVITE, sent on its CANCEL). */
  readonly request?: Request;
}

export const answer =
  (status: number, headers?: Record<string, unknown>): Behaviour =>
  () => [{ status, ...(headers ? { headers } : {}) }];
export const silent: Behaviour = () => [];

export interface SipPeer {
  readonly transport: 'udp' | 'tcp' | 'tls';
  readonly address: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: Request[];
  /** TLS: the SNI of each handshake that sent one. */
  readonly serverNames: string[];
  /** Connections accepted (TCP/TLS). */
  readonly connections: number;
  behaviour: Behaviour;
  close(): Promise<void>;
}

export interface SipPeerOptions {
  readonly transport: 'udp' | 'tcp' | 'tls';
  /** A 127.x.y.z address. */
  readonly address: string;
  readonly port: number;
  readonly behaviour: Behaviour;
  /** TLS: the server's key and certificate (PEM). */
  readonly tls?: { readonly key: string; readonly cert: string };
}

export async function startSipPeer(options: SipPeerOptions): Promise<SipPeer> {
  const { transport, address, port } = options;
  if (!/^127\.\d+\.\d+\.\d+$/.test(address)) throw new Error(`test peers run on 127.0.0.0/8 only, not ${address}`);
  const requests: Request[] = [];
  const serverNames: string[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let connections = 0;
  const peer = {
    transport,
    address,
    port,
    requests,
    serverNames,
    get connections() {
      return connections;
    },
    behaviour: options.behaviour,
    close: async () => {},
  } as SipPeer;

  const respond = (request: Request, send: (text: string) => void): void => {
    const earlier = [...requests];
    requests.push(request);
    if (request.method === 'ACK') return;
    for (const r of peer.behaviour(request, earlier)) {
      const response = sip.makeResponse(
        (r.request ?? request) as never,
        r.status,
        r.reason ?? reasonOf(r.status),
        r.headers ? { headers: r.headers as never } : undefined,
      );
      const to = response.headers.to as { params?: Record<string, unknown> } | undefined;
      if (to && r.status > 100) to.params = { ...to.params, tag: 'peer' };
      const timer = setTimeout(() => {
        timers.delete(timer);
        send(sip.stringify(response));
      }, r.delayMs ?? 0);
      timers.add(timer);
    }
  };

  if (transport === 'udp') {
    const socket = createSocket('udp4');
    socket.on('message', (data: Buffer, from: RemoteInfo) => {
      const message = sip.parse(data) as Request | undefined;
      if (message?.method)
        respond(message, (text) => socket.send(Buffer.from(text, 'binary'), from.port, from.address));
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, address, () => resolve());
    });
    peer.close = async () => {
      for (const t of timers) clearTimeout(t);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    };
    return peer;
  }

  const sockets = new Set<Socket>();
  const onStream = (stream: Socket): void => {
    connections++;
    sockets.add(stream);
    stream.on('close', () => sockets.delete(stream));
    stream.on('error', () => {});
    stream.setEncoding('binary');
    const parse = sip.makeStreamParser((message) => {
      const request = message as Request;
      if (request.method) respond(request, (text) => stream.write(text, 'binary'));
    });
    stream.on('data', (data: string) => parse(data));
  };
  let server: Server;
  if (transport === 'tls') {
    if (!options.tls) throw new Error('a TLS peer needs a key and certificate');
    const context = createSecureContext({ key: options.tls.key, cert: options.tls.cert });
    // Read during the handshake, so a client that then rejects the certificate is counted too.
    const SNICallback = (name: string, done: (error: Error | null, ctx: SecureContext) => void): void => {
      serverNames.push(name);
      done(null, context);
    };
    server = createTlsServer({ key: options.tls.key, cert: options.tls.cert, SNICallback }, (socket: TLSSocket) =>
      onStream(socket),
    );
    server.on('tlsClientError', () => {});
  } else {
    server = createTcpServer(onStream);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve());
  });
  peer.close = async () => {
    for (const t of timers) clearTimeout(t);
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return peer;
}

function reasonOf(status: number): string {
  return (
    (
      {
        100: 'Trying',
        180: 'Ringing',
        183: 'Session Progress',
        200: 'OK',
        404: 'Not Found',
        486: 'Busy Here',
        487: 'Request Terminated',
        503: 'Service Unavailable',
      } as Record<number, string>
    )[status] ?? 'Status'
  );
}
