/**
 * Servers on 127.0.0.1 and ::1 on one port, for clients that connect by name: each answers with
 * the address it was reached at, so a test sees which family the client chose.
 */
import type { Server } from 'node:net';

export interface DualServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Listens with `make()` servers on 127.0.0.1 and, when `ipv6`, on ::1, on one port. */
export async function listenDual(make: () => Server, ipv6: boolean): Promise<DualServer> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const v4 = make();
    const port = await listen(v4, 0, '127.0.0.1');
    if (!ipv6) return { port, close: () => closeAll([v4]) };
    const v6 = make();
    try {
      await listen(v6, port, '::1');
      return { port, close: () => closeAll([v4, v6]) };
    } catch {
      await closeAll([v4]); // the port is taken on ::1: try another
    }
  }
  throw new Error('no port free on both 127.0.0.1 and ::1');
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

function closeAll(servers: Server[]): Promise<void> {
  return Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          (s as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
          s.close(() => resolve());
        }),
    ),
  ).then(() => undefined);
}
