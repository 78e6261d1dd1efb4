/**
 * One query over UDP: a fresh socket on a port the OS picks at random (Linux randomizes
 * ephemeral ports; RFC 5452 section 9.2), a crypto-random ID, and only an answer from the exact
 * address and port queried with that ID and question is taken. Everything else is dropped and
 * counted while the try keeps waiting. The socket is not connected, so the refused datagrams
 * reach us and can be counted (a connected socket would hide them in the kernel).
 */
import { createSocket } from 'node:dgram';
import { NetworkError, abortError, describeQuery } from '@dnscore/core/plugin';
import { CLASSIC_UDP_SIZE } from './defaults.js';
import { newQueryPacket, type ExchangeContext, type ExchangeOutcome } from './exchange.js';
import { inspectResponse } from './response-check.js';
import { formatServerAddress, isFromServer } from './server-address.js';
import { countDropped } from './stats.js';

export function udpExchange(context: ExchangeContext): Promise<ExchangeOutcome> {
  const { server, query, signal, stats, timers } = context;
  return new Promise<ExchangeOutcome>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    const { id, packet } = newQueryPacket(context);
    const limit = context.udpPayloadSize ?? CLASSIC_UDP_SIZE;
    const socket = createSocket({ type: server.family === 6 ? 'udp6' : 'udp4' });
    let done = false;
    let dropped = 0;
    let caseMismatch = 0;

    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      timers.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('message');
      socket.close();
      settle();
    };
    const onAbort = (): void => finish(() => reject(abortError(signal)));
    const fail = (error: Error): void => {
      if (done) return;
      stats.networkErrors++;
      const text = `${describeQuery(query)} over UDP to ${formatServerAddress(server)}: ${error.message}`;
      finish(() => resolve({ kind: 'failed', error: new NetworkError(text, { cause: error }) }));
    };

    signal.addEventListener('abort', onAbort, { once: true });
    const timer = timers.setTimeout(() => {
      stats.timeouts++;
      finish(() => resolve({ kind: 'timeout', dropped, caseMismatch }));
    }, context.timeoutMs);
    socket.on('error', fail);
    socket.on('message', (message, from) => {
      if (!isFromServer(server, from.address, from.port)) {
        stats.wrongSource++;
        dropped++;
        return;
      }
      const verdict = inspectResponse(message, id, query, context.sentLabels);
      if (verdict.kind !== 'accept') {
        countDropped(stats, verdict.kind);
        dropped++;
        if (verdict.kind === 'case-mismatch') caseMismatch++;
        return;
      }
      if (message.length > limit) {
        // Larger than we said we could take: it may have come in fragments, which an
        // off-path attacker can forge; do not use it, ask over TCP.
        stats.oversized++;
        finish(() => resolve({ kind: 'truncated' }));
      } else if (verdict.summary.tc) {
        stats.truncated++;
        finish(() => resolve({ kind: 'truncated' }));
      } else {
        finish(() => resolve({ kind: 'answer', packet: verdict.packet, summary: verdict.summary }));
      }
    });
    // Port 0: the OS picks a random free port for this query alone; exclusive so a cluster
    // worker never shares it with another process.
    socket.bind({ port: 0, exclusive: true }, () => {
      if (done) return;
      stats.udpSent++;
      socket.send(packet, server.port, server.address, (error) => {
        if (error && !done) fail(error);
      });
    });
  });
}
