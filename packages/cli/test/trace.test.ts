/** `--trace`: the resolver's events on stderr, for people or as JSON lines; stdout unchanged. */
import { describe, expect, it } from 'vitest';
import {
  DnsCore,
  NetworkError,
  ZoneResolver,
  seededRandom,
  withCache,
  type Clock,
  type ResolverPlugin,
} from '@dnscore/core';
import { withServers } from '@dnscore/core/plugin';
import { SipLocator } from '@dnscore/sip';
import { startTrace, takeTraceFlag } from '../src/trace.js';
import { dnscore, EXAMPLE_ZONE } from './support.js';

/** Durations vary: "in 12.7 ms" becomes "in N ms", "ms": 12.7 becomes "ms": 0. */
const steady = (text: string): string => text.replace(/in \d+(\.\d+)? ms/g, 'in N ms');
const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .trim()
    .split('\n')
    .map((line) => ({ ...(JSON.parse(line) as Record<string, unknown>), ...(line.includes('"ms"') ? { ms: 0 } : {}) }));

describe('dnscore --trace', () => {
  it('prints the backend and each query for people, after the command ran as without it', async () => {
    const plain = await dnscore('resolve', 'sip1.biloxi.example', '--zone', EXAMPLE_ZONE);
    const traced = await dnscore('resolve', 'sip1.biloxi.example', '--zone', EXAMPLE_ZONE, '--trace');
    expect([traced.code, traced.stdout]).toEqual([plain.code, plain.stdout]);
    expect(plain.stderr).toBe('');
    expect(steady(traced.stderr)).toBe(
      'trace: backend "zone"\n' +
        'trace: query sip1.biloxi.example IN A: NOERROR from "zone", insecure ' +
        `(1 backend asked; zone file ${EXAMPLE_ZONE} NOERROR) in N ms\n`,
    );
  });

  it('says an NXDOMAIN query, before the command says it', async () => {
    const { code, stderr } = await dnscore('resolve', 'nobody.biloxi.example', '--zone', EXAMPLE_ZONE, '--trace');
    expect(code).toBe(3);
    expect(steady(stderr)).toBe(
      'trace: backend "zone"\n' +
        'trace: query nobody.biloxi.example IN A: NXDOMAIN from "zone", insecure ' +
        `(1 backend asked; zone file ${EXAMPLE_ZONE} NXDOMAIN) in N ms\n` +
        'dnscore: nobody.biloxi.example: no such name (NXDOMAIN)\n',
    );
  });

  it('--trace=json, anywhere on the line: one object per line, the SIP location last', async () => {
    const uri = 'sip:bob@biloxi.example;transport=udp';
    const { code, stdout, stderr } = await dnscore('--trace=json', 'sip', uri, '--zone', EXAMPLE_ZONE);
    expect(code).toBe(0);
    // RFC 2782 draws the order of equal priorities: the trace lists the targets as the command printed them.
    const hosts = new Map([
      ['203.0.113.12', 'sip2.biloxi.example'],
      ['203.0.113.11', 'sip1.biloxi.example'],
      ['198.51.100.50', 'backup.biloxi.example'],
    ]);
    const printed = [...stdout.matchAll(/^ +\d+ +udp +(\S+) +5060 /gm)].map(([, address]) => address!);
    expect(new Set(printed)).toEqual(new Set(hosts.keys()));
    const query = (name: string, type: string) => ({
      event: 'query',
      name,
      type,
      cache: 'miss',
      attempts: [
        {
          backend: 'zone',
          servers: [{ server: `zone file ${EXAMPLE_ZONE}`, transport: 'file', outcome: 'answer', rcode: 'NOERROR' }],
        },
      ],
      resolver: 'zone',
      rcode: 'NOERROR',
      dnssec: 'insecure',
      ms: 0,
    });
    expect(jsonLines(stderr)).toEqual([
      { event: 'selected', plugin: 'zone', skipped: [] },
      query('_sip._udp.biloxi.example', 'SRV'),
      query('biloxi.example', 'AAAA'),
      query('biloxi.example', 'A'),
      {
        event: 'sip-locate',
        uri,
        rule: 'transport-param',
        targets: printed.map((address) => ({ transport: 'udp', address, port: 5060, host: hosts.get(address) })),
        roundTrips: 1,
        queries: 3,
        ms: 0,
      },
    ]);
  });

  it('refuses a trace format it does not know (exit 2), and keeps -- operands', async () => {
    const { code, stderr } = await dnscore('resolve', 'sip1.biloxi.example', '--trace=xml');
    expect([code, stderr]).toEqual([2, 'dnscore: --trace is human or json, not "xml"\n']);
    expect(takeTraceFlag(['resolve', '--', '--trace'])).toEqual({
      argv: ['resolve', '--', '--trace'],
      trace: undefined,
    });
  });
});

