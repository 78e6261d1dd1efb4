/**
 * Part 8: dnscore's own libunbound addon (libunbound's event API run by a thread of the addon,
 * ub_cancel) against the npm `unbound` binding (a blocking ub_resolve per question on libuv's
 * thread pool) and node:dns: a cached answer, 1,000 distinct cold questions at once, a dead
 * upstream for one zone beside a live one, and memory over 100,000 questions.
 */
import { createSocket, type Socket } from 'node:dgram';
import { PerformanceObserver } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import type UnboundClass from 'unbound';
import type { SystemResolver } from '@dnscore/resolver-system';
import { UnboundResolver } from '@dnscore/resolver-unbound';
import { runChild } from '../rig/child.js';
import { BENCH_ZONES, bulkAddress, bulkName } from '../rig/zones.js';
import { udpReceiveBufferDrops } from '../rig/udp-drops.js';
import { WrongAnswerError } from '../systems/check.js';
import { compose, systemPlugin, unboundPlugin } from '../systems/dnscore.js';
import { fullCollection } from '../rig/full-collection.js';
import { nodeResolver } from '../systems/node-dns.js';
import { formatSummary, ratio, scale, since, summarize, type Summary } from '../stats.js';
import { runsFor, type BenchContext, type Section, type Table } from './section.js';
import { throughputTable, type ThroughputSystem } from './throughput-table.js';

const require = createRequire(import.meta.url);
const DEAD_ZONE = 'dead.example';
const CACHED_NAMES = 16;
const COLD_BURST = 1000;
const DEAD_QUESTIONS = 20;
const LIVE_QUESTIONS = 20;

type Binding = InstanceType<typeof UnboundClass>;

/** The npm binding set up as systems/unbound-binding.ts does, plus stubs and the backend's dead-server cap. */
function bindingContext(endpoint: string, extraStubs: Record<string, string> = {}): Binding {
  const Unbound = require('unbound') as typeof UnboundClass;
  const [address, port] = endpoint.split(':');
  const ub = new Unbound();
  ub.setOption('do-not-query-localhost', 'no');
  ub.setOption('qname-minimisation', 'no');
  ub.setOption('infra-cache-max-rtt', '1000'); // as dnscore's backend: a dead server fails after ~2.3 s
  ub.setOption('local-zone', '. refuse');
  for (const zone of BENCH_ZONES) {
    ub.setOption('local-zone', `${zone}. transparent`);
    ub.setStub(`${zone}.`, `${address}@${port}`);
  }
  for (const [zone, server] of Object.entries(extraStubs)) {
    ub.setOption('local-zone', `${zone}. transparent`);
    ub.setStub(`${zone}.`, server);
  }
  return ub;
}

function bindingAvailable(): string | undefined {
  try {
    require('unbound');
    return undefined;
  } catch (error) {
    return `the npm \`unbound\` binding does not load here: ${(error as Error).message.split('\n')[0]}`;
  }
}

