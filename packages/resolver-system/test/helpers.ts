/** Shared helpers of this package's tests (not a test file). */
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { makeQuery, systemTimers, type DnsQuery, type Timers } from '@dnscore/core/plugin';
import { startHostileServer, type HostileServer, type Plan } from '../../../test/support/hostile-server.js';
import type { ExchangeContext } from '../src/exchange.js';
import { parseServerAddress } from '../src/server-address.js';
import { emptyStats } from '../src/stats.js';
import { UdpSockets } from '../src/udp-sockets.js';

export const ZONE_RECORDS = {
  'www.hostile.example': [
    { type: 'A', name: 'www.hostile.example', ttl: 300, data: '192.0.2.80' },
    { type: 'AAAA', name: 'www.hostile.example', ttl: 300, data: '2001:db8::80' },
  ],
  'alias.hostile.example': [{ type: 'CNAME', name: 'alias.hostile.example', ttl: 300, data: 'www.hostile.example' }],
} as const;

export const HOSTILE_ZONE = {
  records: ZONE_RECORDS as unknown as Record<string, import('dns-packet').Answer[]>,
  soa: {
    type: 'SOA',
    name: 'hostile.example',
    ttl: 300,
    data: {
      mname: 'ns1.hostile.example',
      rname: 'hostmaster.hostile.example',
      serial: 1,
      refresh: 7200,
      retry: 900,
      expire: 1209600,
      minimum: 60,
    },
  } as import('dns-packet').Answer,
};

export function exchangeContext(
  endpoint: string,
  query: DnsQuery = makeQuery('www.hostile.example', 'A'),
  overrides: Partial<ExchangeContext> = {},
): ExchangeContext {
  return {
    server: parseServerAddress(endpoint),
    query,
    timeoutMs: 2000,
    timers: systemTimers,
    stats: emptyStats(),
    signal: new AbortController().signal,
    udpPayloadSize: 1232,
    udpSockets: new UdpSockets(),
    ad: false,
    rd: true,
    ...overrides,
  };
}

/** One turn of the event loop (I/O and close callbacks run); never a timer. */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Turns the event loop until `predicate` holds; fails after `turns` turns. No sleeping. */
export async function until(predicate: () => boolean, what: string, turns = 10_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (predicate()) return;
    await turn();
  }
  throw new Error(`never happened: ${what}`);
}

/** How many sockets and timers the process holds, by kind. */
export function handles(): { udp: number; tcp: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return {
    udp: info.filter((r) => r === 'UDPWrap').length,
    tcp: info.filter((r) => r === 'TCPSocketWrap').length,
    timers: info.filter((r) => r === 'Timeout').length,
  };
}

/** The global timers, counting the ones still pending: a precise view of this code's timers. */
export function trackingTimers(): Timers & { readonly live: number } {
  const pending = new Set<unknown>();
  return {
    setTimeout(callback, ms) {
      const handle = systemTimers.setTimeout(() => {
        pending.delete(handle);
        callback();
      }, ms);
      pending.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      pending.delete(handle);
      systemTimers.clearTimeout(handle);
    },
    get live() {
      return pending.size;
    },
  };
}

/**
 * The hostile server of a test file, serving HOSTILE_ZONE: handed to `started` before the file's
 * tests, closed after them; after each test, real timers again and `plan`, the file's default.
 */
export function useHostileServer(plan: { udp?: Plan; tcp?: Plan }, started: (server: HostileServer) => void): void {
  let server: HostileServer | undefined;
  beforeAll(async () => {
    server = await startHostileServer({ zone: HOSTILE_ZONE });
    started(server);
  });
  afterAll(() => server?.close());
  afterEach(() => {
    vi.useRealTimers();
    server?.setPlan(plan);
  });
}
