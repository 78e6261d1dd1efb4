/**
 * A bare UDP socket on a loopback address that plays a remote SIP party: it sends text byte for
 * byte (latin1) and reads back what comes, one datagram at a time. Closed when the test ends.
 */
import { createSocket, type Socket } from 'node:dgram';
import { onTestFinished } from 'vitest';

export interface RawUdpClient {
  readonly socket: Socket;
  /** The port the socket is bound to. */
  readonly port: number;
  /** Sends `text` to 127.0.0.1 `port`. */
  send(text: string, port: number): void;
  /** The next datagram received (waits for one). */
  next(): Promise<string>;
  /** Datagrams received and not yet taken by next(). */
  readonly inbox: readonly string[];
}

export async function rawUdpClient(address: string): Promise<RawUdpClient> {
  const socket = createSocket('udp4');
  const inbox: string[] = [];
  let wake: (() => void) | undefined;
  socket.on('message', (data) => {
    inbox.push(data.toString('latin1'));
    wake?.();
  });
  await new Promise<void>((resolve) => socket.bind(0, address, () => resolve()));
  onTestFinished(() => void socket.close());
  return {
    socket,
    inbox,
    port: socket.address().port,
    send: (text, port) => socket.send(Buffer.from(text, 'latin1'), port, '127.0.0.1'),
    next: async () => {
      while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return inbox.shift()!;
    },
  };
}
