import { describe, expect, it, vi } from 'vitest';
import { AbortError, NetworkError, makeQuery, parseMessage } from '@dnscore/core/plugin';
import { startHostileServer, type HostileServer } from '../../../test/support/hostile-server.js';
import { hasIpv6Loopback } from '../../../test/support/ports.js';
import { udpExchange } from '../src/udp-exchange.js';
import { HOSTILE_ZONE, exchangeContext, handles, useHostileServer, trackingTimers, turn, until } from './helpers.js';

let server: HostileServer;
useHostileServer({ udp: ['answer'] }, (started) => {
  server = started;
});

describe('udpExchange, nominal', () => {
  it('asks with RD and an EDNS0 OPT of 1232 bytes, and takes the answer', async () => {
    const context = exchangeContext(server.endpoint);
    const before = server.received.length;
    const outcome = await udpExchange(context);
    expect(outcome.kind).toBe('answer');
    if (outcome.kind !== 'answer') return;
    expect(outcome.summary).toEqual({ rcode: 0, tc: false, ad: false, edns: true });
    const message = parseMessage(outcome.packet);
    expect(message.header).toMatchObject({ qr: true, rcode: 0, tc: false });
    expect(message.answers).toHaveLength(1);
    const query = server.received[before]!;
    expect(query).toMatchObject({
      transport: 'udp',
      name: 'www.hostile.example',
      type: 'A',
      rd: true,
      ad: false,
      udpPayloadSize: 1232,
    });
    expect(context.stats).toMatchObject({ udpSent: 1, timeouts: 0, wrongId: 0 });
  });

  it('uses a fresh random source port and a random ID for each query', async () => {
    const before = server.received.length;
    for (let i = 0; i < 10; i++) await udpExchange(exchangeContext(server.endpoint));
    const sent = server.received.slice(before);
    const ports = new Set(sent.map((q) => q.from.port));
    const ids = new Set(sent.map((q) => q.id));
    // 10 draws from ~28,000 ports or 65,536 IDs: a repeat is rare; a reused socket would give 1.
    expect(ports.size).toBeGreaterThanOrEqual(9);
    expect(ids.size).toBeGreaterThanOrEqual(9);
    const sorted = [...ports].sort((a, b) => a - b);
    expect(sorted.at(-1)! - sorted[0]!).toBeGreaterThan(100); // not handed out in sequence
  });

  it('accepts an answer whose question differs only in letter case', async () => {
    server.setPlan({ udp: ['case-changed'] });
    const outcome = await udpExchange(exchangeContext(server.endpoint));
    expect(outcome.kind).toBe('answer');
  });

  it('sends no OPT record without a payload size', async () => {
    const before = server.received.length;
    await udpExchange(exchangeContext(server.endpoint, undefined, { udpPayloadSize: undefined }));
    expect(server.received[before]!.udpPayloadSize).toBeUndefined();
  });

  it('sets AD in the query when asked', async () => {
    const before = server.received.length;
    await udpExchange(exchangeContext(server.endpoint, undefined, { ad: true }));
    expect(server.received[before]!.ad).toBe(true);
  });

  it.skipIf(!hasIpv6Loopback())('works over IPv6 loopback', async () => {
    const v6 = await startHostileServer({ address: '::1', zone: HOSTILE_ZONE, udp: ['other-port', 'answer'] });
    try {
      const context = exchangeContext(v6.endpoint, makeQuery('www.hostile.example', 'AAAA'));
      const outcome = await udpExchange(context);
      expect(outcome.kind).toBe('answer');
      expect(v6.received[0]!.from.address).toBe('::1');
    } finally {
      await v6.close();
    }
  });
});