/** A UDP server that never answers: the dead upstream. */
async function silentServer(): Promise<{ address: string; socket: Socket }> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1@${socket.address().port}`, socket };
}

function dotted(data: readonly Uint8Array[]): string[] {
  return data.map((rdata) => [...rdata].join('.'));
}

function cachedSystems(ctx: BenchContext, bindingMissing: string | undefined): ThroughputSystem[] {
  const { nsd, daemon } = ctx.rig;
  const name = (loop: number): string => bulkName(loop % CACHED_NAMES);
  const expected = [bulkAddress(0)];
  const addon = compose(unboundPlugin(nsd.endpoint), false);
  const cached = compose(unboundPlugin(nsd.endpoint), true);
  const toDaemon = nodeResolver(daemon.endpoint);
  const systems: ThroughputSystem[] = [
    {
      name: "dnscore, libunbound addon, no core cache (libunbound's cache)",
      expected,
      run: async (loop) => (await addon.core.resolve(name(loop), 'A')).records.map((r) => String(r.data)),
      close: () => addon.close(),
    },
  ];
  if (!bindingMissing) {
    const ub = bindingContext(nsd.endpoint);
    systems.push({
      name: "npm `unbound` binding (libunbound's cache, libuv's pool)",
      expected,
      run: async (loop) => dotted((await ub.resolve(name(loop), 1)).data),
    });
  }
  systems.push(
    {
      name: 'node:dns resolve4 -> unbound daemon',
      expected,
      run: (loop) => toDaemon.resolve4(name(loop)),
      close: () => toDaemon.cancel(),
    },
    {
      name: 'dnscore + core cache (libunbound addon)',
      expected,
      run: async (loop) => (await cached.core.resolve(name(loop), 'A')).records.map((r) => String(r.data)),
      close: () => cached.close(),
    },
  );
  return systems;
}

/** One system of the burst, constructed. */
interface BurstSystem {
  ask(name: string): Promise<string[]>;
  /** Resolves once the system is set up (UnboundResolver.ready()); absent: nothing to wait for. */
  ready?(): Promise<void>;
  close(): Promise<void> | void;
}

interface Burst {
  readonly name: string;
  /** A fresh system (empty caches). */
  prepare(): BurstSystem;
}

/**
 * How a burst is set up before its clock starts. The table's: a warm-up, a burst of the same size
 * through a throwaway system of the same kind, then the measured system is constructed and its
 * ready() awaited; its caches are empty, so every question is cold. The warm-up stands for what a
 * running process has: compiled code and a heap grown to its load. The previous method began with
 * two full collections instead (so that no earlier system's garbage was collected during the
 * burst), and that made each burst slower for a reason a running process does not have: V8 keeps
 * a map no live object uses for two old-space collections, then drops the code compiled against
 * it, and the collections set the old generation's limit from a nearly empty heap, so the burst
 * ran on code being compiled again while concurrent marking started (about 50 ms of V8's helper
 * threads per burst, on a machine with two cores). DNSCORE_BENCH_BURST_COMPARE=1 adds rows timed
 * the earlier ways; a garbage collection in the burst is counted in its last column.
 */
interface BurstMethod {
  readonly collect: boolean;
  readonly warm: boolean;
  readonly ready: boolean;
}

const FAIR: BurstMethod = { collect: false, warm: true, ready: true };
const COMPARED: readonly [string, BurstMethod][] = [
  ['two full collections first, no warm-up (the last method)', { collect: true, warm: false, ready: true }],
  ['two full collections, then the warm-up', { collect: true, warm: true, ready: true }],
  ['no warm-up', { collect: false, warm: false, ready: true }],
  ['no warm-up, no ready() (the first method)', { collect: false, warm: false, ready: false }],
];
/** Idle time after the full collection: the collector's helper threads and closing sockets finish. */
const QUIET_MS = 50;

function dnscoreBurst(plugin: UnboundResolver | SystemResolver): BurstSystem {
  const c = compose(plugin, false);
  return {
    ask: async (name) => addresses(await c.core.resolve(name, 'A')),
    ...(plugin instanceof UnboundResolver ? { ready: () => plugin.ready() } : {}),
    close: () => c.close(),
  };
}

/** A burst system and how its bursts are set up. */
type TimedBurst = Burst & { readonly method: BurstMethod };

function burstSystems(ctx: BenchContext, bindingMissing: string | undefined): TimedBurst[] {
  const endpoint = ctx.rig.proxy.endpoint;
  const systems: Burst[] = [
    { name: 'dnscore, libunbound addon', prepare: () => dnscoreBurst(unboundPlugin(endpoint)) },
    {
      name: 'dnscore, libunbound addon, threads: 2',
      prepare: () => dnscoreBurst(unboundPlugin(endpoint, { threads: 2 })),
    },
  ];
  if (!bindingMissing) {
    systems.push({
      name: 'npm `unbound` binding (UV_THREADPOOL_SIZE=16)',
      prepare: () => {
        const ub = bindingContext(endpoint);
        return { ask: async (name) => dotted((await ub.resolve(name, 1)).data), close: () => {} };
      },
    });
  }
  systems.push(
    {
      name: 'dnscore, system backend',
      prepare: () => dnscoreBurst(systemPlugin(endpoint, { maxInFlight: COLD_BURST })),
    },
    {
      name: 'node:dns resolve4 (c-ares)',
      prepare: () => {
        const resolver = nodeResolver(endpoint, 5000);
        return { ask: (name) => resolver.resolve4(name), close: () => resolver.cancel() };
      },
    },
  );
  const compare = process.env.DNSCORE_BENCH_BURST_COMPARE === '1';
  return systems.flatMap((system): TimedBurst[] => [
    { ...system, method: FAIR },
    ...(compare ? COMPARED.map(([label, method]) => ({ ...system, name: `${system.name} (${label})`, method })) : []),
  ]);
}

/** The addresses of an answer, or its rcode when it has none (so a wrong answer says why). */
function addresses(result: { records: readonly { data: unknown }[]; rcodeName: string }): string[] {
  return result.records.length ? result.records.map((r) => String(r.data)) : [`rcode ${result.rcodeName}`];
}

interface BurstRun {
  readonly ms: number;
  readonly queries: number;
  /** CPU the delaying proxy spent meanwhile (it shares the machine's cores with the system measured). */
  readonly proxyCpuMs: number;
  /** From construction until ready() resolved (undefined: no ready() awaited). */
  readonly readyMs: number | undefined;
  /** V8's collection pauses on the JS thread while the clock ran. */
  readonly gcMs: number;
}

/** V8's collections as they end (startTime and duration on performance.now()'s clock). */
const collections: { start: number; ms: number }[] = [];
let collectionObserver: PerformanceObserver | undefined;

/** The collection pauses that began between `from` and `to` (entries come a tick late: it waits one). */
async function pausesBetween(from: number, to: number): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  let ms = 0;
  for (const entry of collections.splice(0)) if (entry.start >= from && entry.start < to) ms += entry.ms;
  return ms;
}

/** A burst like the measured one through a throwaway system of the same kind: the JIT's warm-up, not timed. */
async function warmUp(system: TimedBurst, first: number): Promise<void> {
  const run = system.prepare();
  try {
    await run.ready?.();
    await Promise.all(Array.from({ length: COLD_BURST }, (_, i) => run.ask(bulkName(first + i)).catch(() => [])));
  } finally {
    await run.close();
  }
}

/** 1,000 distinct names at once, from `first`; checks every answer; ms, queries and CPU at the proxy. */
async function burstOnce(ctx: BenchContext, system: TimedBurst, first: number): Promise<BurstRun> {
  if (system.method.collect) await fullCollection(QUIET_MS);
  if (system.method.warm) {
    await warmUp(system, first);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  }
  const constructed = performance.now();
  const run = system.prepare();
  try {
    let readyMs: number | undefined;
    if (system.method.ready && run.ready) {
      await run.ready();
      readyMs = since(constructed);
    }
    await ctx.rig.proxy.reset();
    const cpuBefore = await ctx.rig.proxy.cpu();
    const start = performance.now();
    const answers = await Promise.all(
      Array.from({ length: COLD_BURST }, (_, i) => run.ask(bulkName(first + i)).catch((e: unknown) => [String(e)])),
    );
    const end = performance.now();
    const ms = end - start;
    const gcMs = await pausesBetween(start, end);
    const cpuAfter = await ctx.rig.proxy.cpu();
    const proxyCpuMs = (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / 1000;
    answers.forEach((got, i) => {
      if (got.length !== 1 || got[0] !== bulkAddress(first + i))
        throw new WrongAnswerError(system.name, [bulkAddress(first + i)], got);
    });
    const { udp, tcp } = await ctx.rig.proxy.queries();
    return { ms, queries: udp + tcp, proxyCpuMs, readyMs, gcMs };
  } finally {
    await run.close();
  }
}

/** Runs of the cold burst: its median swung by 0.5 D between full runs of five. */
const BURST_RUNS = 9;

async function burstTable(ctx: BenchContext, bindingMissing: string | undefined, notes: string[]): Promise<Table> {
  const D = ctx.rig.delayMs;
  const runs = runsFor(ctx, BURST_RUNS, 3);
  const systems = burstSystems(ctx, bindingMissing);
  const samples = new Map<string, number[]>(systems.map((s) => [s.name, []]));
  const queries = new Map<string, number[]>(systems.map((s) => [s.name, []]));
  const proxyCpu = new Map<string, number[]>(systems.map((s) => [s.name, []]));
  const readyTimes = new Map<string, number[]>(systems.map((s) => [s.name, []]));
  const pauses = new Map<string, number[]>(systems.map((s) => [s.name, []]));
  collectionObserver ??= new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.push({ start: entry.startTime, ms: entry.duration });
  });
  collectionObserver.observe({ entryTypes: ['gc'] });
  const failed = new Set<string>();
  let first = 0;
  const next = (): number => {
    first = (first + COLD_BURST) % (ctx.rig.bulkNames - COLD_BURST);
    return first;
  };
  // Each round starts one system later: every system follows each of the others once in turn.
  for (let round = -1; round < runs; round++) {
    for (let i = 0; i < systems.length; i++) {
      const system = systems[(i + Math.max(round, 0)) % systems.length]!;
      if (failed.has(system.name)) continue;
      const dropsBefore = udpReceiveBufferDrops();
      try {
        const result = await burstOnce(ctx, system, next());
        if (round < 0) continue; // the first round warms the JIT up and checks the answers
        samples.get(system.name)!.push(result.ms);
        queries.get(system.name)!.push(result.queries);
        proxyCpu.get(system.name)!.push(result.proxyCpuMs);
        if (result.readyMs !== undefined) readyTimes.get(system.name)!.push(result.readyMs);
        pauses.get(system.name)!.push(result.gcMs);
      } catch (error) {
        failed.add(system.name);
        collections.length = 0;
        const dropsAfter = udpReceiveBufferDrops();
        const drops =
          dropsBefore !== undefined && dropsAfter !== undefined
            ? ` (meanwhile the kernel dropped ${dropsAfter - dropsBefore} datagrams at full UDP receive buffers)`
            : '';
        notes.push(`1,000 cold questions: ${system.name} not timed: ${String(error).slice(0, 300)}${drops}`);
      }
    }
  }
  collectionObserver.disconnect();
  collections.length = 0;
  const reference = summarize(samples.get(systems[0]!.name)!.length ? samples.get(systems[0]!.name)! : [NaN]);
  const rows = systems.map((system) => {
    const s = samples.get(system.name)!;
    if (failed.has(system.name) || s.length === 0)
      return [system.name, '-', 'not timed (see below)', '-', '-', '-', '-', '-'];
    const summary = summarize(s);
    const ready = readyTimes.get(system.name)!;
    return [
      system.name,
      String(summarize(queries.get(system.name)!).median),
      formatSummary(summary, 0),
      formatSummary(scale(summary, D), 1),
      ratio(summary.median, reference.median, 2),
      summarize(proxyCpu.get(system.name)!).median.toFixed(0),
      ready.length ? formatSummary(summarize(ready), 1) : '-',
      summarize(pauses.get(system.name)!).median.toFixed(1),
    ];
  });
  ctx.log('  libunbound: 1,000 cold questions done');
  // In C the proxy takes less of the cores the system measured shares with it; a real network delay takes none.
  notes.push(`1,000 cold questions: the delaying proxy relays UDP in ${ctx.rig.proxy.udpPath}.`);
  return {
    caption:
      `${COLD_BURST} distinct cold A questions at once (bulk.example), D = ${D} ms, ` +
      `a fresh system each run, constructed and ready after a warm-up; ${runs} runs`,
    headers: [
      'system',
      'queries',
      'ms, median (min-max)',
      'x D, median (min-max)',
      'time vs row 1',
      "proxy's CPU, ms (median)",
      'ready() after construction, ms',
      'GC pauses in the burst, ms (median)',
    ],
    rows,
  };
}

interface DeadRun {
  readonly live: number;
  readonly dead: number | undefined;
}

/**
 * LIVE_QUESTIONS cold questions to the live zone (behind the proxy), timed; with `dead`, after
 * DEAD_QUESTIONS questions to the dead zone were sent and left waiting. `dead` is how long
 * those took to fail.
 */
async function deadRun(
  ctx: BenchContext,
  ask: (name: string) => Promise<unknown>,
  withDead: boolean,
  first: number,
): Promise<DeadRun> {
  const deadStart = performance.now();
  const dead = withDead
    ? Array.from({ length: DEAD_QUESTIONS }, (_, i) =>
        ask(`q${first + i}.${DEAD_ZONE}`).then(
          () => since(deadStart),
          () => since(deadStart),
        ),
      )
    : [];
  if (withDead) await new Promise((resolve) => setTimeout(resolve, 2 * ctx.rig.delayMs));
  const start = performance.now();
  await Promise.all(Array.from({ length: LIVE_QUESTIONS }, (_, i) => ask(bulkName(first + i))));
  const live = since(start);
  const deadTimes = await Promise.all(dead);
  return { live, dead: withDead ? Math.max(...deadTimes) : undefined };
}

async function deadZoneTable(ctx: BenchContext, bindingMissing: string | undefined): Promise<Table> {
  const D = ctx.rig.delayMs;
  const runs = runsFor(ctx, 3, 2);
  const silent = await silentServer();
  const endpoint = ctx.rig.proxy.endpoint;
  const rows: string[][] = [];
  try {
    const variants: [string, () => { ask(name: string): Promise<unknown>; close(): unknown }][] = [
      [
        'dnscore, libunbound addon',
        () => {
          const c = compose(unboundPlugin(endpoint, { extraStubs: { [DEAD_ZONE]: silent.address } }), false);
          return { ask: (name) => c.core.resolve(name, 'A'), close: () => c.close() };
        },
      ],
    ];
    if (!bindingMissing) {
      variants.push([
        'npm `unbound` binding (UV_THREADPOOL_SIZE=16)',
        () => {
          const ub = bindingContext(endpoint, { [DEAD_ZONE]: silent.address });
          return { ask: (name) => ub.resolve(name, 1), close: () => {} };
        },
      ]);
    }
    let first = 50_000 % (ctx.rig.bulkNames - 1000);
    for (const [name, make] of variants) {
      const alone: number[] = [];
      const beside: number[] = [];
      const deadTimes: number[] = [];
      for (let round = 0; round < runs; round++) {
        for (const withDead of [false, true]) {
          const system = make();
          first += LIVE_QUESTIONS + DEAD_QUESTIONS;
          const result = await deadRun(ctx, system.ask, withDead, first);
          await system.close();
          if (withDead) {
            beside.push(result.live);
            deadTimes.push(result.dead!);
          } else {
            alone.push(result.live);
          }
        }
      }
      const a: Summary = summarize(alone);
      const b: Summary = summarize(beside);
      rows.push([
        name,
        formatSummary(scale(a, D), 1),
        formatSummary(scale(b, D), 1),
        ratio(b.median, a.median, 2),
        formatSummary(summarize(deadTimes), 0),
      ]);
    }
  } finally {
    silent.socket.close();
  }
  ctx.log('  libunbound: dead zone done');
  return {
    caption:
      `${LIVE_QUESTIONS} cold questions to a live zone (D = ${D} ms), alone and while ${DEAD_QUESTIONS} questions ` +
      `wait on a dead server for another zone, ${runs} runs`,
    headers: [
      'system',
      'live zone alone, x D',
      'live zone beside the dead one, x D',
      'beside ÷ alone',
      'dead zone: ms until SERVFAIL',
    ],
    rows,
  };
}

interface MemoryResult {
  readonly count: number;
  readonly seconds: number;
  readonly baseline: { heap: number; rss: number };
  readonly half: { heap: number; rss: number };
  readonly after: { heap: number; rss: number };
  readonly closed: { heap: number; rss: number };
  readonly returned: { heap: number; rss: number };
}

async function memoryTable(ctx: BenchContext): Promise<Table> {
  const count = ctx.quick ? 20_000 : 100_000;
  const warmFrom = ctx.quick ? 25_000 : 100_000;
  const result = await runChild<MemoryResult>(
    'unbound-memory-main.js',
    [ctx.rig.nsd.endpoint, String(count), String(warmFrom)],
    ['--expose-gc'],
    600_000,
  );
  const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
  const row = (label: string, m: { heap: number; rss: number }): string[] => [
    label,
    mb(m.heap),
    mb(m.rss),
    `${m.heap >= result.baseline.heap ? '+' : ''}${mb(m.heap - result.baseline.heap)}`,
    `${m.rss >= result.baseline.rss ? '+' : ''}${mb(m.rss - result.baseline.rss)}`,
  ];
  ctx.log('  libunbound: memory done');
  return {
    caption:
      `${result.count.toLocaleString('en')} distinct A questions through the libunbound addon (no core cache, ` +
      `nsd on loopback without delay, 1,000 at a time) in a fresh process, ${result.seconds.toFixed(1)} s`,
    headers: ['when (after full collections)', 'heap MB', 'RSS MB', 'heap vs baseline', 'RSS vs baseline'],
    rows: [
      row('baseline (2,000 questions asked, JIT warm)', result.baseline),
      row(`after ${(result.count / 2).toLocaleString('en')} questions`, result.half),
      row(`after ${result.count.toLocaleString('en')} questions`, result.after),
      row('after close()', result.closed),
      row('31 s after close() (freed memory returned)', result.returned),
    ],
  };
}

export async function libunboundCase(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const bindingMissing = bindingAvailable();
  if (bindingMissing) notes.push(bindingMissing);
  const windowMs = ctx.quick ? 250 : 1000;
  const cached = await throughputTable(
    {
      caption: 'A cached answer: `nN.bulk.example` A, 16 names',
      windowMs,
      runs: runsFor(ctx, 5, 3),
      concurrency: CACHED_NAMES,
      unit: 'answers',
    },
    cachedSystems(ctx, bindingMissing),
    notes,
  );
  ctx.log('  libunbound: cached answer done');
  const burst = await burstTable(ctx, bindingMissing, notes);
  const dead = await deadZoneTable(ctx, bindingMissing);
  const tables = [cached, burst, dead];
  try {
    tables.push(await memoryTable(ctx));
  } catch (error) {
    const killed = (error as { killed?: boolean }).killed ? ' (killed after 600 s)' : '';
    notes.push(`memory over many questions: not measured${killed}: ${String(error).slice(0, 300)}`);
  }
  return {
    id: 'unbound',
    title: "8. libunbound: dnscore's addon against the npm binding",
    method:
      "dnscore's libunbound backend runs on an addon of its own: libunbound's event API on an event base of the " +
      "addon, run by one thread of the addon that calls ub_resolve_event (an answer from libunbound's cache comes " +
      'back inside that call) and hands the answers to the JS thread in batches; cancel is ub_cancel. The npm ' +
      "`unbound` binding (0.4.3) runs a blocking ub_resolve per question on libuv's thread pool (16 threads " +
      'here). Both are set up alike: stub zones to nsd, QNAME minimisation off, no validation, ' +
      'infra-cache-max-rtt 1000. The cached answer counts A lookups answered from ' +
      "libunbound's cache (dnscore without its own cache: the answer packet is parsed by the core each time), beside " +
      'node:dns asking the unbound daemon and dnscore with its core cache. The cold burst asks 1,000 distinct names ' +
      'at once through the delaying proxy, each run to a fresh system set up before the clock starts: first a ' +
      'warm-up, the same burst through a throwaway system of the same kind (what a running process has: compiled ' +
      "code and a heap grown to its load), then the system constructed and, for dnscore's libunbound backend, its " +
      "ready() awaited (each context's thread has made libunbound's worker, 3-25 ms, which no question should wait " +
      'for); each round starts one system later. The burst still finds nothing cached: distinct names, new ' +
      'contexts. The previous method began with two full collections instead, which dropped compiled code and ' +
      "shrank the heap's limits, so each burst ran while V8 compiled again and marked (about 50 ms of its helper " +
      'threads per burst, on two cores); DNSCORE_BENCH_BURST_COMPARE=1 times it too. `threads: 2` spreads the ' +
      'questions by a hash over two libunbound contexts, each with its own thread and its own cache. Each cold ' +
      "question costs libunbound's thread a socket of its own (socket, bind, connect, send, receive, epoll " +
      'registration, close), and the proxy, on the same cores, relays four datagrams (in C when the machine has a ' +
      "compiler; its CPU per burst is a column; bench/dist/tools/burst-cpu.js splits a burst's CPU by process and " +
      'thread). The dead zone is a stub to a UDP ' +
      'port that never answers. Memory runs in a fresh process with --expose-gc; while a context lives, ' +
      "libunbound's caches hold up to their configured sizes. glibc keeps the pages libunbound freed in its " +
      "thread's arena; the backend hands them back to the OS (malloc_trim, on a thread of its own) once the " +
      'process has had no libunbound context for 30 s, not sooner, since a context made after pays a page ' +
      'fault for each page it touches again.',
    tables,
    notes,
  };
}