describe('trace lines of fallback, failover, penalty box and affinity', () => {
  it('says who failed, why, where the walk went next, and what was pinned', async () => {
    let stderr = '';
    const stop = startTrace(
      'human',
      {
        stdout: () => {},
        stderr: (t) => {
          stderr += t;
        },
        env: {},
      },
      () => 0,
    );
    try {
      const refusing: ResolverPlugin = {
        name: 'refusing',
        priority: 1,
        available: () => true,
        close: () => {},
        resolve: async () => {
          throw new NetworkError('ECONNREFUSED');
        },
      };
      const core = new DnsCore([refusing, new ZoneResolver({ files: [EXAMPLE_ZONE] })], { random: seededRandom(1) });
      const locator = new SipLocator(core, { clock: { now: () => 1_700_000_000_000 } });
      const cursor = locator.cursor('sip:bob@biloxi.example;transport=udp', { callId: 'c1@atlanta.example' });
      const first = await cursor.next();
      cursor.report(first!, { type: 'response', status: 503, retryAfter: 30 });
      cursor.report((await cursor.next())!, { type: 'response', status: 200 });
    } finally {
      stop();
    }
    const lines = stderr.split('\n').filter((l) => !l.startsWith('trace: query') && !l.startsWith('trace: sip locate'));
    expect(lines).toEqual([
      'trace: backend "refusing"',
      'trace: fallback _sip._udp.biloxi.example IN SRV: "refusing" failed (ECONNREFUSED [DNS_ERR_NETWORK]), ' +
        'asking "zone"',
      'trace: fallback biloxi.example IN AAAA: "refusing" failed (ECONNREFUSED [DNS_ERR_NETWORK]), asking "zone"',
      'trace: fallback biloxi.example IN A: "refusing" failed (ECONNREFUSED [DNS_ERR_NETWORK]), asking "zone"',
      'trace: penalty box takes udp 203.0.113.11:5060: retry-after (503 Service Unavailable, Retry-After 30 s)',
      'trace: failover sip:bob@biloxi.example;transport=udp: udp 203.0.113.11:5060 503 Service Unavailable (try 1), ' +
        'next udp 203.0.113.12:5060 after 0 ms',
      'trace: Call-ID c1@atlanta.example pinned to udp 203.0.113.12:5060 (outgoing)',
      '',
    ]);
    expect(stderr).toContain(
      'trace: query biloxi.example IN A: NOERROR from "zone", insecure ' +
        `(2 backends asked; zone file ${EXAMPLE_ZONE} NOERROR) in 0 ms\n`,
    );
  });
});