describe('udpExchange, hostile answers are dropped, counted, and the real one is waited for', () => {
  it('drops a wrong ID', async () => {
    server.setPlan({ udp: ['wrong-id', 'answer'] });
    const context = exchangeContext(server.endpoint);
    expect((await udpExchange(context)).kind).toBe('answer');
    expect(context.stats.wrongId).toBe(1);
  });

  it('drops a wrong question, a wrong type, and no question', async () => {
    server.setPlan({ udp: ['wrong-question', 'wrong-type', 'no-question', 'answer'] });
    const context = exchangeContext(server.endpoint);
    const outcome = await udpExchange(context);
    expect(outcome.kind).toBe('answer');
    if (outcome.kind === 'answer') expect(parseMessage(outcome.packet).questions[0]!.name).toBe('www.hostile.example');
    expect(context.stats.wrongQuestion).toBe(3);
  });

  it('drops garbage, a short packet and a query', async () => {
    server.setPlan({ udp: ['garbage', 'short', 'not-response', 'answer'] });
    const context = exchangeContext(server.endpoint);
    expect((await udpExchange(context)).kind).toBe('answer');
    expect(context.stats).toMatchObject({ wrongId: 1, garbage: 2 });
  });

  it('drops a cut record and a compression loop', async () => {
    server.setPlan({ udp: ['malformed', 'compression-loop', 'answer'] });
    const context = exchangeContext(server.endpoint);
    expect((await udpExchange(context)).kind).toBe('answer');
    expect(context.stats.malformed).toBe(2);
  });

  it('drops an answer from another port of the server', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.setPlan({ udp: ['other-port', { delayMs: 100, play: 'answer' }] });
    const context = exchangeContext(server.endpoint);
    const outcome = udpExchange(context);
    await until(() => context.stats.wrongSource === 1, 'the datagram from another port');
    vi.advanceTimersByTime(100);
    expect((await outcome).kind).toBe('answer');
    expect(context.stats.wrongSource).toBe(1);
  });

  it('drops an answer from another address', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.setPlan({ udp: ['other-address', { delayMs: 100, play: 'answer' }] });
    const context = exchangeContext(server.endpoint);
    const outcome = udpExchange(context);
    await until(() => context.stats.wrongSource === 1, 'the datagram from 127.0.0.2');
    vi.advanceTimersByTime(100);
    expect((await outcome).kind).toBe('answer');
  });

  it('hands back "truncated" for TC, and for an answer larger than advertised', async () => {
    server.setPlan({ udp: ['truncate'] });
    const tc = exchangeContext(server.endpoint);
    expect(await udpExchange(tc)).toEqual({ kind: 'truncated' });
    expect(tc.stats.truncated).toBe(1);
    server.setPlan({ udp: ['oversized'] });
    const big = exchangeContext(server.endpoint);
    expect(await udpExchange(big)).toEqual({ kind: 'truncated' });
    expect(big.stats.oversized).toBe(1);
  });

  it('holds a classic 512-byte limit without EDNS', async () => {
    server.setPlan({ udp: [{ raw: (q) => Buffer.concat([answerTo(q.packet), Buffer.alloc(600)]) }] });
    const context = exchangeContext(server.endpoint, undefined, { udpPayloadSize: undefined });
    expect(await udpExchange(context)).toEqual({ kind: 'truncated' });
    expect(context.stats.oversized).toBe(1);
  });
});

describe('udpExchange, off-nominal', () => {
  it('times out, counting what it dropped meanwhile', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.setPlan({ udp: ['wrong-id'] });
    const context = exchangeContext(server.endpoint, undefined, { timeoutMs: 3000 });
    const outcome = udpExchange(context);
    await until(() => context.stats.wrongId === 1, 'the wrong ID');
    vi.advanceTimersByTime(2999);
    await turn();
    vi.advanceTimersByTime(1);
    expect(await outcome).toEqual({ kind: 'timeout', dropped: 1, caseMismatch: 0 });
    expect(context.stats.timeouts).toBe(1);
  });

  it('reports a send failure as a NetworkError', async () => {
    const context = exchangeContext('255.255.255.255:53');
    const outcome = await udpExchange(context);
    expect(outcome.kind).toBe('failed');
    if (outcome.kind !== 'failed') return;
    expect(outcome.error).toBeInstanceOf(NetworkError);
    expect(outcome.error.code).toBe('DNS_ERR_NETWORK');
    expect(outcome.error.message).toMatch(/^www\.hostile\.example IN A over UDP to 255\.255\.255\.255:53: .*EACCES/);
    expect(context.stats.networkErrors).toBe(1);
  });

  it('rejects with AbortError when cancelled, and releases the socket and the timer at once', async () => {
    server.setPlan({ udp: ['drop'] });
    await turn(); // sockets of earlier tests finish closing
    await turn();
    const baseline = handles();
    const controller = new AbortController();
    const timers = trackingTimers();
    const before = server.received.length;
    const outcome = udpExchange(
      exchangeContext(server.endpoint, undefined, { signal: controller.signal, timeoutMs: 60_000, timers }),
    );
    await server.waitForQueries(before + 1);
    expect(handles().udp).toBe(baseline.udp + 1);
    expect(timers.live).toBe(1);
    const timersBefore = handles().timers;
    controller.abort();
    expect(timers.live).toBe(0); // the timer goes synchronously
    expect(handles().timers).toBe(timersBefore - 1);
    await expect(outcome).rejects.toBeInstanceOf(AbortError);
    await until(() => handles().udp === baseline.udp, 'the socket to close');
  });

  it('rejects at once, sending nothing, when already cancelled', async () => {
    const context = exchangeContext(server.endpoint, undefined, { signal: AbortSignal.abort() });
    await expect(udpExchange(context)).rejects.toBeInstanceOf(AbortError);
    expect(context.stats.udpSent).toBe(0);
  });
});

/** The query (sent without OPT) turned into a bare response: QR set, same ID and question. */
function answerTo(query: Buffer): Buffer {
  const packet = Buffer.from(query);
  packet[2] = packet[2]! | 0x80;
  return packet;
}
