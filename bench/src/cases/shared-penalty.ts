/**
 * Part 6: the penalty box shared through Redis (@dnscore/penalty-redis) next to the in-memory
 * box. Measured: the SIP fast path (a warm cursor's next() and a 200 reported, which reads the
 * box for every target and clears the one that answered) with each box, and with the shared box
 * while Redis is killed; and how long a mark takes to reach another process's box (p50/p99).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DnsCore, ZoneResolver, withCache } from '@dnscore/core';
import { RedisPenaltyStore } from '@dnscore/penalty-redis';
import { MemoryPenaltyStore, SipLocator, type PenaltyStore } from '@dnscore/sip';
import { redisInstalled, startRedis } from '../support/redis.js';
import { count, formatSummary, percentile, ratio, sleep, summarize, throughput } from '../stats.js';
import { runsFor, type BenchContext, type Section } from './section.js';

const ZONE = `$ORIGIN fleet.test.
$TTL 3600
@ IN SOA ns hostmaster 1 3600 600 86400 300
_sip._udp IN SRV 10 0 5060 sip1
_sip._udp IN SRV 20 0 5060 sip2
sip1 IN A 192.0.2.1
sip2 IN A 192.0.2.2
`;
const URI = 'sip:bob@fleet.test;transport=udp';
/** Entries in each box while the fast path runs, none of them a target of URI. */
const BOXED = 200;

type Variant = 'memory' | 'redis' | 'memory-2' | 'redis-down';

/** One request's worth of the locator's work on a warm cache: next() and a 200. */
async function fastPathOps(store: PenaltyStore, windowMs: number): Promise<number> {
  const locator = new SipLocator(new DnsCore([withCache(new ZoneResolver({ zones: [{ text: ZONE }] }))]), {
    penaltyStore: store,
  });
  const once = async (): Promise<void> => {
    const cursor = locator.cursor(URI, { method: 'OPTIONS' });
    const attempt = await cursor.next();
    if (attempt?.target.address !== '192.0.2.1') throw new Error('the fast path did not pick sip1');
    cursor.report(attempt!, { type: 'response', status: 200 });
  };
  for (let i = 0; i < 2_000; i++) await once(); // warm the cache and the JIT
  return throughput(once, windowMs, 1);
}

function fill(store: PenaltyStore): void {
  for (let i = 0; i < BOXED; i++) {
    const address = `198.51.100.${i % 250}`;
    const port = 5060 + Math.floor(i / 250);
    store.mark(`udp ${address} ${port}`, {
      transport: 'udp',
      address,
      port,
      until: Date.now() + 600_000,
      reason: 'timeout',
      detail: 'bench',
    });
  }
}

