/** Free loopback ports and what loopback offers, for tests that start servers. */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port free for both UDP and TCP on `address` (the OS picks; checked for TCP too). */
export async function freePort(address = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4');
      socket.once('error', reject);
      socket.bind(0, address, () => {
        const { port } = socket.address();
        socket.close(() => resolve(port));
      });
    });
    const tcpFree = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, address, () => server.close(() => resolve(true)));
    });
    if (tcpFree) return port;
  }
  throw new Error(`no free port on ${address}`);
}

/** True when the loopback interface has ::1 (see /proc/net/if_inet6). */
export function hasIpv6Loopback(): boolean {
  try {
    return readFileSync('/proc/net/if_inet6', 'utf8')
      .split('\n')
      .some((line) => line.startsWith('00000000000000000000000000000001'));
  } catch {
    return false;
  }
}
