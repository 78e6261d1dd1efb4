/**
 * One query over TCP (RFC 7766), for answers that do not fit in UDP: each message framed by
 * a two-byte length, one connection per query. A message with another ID or question is
 * dropped and counted; one with our ID that cannot be parsed fails the try (over TCP it comes
 * from the server itself, not from a spoofer).
 */
import { connect } from 'node:net';
import { MalformedAnswerError, NetworkError, abortError, describeQuery } from '@dnscore/core/plugin';
import { newQueryPacket, type ExchangeContext, type ExchangeOutcome } from './exchange.js';
import { inspectResponse } from './response-check.js';
import { formatServerAddress } from './server-address.js';
import { countDropped } from './stats.js';

export function tcpExchange(context: ExchangeContext): Promise<ExchangeOutcome> {
  const { server, query, signal, stats, timers } = context;
  return new Promise<ExchangeOutcome>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    const { id, packet } = newQueryPacket(context);
    const frame = Buffer.alloc(2 + packet.length);
    frame.writeUInt16BE(packet.length, 0);
    frame.set(packet, 2);
    const where = `${describeQuery(query)} over TCP to ${formatServerAddress(server)}`;
    const socket = connect({ host: server.address, port: server.port, noDelay: true });
    // What came in and is not a whole message yet: chunks put together only once a message is
    // whole (or its length prefix is split). A server that sends a byte per segment would
    // otherwise have each byte copy all before it: 2 GB copied, seconds of CPU, for 64 KB.
    const chunks: Buffer[] = [];
    let buffered = 0;
    let done = false;
    let dropped = 0;

    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      timers.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('data');
      socket.destroy();
      settle();
    };
    const onAbort = (): void => finish(() => reject(abortError(signal)));
    const fail = (reason: string, cause?: Error): void => {
      // The close that follows our own destroy() after an answer is no network error.
      if (done) return;
      stats.networkErrors++;
      finish(() =>
        resolve({ kind: 'failed', error: new NetworkError(`${where}: ${reason}`, cause ? { cause } : undefined) }),
      );
    };
    const take = (message: Uint8Array): void => {
      const verdict = inspectResponse(message, id, query);
      if (verdict.kind === 'accept') {
        finish(() => resolve({ kind: 'answer', packet: message, summary: verdict.summary }));
        return;
      }
      // Over TCP nothing is cut for size: TC with records that cannot be read is malformed.
      countDropped(stats, verdict.kind === 'truncated' ? 'malformed' : verdict.kind);
      dropped++;
      if (verdict.kind === 'malformed' || verdict.kind === 'truncated') {
        const error = new MalformedAnswerError(
          `${where}: the answer is malformed: ${verdict.error.message}`,
          verdict.error.offset,
        );
        finish(() => resolve({ kind: 'failed', error }));
      }
    };

    signal.addEventListener('abort', onAbort, { once: true });
    const timer = timers.setTimeout(() => {
      stats.timeouts++;
      finish(() => resolve({ kind: 'timeout', dropped }));
    }, context.timeoutMs);
    socket.on('error', (error) => fail(error.message, error));
    socket.on('close', () => fail('the server closed the connection without an answer'));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      buffered += chunk.length;
      while (!done && buffered >= 2) {
        if (chunks[0]!.length < 2) chunks.splice(0, chunks.length, Buffer.concat(chunks, buffered));
        const length = chunks[0]!.readUInt16BE(0);
        if (buffered < 2 + length) break;
        const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
        take(Buffer.from(whole.subarray(2, 2 + length))); // a copy: the answer outlives the stream buffer
        const rest = whole.subarray(2 + length);
        chunks.length = 0;
        buffered = rest.length;
        if (buffered > 0) chunks.push(rest);
      }
    });
    stats.tcpSent++;
    socket.write(frame);
  });
}
