/**
 * Small DNS servers on loopback for the failure paths nsd does not offer: one that answers every
 * question with a fixed rcode and no records, one that reads questions and never answers.
 */
import { createSocket, type Socket } from 'node:dgram';
import dnsPacket from 'dns-packet';

export interface StubServer {
  readonly endpoint: string;
  /** Questions received. */
  readonly received: number;
  stop(): Promise<void>;
}

const RCODES = { FORMERR: 1, SERVFAIL: 2, NOTIMP: 4, REFUSED: 5 } as const;

export function startRcodeServer(rcode: keyof typeof RCODES): Promise<StubServer> {
  return start((socket, message, peer) => {
    const query = dnsPacket.decode(message);
    const reply = dnsPacket.encode({
      type: 'response',
      id: query.id,
      // dns-packet writes the rcode as the low four bits of the flags
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | RCODES[rcode],
      questions: query.questions,
    });
    socket.send(reply, peer.port, peer.address);
  });
}

export function startSilentServer(): Promise<StubServer> {
  return start(() => {});
}

function start(onMessage: (socket: Socket, message: Buffer, peer: { address: string; port: number }) => void) {
  return new Promise<StubServer>((resolve, reject) => {
    const socket = createSocket('udp4');
    let received = 0;
    socket.on('message', (message, peer) => {
      received++;
      try {
        onMessage(socket, message, peer);
      } catch {
        // not a DNS question: no answer
      }
    });
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      resolve({
        endpoint: `127.0.0.1:${port}`,
        get received() {
          return received;
        },
        stop: () => new Promise<void>((done) => socket.close(() => done())),
      });
    });
  });
}
