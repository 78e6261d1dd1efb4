/**
 * Queries in flight at the same time share UDP sockets (udp-sockets.ts): each socket carries at
 * most maxQueries queries in its life, IDs are unique on a socket, a datagram goes to the query
 * holding its ID and is checked there, and one that no query holds is refused.
 */
import { describe, expect, it, vi } from 'vitest';
import { AbortError, makeQuery, parseMessage } from '@dnscore/core/plugin';
import type { HostileServer } from '../../../test/support/hostile-server.js';
import type { ExchangeOutcome } from '../src/exchange.js';
import { emptyStats } from '../src/stats.js';
import { udpExchange } from '../src/udp-exchange.js';
import { UdpSockets } from '../src/udp-sockets.js';
import { exchangeContext, handles, useHostileServer, turn, until } from './helpers.js';

let server: HostileServer;
useHostileServer({ udp: ['answer'] }, (started) => {
  server = started;
});

/** The IDs the server received, by the source port they came from. */
function idsByPort(from: number): Map<number, number[]> {
  const byPort = new Map<number, number[]>();
  for (const q of server.received.slice(from)) byPort.set(q.from.port, [...(byPort.get(q.from.port) ?? []), q.id]);
  return byPort;
}

describe('UdpSockets', () => {
  it('puts at most maxQueries queries on a socket, each with an ID of its own there, and closes it after', async () => {
    server.setPlan({ udp: ['drop'] });
    await turn();
    await turn();
    const baseline = handles();
    const sockets = new UdpSockets(3);
    const controller = new AbortController();
    const before = server.received.length;
    const outcomes = Array.from({ length: 7 }, (_, i) =>
      udpExchange(
        exchangeContext(server.endpoint, makeQuery(`p${i}.hostile.example`, 'A'), {
          udpSockets: sockets,
          signal: controller.signal,
          timeoutMs: 60_000,
        }),
      ),
    );
    await server.waitForQueries(before + 7);
    expect(handles().udp).toBe(baseline.udp + 3);
    const byPort = idsByPort(before);
    expect([...byPort.values()].map((ids) => ids.length).sort()).toEqual([1, 3, 3]);
    for (const ids of byPort.values()) expect(new Set(ids).size).toBe(ids.length);
    controller.abort();
    const settled = await Promise.allSettled(outcomes);
    expect(settled.every((o) => o.status === 'rejected' && o.reason instanceof AbortError)).toBe(true);
    await until(() => handles().udp === baseline.udp, 'the sockets to close once their queries ended');
  });

  it('gives a query alone a socket of its own: the next query goes out from a new one', async () => {
    const sockets = new UdpSockets(64);
    const before = server.received.length;
    for (let i = 0; i < 3; i++)
      expect((await udpExchange(exchangeContext(server.endpoint, undefined, { udpSockets: sockets }))).kind).toBe(
        'answer',
      );
    expect(idsByPort(before).size).toBe(3);
  });

  it('refuses a datagram with an ID no query on its socket holds, for each query waiting for its source', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Each query gets an answer with its ID plus one: on a shared socket, an ID nobody holds
    // (unless the other query drew exactly that ID, 1 in 65,536).
    server.setPlan({ udp: ['wrong-id'] });
    const sockets = new UdpSockets(64);
    const stats = emptyStats();
    const before = server.received.length;
    const outcomes: Promise<ExchangeOutcome>[] = ['w1', 'w2'].map((name) =>
      udpExchange(
        exchangeContext(server.endpoint, makeQuery(`${name}.hostile.example`, 'A'), {
          udpSockets: sockets,
          stats,
          timeoutMs: 3000,
        }),
      ),
    );
    await server.waitForQueries(before + 2);
    expect(idsByPort(before).size).toBe(1);
    await until(() => stats.wrongId === 2, 'both wrong IDs');
    vi.advanceTimersByTime(3000);
    expect(await Promise.all(outcomes)).toEqual([
      { kind: 'timeout', dropped: 2, caseMismatch: 0 },
      { kind: 'timeout', dropped: 2, caseMismatch: 0 },
    ]);
    expect(stats).toMatchObject({ wrongId: 2, wrongSource: 0, timeouts: 2, udpSent: 2 });
  });

  it('hands each query the answer with its ID on a shared socket, checked as before', async () => {
    // Each query first gets its answer from another port (refused: wrong source), then the real one.
    server.setPlan({ udp: ['other-port', { delayMs: 20, play: 'answer' }] });
    const sockets = new UdpSockets(64);
    const stats = emptyStats();
    const before = server.received.length;
    const names = ['a1', 'a2', 'a3'];
    const outcomes = await Promise.all(
      names.map((name) =>
        udpExchange(
          exchangeContext(server.endpoint, makeQuery(`${name}.hostile.example`, 'A'), { udpSockets: sockets, stats }),
        ),
      ),
    );
    expect(idsByPort(before).size).toBe(1);
    expect(outcomes.map((o) => (o.kind === 'answer' ? parseMessage(o.packet).questions[0]!.name : o.kind))).toEqual(
      names.map((name) => `${name}.hostile.example`),
    );
    expect(stats).toMatchObject({ wrongSource: 3, wrongId: 0, udpSent: 3 });
  });
});
