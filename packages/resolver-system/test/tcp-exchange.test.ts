import { createServer, type Server } from 'node:net';
import dnsPacket from 'dns-packet';
import { describe, expect, it, vi } from 'vitest';
import { AbortError, MalformedAnswerError, NetworkError, makeQuery, parseMessage } from '@dnscore/core/plugin';
import type { HostileServer } from '../../../test/support/hostile-server.js';
import { freePort } from '../../../test/support/ports.js';
import { tcpExchange } from '../src/tcp-exchange.js';
import { exchangeContext, handles, useHostileServer, trackingTimers, turn, until } from './helpers.js';

let server: HostileServer;
useHostileServer({ tcp: ['answer'] }, (started) => {
  server = started;
});

describe('tcpExchange, nominal', () => {
  it('asks over TCP with a length prefix and takes the answer', async () => {
    const before = server.received.length;
    const context = exchangeContext(server.endpoint, makeQuery('alias.hostile.example', 'A'));
    const outcome = await tcpExchange(context);
    expect(outcome.kind).toBe('answer');
    if (outcome.kind !== 'answer') return;
    expect(parseMessage(outcome.packet).answers.map((r) => r.type)).toEqual([5, 1]);
    expect(server.received[before]).toMatchObject({
      transport: 'tcp',
      name: 'alias.hostile.example',
      type: 'A',
      udpPayloadSize: 1232,
    });
    expect(context.stats).toMatchObject({ tcpSent: 1, udpSent: 0 });
  });

  it('counts no network error for a successful answer, once the connection has closed (issue 21 item 9)', async () => {
    const context = exchangeContext(server.endpoint, makeQuery('alias.hostile.example', 'A'));
    const before = handles().tcp;
    expect((await tcpExchange(context)).kind).toBe('answer');
    await until(() => handles().tcp <= before, 'the connection closed');
    for (let i = 0; i < 5; i++) await turn();
    expect(context.stats).toMatchObject({ tcpSent: 1, networkErrors: 0, timeouts: 0 });
  });

  it('reassembles an answer that arrives a byte at a time', async () => {
    const trickle = await byteAtATimeServer();
    try {
      const outcome = await tcpExchange(exchangeContext(trickle.endpoint));
      expect(outcome.kind).toBe('answer');
      if (outcome.kind === 'answer') expect(parseMessage(outcome.packet).answers).toHaveLength(1);
    } finally {
      await new Promise((resolve) => trickle.server.close(resolve));
    }
  });

  it('puts an answer sent a byte at a time together without copying what came before at each byte', async () => {
    const trickle = await byteAtATimeServer();
    // Buffer.concat is how bytes are put together here (and once by the test server, for its frame).
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      const outcome = await tcpExchange(exchangeContext(trickle.endpoint));
      expect(outcome.kind).toBe('answer');
      if (outcome.kind !== 'answer') return;
      const copied = concat.mock.results.reduce((sum, r) => sum + (r.value as Buffer).length, 0);
      // The frame once by the server, the answer at most once here: linear, where each byte copied all before it.
      expect(copied).toBeLessThanOrEqual(2 * (2 + outcome.packet.length));
    } finally {
      concat.mockRestore();
      await new Promise((resolve) => trickle.server.close(resolve));
    }
  });

  it('takes the answer of an oversized packet over TCP: size is no concern there', async () => {
    server.setPlan({ tcp: ['oversized'] });
    const outcome = await tcpExchange(exchangeContext(server.endpoint));
    expect(outcome.kind).toBe('answer');
    if (outcome.kind === 'answer') expect(parseMessage(outcome.packet).answers).toHaveLength(151);
  });
});

