/**
 * A UDP relay on loopback between libunbound and nsd that holds queries until the test
 * releases them: it keeps a query "in flight" for as long as a test needs (reload, cancel,
 * the in-flight bound) without a sleep. Replies go back from the relay's own socket, so
 * libunbound sees the server it asked.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';

export interface HoldProxy {
  /** "127.0.0.1@PORT" */
  readonly server: string;
  /** Query names received so far (lowercase, no trailing dot), retransmissions included. */
  readonly names: string[];
  /** The same queries as "name TYPE-NUMBER" ("biloxi.test 48" for a DNSKEY query). */
  readonly questions: string[];
  /** Resolves once a query for `name` has arrived. */
  waitFor(name: string): Promise<void>;
  /** Forwards what is held and everything after. */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldProxy(upstream: { address: string; port: number }): Promise<HoldProxy> {
  const socket = createSocket('udp4');
  const held: { message: Buffer; from: RemoteInfo }[] = [];
  const names: string[] = [];
  const questions: string[] = [];
  const waiters: { name: string; resolve: () => void }[] = [];
  const relays = new Set<Socket>();
  let holding = true;

  const forward = (message: Buffer, from: RemoteInfo): void => {
    const relay = createSocket('udp4');
    relays.add(relay);
    const done = (): void => {
      relays.delete(relay);
      relay.close();
    };
    relay.once('message', (reply) => {
      socket.send(reply, from.port, from.address);
      done();
    });
    relay.once('error', done);
    relay.send(message, upstream.port, upstream.address);
  };

  socket.on('message', (message, from) => {
    const { name, type } = question(message);
    names.push(name);
    questions.push(`${name} ${type}`);
    for (const waiter of waiters.filter((w) => w.name === name)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (holding) held.push({ message, from });
    else forward(message, from);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));

  return {
    server: `127.0.0.1@${socket.address().port}`,
    names,
    questions,
    waitFor: (name) =>
      names.includes(name) ? Promise.resolve() : new Promise((resolve) => waiters.push({ name, resolve })),
    release() {
      holding = false;
      for (const { message, from } of held.splice(0)) forward(message, from);
    },
    async close() {
      for (const relay of relays) relay.close();
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

/** The question name and type of a DNS query (uncompressed, as a resolver sends it). */
function question(message: Buffer): { name: string; type: number } {
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length && message[offset]! > 0) {
    const length = message[offset]!;
    labels.push(
      message
        .subarray(offset + 1, offset + 1 + length)
        .toString('latin1')
        .toLowerCase(),
    );
    offset += length + 1;
  }
  const type = offset + 3 <= message.length ? message.readUInt16BE(offset + 1) : 0;
  return { name: labels.join('.'), type };
}