describe('trace lines of servers, stale answers, prefetches and penalty expiry', () => {
  /** Runs `body` under a trace; returns what it wrote. */
  async function traced(format: 'human' | 'json', body: () => Promise<void>): Promise<string> {
    let stderr = '';
    const io = {
      stdout: () => {},
      stderr: (t: string) => {
        stderr += t;
      },
      env: {},
    };
    const stop = startTrace(format, io, () => 0);
    try {
      await body();
    } finally {
      stop();
    }
    return stderr;
  }

  /** A backend that answers from the example zone until `down`, then fails after two tries. */
  function flaky(state: { down: boolean }): ResolverPlugin {
    const zone = new ZoneResolver({ files: [EXAMPLE_ZONE] });
    return {
      name: 'system',
      priority: 1,
      available: () => true,
      close: () => {},
      resolve: async (query, signal) => {
        if (!state.down) return zone.resolve(query, signal);
        throw withServers(new NetworkError('no answer'), [
          { server: '192.0.2.53:53', transport: 'udp', outcome: 'timeout' },
          { server: '192.0.2.53:53', transport: 'tcp', outcome: 'error', error: 'ECONNREFUSED' },
        ]);
      },
    };
  }

  it('says the servers tried, a prefetch, a stale answer and a recheck, for people', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now };
    const state = { down: false };
    const core = new DnsCore([withCache(flaky(state), { clock, serveStale: true, prefetch: true })]);
    await core.resolve('sip1.biloxi.example');
    const stderr = await traced('human', async () => {
      now += 3_300_000;
      await core.resolve('sip1.biloxi.example');
      await new Promise((resolve) => setImmediate(resolve));
      state.down = true;
      now += 3_700_000;
      await core.resolve('sip1.biloxi.example');
      await core.resolve('sip1.biloxi.example');
    });
    expect(stderr.split('\n')).toEqual([
      'trace: cache hit sip1.biloxi.example IN A ("system", 3300 s old)',
      'trace: cache prefetch sip1.biloxi.example IN A ("system"): started',
      'trace: query sip1.biloxi.example IN A: NOERROR from "system", insecure (cache hit) in 0 ms',
      'trace: cache prefetch sip1.biloxi.example IN A ("system"): finished',
      'trace: cache miss sip1.biloxi.example IN A ("system")',
      'trace: cache serves stale sip1.biloxi.example IN A ' +
        '("system", 3700 s old, expired 100 s ago; the backend failed)',
      'trace: query sip1.biloxi.example IN A: NOERROR from "system", insecure, stale ' +
        '(1 backend asked; 192.0.2.53:53 udp timeout, 192.0.2.53:53 tcp error (ECONNREFUSED)) in 0 ms',
      'trace: cache serves stale sip1.biloxi.example IN A ' +
        '("system", 3700 s old, expired 100 s ago; the backend failed < 30 s ago, not asked)',
      'trace: query sip1.biloxi.example IN A: NOERROR from "system", insecure, stale (1 backend asked) in 0 ms',
      '',
    ]);
  });

  it('writes the servers with rcode names, and the stale and prefetch events, as JSON lines', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now };
    const state = { down: false };
    const core = new DnsCore([withCache(flaky(state), { clock, serveStale: true })]);
    await core.resolve('sip1.biloxi.example');
    state.down = true;
    now += 3_601_000;
    const stderr = await traced('json', async () => {
      await core.resolve('sip1.biloxi.example');
    });
    expect(jsonLines(stderr)).toEqual([
      { event: 'cache-miss', name: 'sip1.biloxi.example', type: 'A', backend: 'system', joined: false },
      {
        event: 'cache-stale',
        name: 'sip1.biloxi.example',
        type: 'A',
        backend: 'system',
        age: 3601,
        expiredFor: 1,
        reason: 'failed',
      },
      {
        event: 'query',
        name: 'sip1.biloxi.example',
        type: 'A',
        cache: 'miss',
        attempts: [
          {
            backend: 'system',
            servers: [
              { server: '192.0.2.53:53', transport: 'udp', outcome: 'timeout' },
              { server: '192.0.2.53:53', transport: 'tcp', outcome: 'error', error: 'ECONNREFUSED' },
            ],
          },
        ],
        resolver: 'system',
        rcode: 'NOERROR',
        dnssec: 'insecure',
        stale: true,
        ms: 0,
      },
    ]);
  });

  it('says a penalty that expired, with the reason it was in', async () => {
    let now = 1_700_000_000_000;
    const locator = new SipLocator(new DnsCore([new ZoneResolver({ files: [EXAMPLE_ZONE] })]), {
      clock: { now: () => now },
    });
    const where = { transport: 'udp' as const, address: '203.0.113.12', port: 5060 };
    const stderr = await traced('human', async () => {
      locator.penaltyBox.markFailed(where, { durationMs: 10_000, reason: 'timeout', detail: 'no response to INVITE' });
      now += 10_000;
      locator.penaltyBox.isPenalized(where);
    });
    expect(stderr).toBe(
      'trace: penalty box takes udp 203.0.113.12:5060: timeout (no response to INVITE)\n' +
        'trace: penalty box lets out udp 203.0.113.12:5060: expired (was in for timeout)\n',
    );
  });
});