describe('tcpExchange, hostile', () => {
  it('drops messages with a wrong ID or question, or garbage, and waits for ours', async () => {
    server.setPlan({ tcp: ['wrong-id', 'wrong-question', 'garbage', 'answer'] });
    const context = exchangeContext(server.endpoint);
    expect((await tcpExchange(context)).kind).toBe('answer');
    expect(context.stats).toMatchObject({ wrongId: 2, wrongQuestion: 1 });
  });

  it('fails with MalformedAnswerError on a malformed answer with our ID', async () => {
    server.setPlan({ tcp: ['compression-loop'] });
    const context = exchangeContext(server.endpoint);
    const outcome = await tcpExchange(context);
    expect(outcome.kind).toBe('failed');
    if (outcome.kind !== 'failed') return;
    expect(outcome.error).toBeInstanceOf(MalformedAnswerError);
    expect(outcome.error.code).toBe('DNS_ERR_MALFORMED_ANSWER');
    expect(outcome.error.message).toMatch(
      /over TCP to 127\.0\.0\.1:\d+: the answer is malformed: .*compression pointer/,
    );
    expect(context.stats.malformed).toBe(1);
  });
  it('fails with MalformedAnswerError on TC with records cut after our question: TCP cuts nothing', async () => {
    server.setPlan({
      tcp: [
        {
          raw: (q) => {
            const packet = Buffer.from(q.packet.subarray(0, q.packet.length - 11)); // without the OPT record
            packet.writeUInt16BE(0x8380, 2); // QR, TC, RD, RA
            packet.writeUInt16BE(2, 6); // ANCOUNT 2, no records
            packet.writeUInt16BE(0, 10);
            return packet;
          },
        },
      ],
    });
    const context = exchangeContext(server.endpoint);
    const outcome = await tcpExchange(context);
    expect(outcome.kind).toBe('failed');
    if (outcome.kind !== 'failed') return;
    expect(outcome.error).toBeInstanceOf(MalformedAnswerError);
    expect(outcome.error.message).toMatch(/the answer is malformed: answer record owner runs past the end/);
    expect(context.stats).toMatchObject({ malformed: 1, truncated: 0 });
  });
});

describe('tcpExchange, off-nominal', () => {
  it('fails with NetworkError when the server closes the connection', async () => {
    server.setPlan({ tcp: ['close'] });
    const context = exchangeContext(server.endpoint);
    const outcome = await tcpExchange(context);
    expect(outcome.kind).toBe('failed');
    if (outcome.kind !== 'failed') return;
    expect(outcome.error).toBeInstanceOf(NetworkError);
    expect(outcome.error.message).toMatch(/closed the connection without an answer|ECONNRESET/);
    expect(context.stats.networkErrors).toBe(1);
  });

  it('fails with NetworkError when nobody listens', async () => {
    const port = await freePort();
    const outcome = await tcpExchange(exchangeContext(`127.0.0.1:${port}`));
    expect(outcome.kind).toBe('failed');
    if (outcome.kind !== 'failed') return;
    expect(outcome.error).toBeInstanceOf(NetworkError);
    expect((outcome.error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('times out when the server keeps silent', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.setPlan({ tcp: ['drop'] });
    const before = server.received.length;
    const context = exchangeContext(server.endpoint, undefined, { timeoutMs: 5000 });
    const outcome = tcpExchange(context);
    await server.waitForQueries(before + 1);
    vi.advanceTimersByTime(5000);
    expect(await outcome).toEqual({ kind: 'timeout', dropped: 0 });
    expect(context.stats.timeouts).toBe(1);
  });

  it('rejects with AbortError when cancelled and releases the connection and the timer', async () => {
    server.setPlan({ tcp: ['drop'] });
    await turn();
    await turn();
    const baseline = handles();
    const controller = new AbortController();
    const timers = trackingTimers();
    const before = server.received.length;
    const outcome = tcpExchange(
      exchangeContext(server.endpoint, undefined, { signal: controller.signal, timeoutMs: 60_000, timers }),
    );
    await server.waitForQueries(before + 1);
    expect(handles().tcp).toBeGreaterThan(baseline.tcp);
    expect(timers.live).toBe(1);
    const timersBefore = handles().timers;
    controller.abort();
    expect(timers.live).toBe(0);
    expect(handles().timers).toBe(timersBefore - 1);
    await expect(outcome).rejects.toBeInstanceOf(AbortError);
    await until(() => handles().tcp <= baseline.tcp, 'the connection to close');
  });

  it('rejects at once when already cancelled', async () => {
    const context = exchangeContext(server.endpoint, undefined, { signal: AbortSignal.abort() });
    await expect(tcpExchange(context)).rejects.toBeInstanceOf(AbortError);
    expect(context.stats.tcpSent).toBe(0);
  });
});

/** A TCP server that answers www.hostile.example A one byte per write. */
async function byteAtATimeServer(): Promise<{ server: Server; endpoint: string }> {
  const port = await freePort();
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      const query = dnsPacket.decode(chunk.subarray(2));
      const answer = dnsPacket.encode({
        type: 'response',
        id: query.id,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
        questions: query.questions,
        answers: [{ type: 'A', name: 'www.hostile.example', ttl: 60, data: '192.0.2.80' }],
      });
      const frame = Buffer.concat([Buffer.from([answer.length >> 8, answer.length & 0xff]), answer]);
      let i = 0;
      const next = (): void => {
        if (i >= frame.length || socket.destroyed) return;
        socket.write(frame.subarray(i, i + 1));
        i++;
        setImmediate(next);
      };
      next();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, endpoint: `127.0.0.1:${port}` };
}