/** Marks `n` targets here, 1 ms apart, and reads when a listener process's box got each. */
async function propagation(url: string, n: number): Promise<number[]> {
  const program = fileURLToPath(new URL('../child/penalty-listener-main.js', import.meta.url));
  const child = spawn(process.execPath, [program, url, 'bench-propagation:', String(n)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the listener process exited early');
    return JSON.parse(value) as Record<string, unknown>;
  };
  const store = new RedisPenaltyStore({ url, prefix: 'bench-propagation:', log: () => {} }).start();
  try {
    await store.whenSynced();
    if ((await next()).ready !== true) throw new Error('the listener did not say ready');
    const sent = new Map<string, bigint>();
    for (let i = 0; i < n; i++) {
      const address = `203.0.113.${i % 250}`;
      const port = 5060 + Math.floor(i / 250);
      const key = `udp ${address} ${port}`;
      sent.set(key, process.hrtime.bigint());
      store.mark(key, { transport: 'udp', address, port, until: Date.now() + 60_000, reason: 'timeout', detail: 'x' });
      await sleep(1);
    }
    const got = (await next()) as Record<string, string>;
    return [...sent].map(([key, at]) => {
      if (got[key] === undefined) throw new Error(`the listener never got ${key}`);
      return Number(BigInt(got[key]) - at) / 1e6;
    });
  } finally {
    await store.close();
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

export async function sharedPenalty(ctx: BenchContext): Promise<Section> {
  const id = 'shared';
  const title = '7. The penalty box shared through Redis';
  const method = [
    'The SIP fast path is one request of a warm locator: `cursor.next()` on a cached RFC 3263 answer',
    '(two SRV targets, both looked up in the box) and a 200 reported (which clears the target in the box),',
    `with ${BOXED} other entries in the box; operations per second in one loop, for the in-memory box, for`,
    'the box shared through a redis-server on loopback (@dnscore/penalty-redis, connected and synced), and',
    'for the shared box while that Redis is killed; interleaved runs. Propagation: one process marks targets',
    '1 ms apart, another process notes when each reached its own box (CLOCK_MONOTONIC in both);',
    'milliseconds, mark to remote box. A late joiner: a new store of the same fleet, from start() to synced.',
  ].join(' ');
  if (!redisInstalled()) return { id, title, method, tables: [], notes: ['skipped: redis-server is not installed'] };
  const runs = runsFor(ctx, 7, 3);
  const windowMs = ctx.quick ? 500 : 1_500;
  const marks = ctx.quick ? 300 : 2_000;
  const redis = await startRedis();
  try {
    const shared = new RedisPenaltyStore({ url: redis.url, prefix: 'bench-fast:', log: () => {} }).start();
    const down = new RedisPenaltyStore({ url: redis.url, prefix: 'bench-down:', log: () => {} }).start();
    const memory = new MemoryPenaltyStore();
    await Promise.all([shared.whenSynced(), down.whenSynced()]);
    for (const store of [memory, shared, down]) fill(store);

    // A late joiner: connect, subscribe, SCAN the fleet's entries; checked before it counts.
    const joins: number[] = [];
    for (let run = 0; run < runs; run++) {
      const t0 = performance.now();
      const late = new RedisPenaltyStore({ url: redis.url, prefix: 'bench-fast:', log: () => {} }).start();
      await late.whenSynced();
      joins.push(performance.now() - t0);
      const got = late.entries().length;
      await late.close();
      if (got !== BOXED) throw new Error(`a late joiner rebuilt ${got} entries, not ${BOXED}`);
    }

    ctx.log(`shared: propagation of ${marks} marks between two processes`);
    const latencies = await propagation(redis.url, marks);

    // Each shared figure is compared with in-memory runs interleaved with it, in the same phase.
    const ops: Record<Variant, number[]> = { memory: [], redis: [], 'memory-2': [], 'redis-down': [] };
    for (let run = 0; run < runs; run++) {
      ops.memory.push(await fastPathOps(memory, windowMs));
      ops.redis.push(await fastPathOps(shared, windowMs));
    }
    await redis.kill();
    await sleep(200);
    fill(down); // marks while Redis is away: kept locally, postponed
    for (let run = 0; run < runs; run++) {
      ops['memory-2'].push(await fastPathOps(memory, windowMs));
      ops['redis-down'].push(await fastPathOps(down, windowMs));
    }
    await Promise.all([shared.close(), down.close()]);
    const median = (v: Variant): number => summarize(ops[v]).median;
    const row = (name: string, v: Variant, reference: Variant | undefined) => {
      const s = summarize(ops[v]);
      const k = { ...s, median: s.median / 1000, min: s.min / 1000, max: s.max / 1000 };
      return [name, formatSummary(k, 1), reference ? ratio(s.median, median(reference), 2) : ''];
    };
    return {
      id,
      title,
      method,
      tables: [
        {
          caption: `SIP fast path, thousand requests per second (median of ${runs} runs, min-max)`,
          headers: ['box', 'k req/s', 'vs in-memory of its phase'],
          rows: [
            row('in-memory box (default)', 'memory', undefined),
            row('shared through Redis', 'redis', 'memory'),
            row('in-memory box, second phase', 'memory-2', undefined),
            row('shared, Redis killed', 'redis-down', 'memory-2'),
          ],
        },
        {
          caption: `A late joiner: connect, subscribe and rebuild ${BOXED} entries (SCAN), ms (median of ${runs} runs)`,
          headers: ['ms until synced'],
          rows: [[formatSummary(summarize(joins), 1)]],
        },
        {
          caption: `Propagation of a mark to another process's box (${count(marks)} marks)`,
          headers: ['p50', 'p90', 'p99', 'max'],
          rows: [[0.5, 0.9, 0.99, 1].map((q) => `${percentile(latencies, q).toFixed(2)} ms`)],
        },
      ],
      notes: [
        'Reads never touch Redis: the shared box answers from its local copy; a mark or a clear that removed ' +
          'something is the only change that goes to Redis, in the background. The request loop above marks nothing.',
      ],
    };
  } finally {
    await redis.stop();
  }
}
