/**
 * Part 5: 10,000 distinct names asked at once, and what the core's cache costs in memory.
 * Each run is a fresh process, so its peak RSS is its own.
 */
import { runChild } from '../rig/child.js';
import { count, fixed, formatSummary, ratio, summarize } from '../stats.js';
import { runsFor, type BenchContext, type Section, type Table } from './section.js';

const BURST = 10_000;
const MB = 2 ** 20;

interface Burst {
  readonly system: string;
  readonly totalMs: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly rssBefore: number;
  readonly peakRss: number;
  /** V8's young and old generation pages holding memory at the burst's end. */
  readonly youngBytes: number;
  readonly oldBytes: number;
  readonly wrong: number;
  readonly failed: number;
  readonly firstError?: string;
}

interface Heap {
  readonly count: number;
  readonly heapBytes: number;
  readonly outsideBytes: number;
  readonly packetBytes: number;
}

const SYSTEMS = [
  ['dnscore-system', 'dnscore, system backend (no cache)'],
  ['node-dns', 'node:dns `Resolver.resolve4`'],
] as const;

/** The waiting-memory table also has dnscore with the core cache in front (withCache), as most users run it. */
const WAITING_SYSTEMS = [...SYSTEMS, ['dnscore-cached', 'dnscore, system backend behind `withCache`']] as const;

async function bursts(ctx: BenchContext, notes: string[]): Promise<Table> {
  const runs = runsFor(ctx, 5, 1);
  const results = new Map<string, Burst[]>(SYSTEMS.map(([id]) => [id, []]));
  for (let round = 0; round < runs; round++) {
    for (const [id] of round % 2 === 0 ? SYSTEMS : [...SYSTEMS].reverse()) {
      const burst = await runChild<Burst>('burst-main.js', [id, ctx.rig.nsd.endpoint, String(BURST)]);
      if (burst.wrong > 0 || burst.failed > 0)
        notes.push(
          `${id} run ${round + 1}: ${burst.wrong} wrong answers, ${burst.failed} failed (${burst.firstError ?? ''})`,
        );
      results.get(id)!.push(burst);
    }
  }
  const reference = summarize(results.get(SYSTEMS[0][0])!.map((b) => b.perSecond)).median;
  const rows = SYSTEMS.map(([id, name]) => {
    const r = results.get(id)!;
    const perSecond = summarize(r.map((b) => b.perSecond));
    return [
      name,
      formatSummary(summarize(r.map((b) => b.totalMs)), 0),
      formatSummary(perSecond, 0),
      formatSummary(summarize(r.map((b) => b.p50)), 0),
      formatSummary(summarize(r.map((b) => b.p99)), 0),
      formatSummary(summarize(r.map((b) => b.peakRss / MB)), 0),
      formatSummary(summarize(r.map((b) => (b.peakRss - b.rssBefore) / MB)), 0),
      formatSummary(summarize(r.map((b) => b.youngBytes / MB)), 0),
      formatSummary(summarize(r.map((b) => b.oldBytes / MB)), 0),
      ratio(reference, perSecond.median, 2),
    ];
  });
  ctx.log('  concurrency burst: done');
  return {
    caption:
      `${count(BURST)} distinct A questions at once to nsd on loopback (no delay), ${runs} runs, a fresh ` +
      `process each`,
    headers: [
      'system',
      'all answered, ms',
      'answers/s',
      'p50 latency, ms',
      'p99 latency, ms',
      'peak RSS, MB',
      'RSS growth, MB',
      'V8 young generation touched, MB',
      'V8 old generation, MB',
      'dnscore ÷ this (speed)',
    ],
    rows,
  };
}

interface Waiting {
  readonly count: number;
  readonly heapBytes: number;
  readonly outsideBytes: number;
  /** RSS outside V8's heap pages: c-ares's and node's C++ state for node:dns. */
  readonly nativeBytes: number;
  readonly rssBytes: number;
}

/** What a question costs while it waits for its answer: the burst's questions, to a server that never answers. */
async function waitingMemory(ctx: BenchContext): Promise<Table> {
  const runs = runsFor(ctx, 3, 1);
  const results = new Map<string, Waiting[]>(WAITING_SYSTEMS.map(([id]) => [id, []]));
  for (let round = 0; round < runs; round++) {
    for (const [id] of round % 2 === 0 ? WAITING_SYSTEMS : [...WAITING_SYSTEMS].reverse())
      results.get(id)!.push(await runChild<Waiting>('waiting-memory-main.js', [id, String(BURST)], ['--expose-gc']));
  }
  const rows = WAITING_SYSTEMS.map(([id, name]) => {
    const r = results.get(id)!;
    return [
      name,
      formatSummary(summarize(r.map((w) => w.heapBytes / w.count)), 0),
      formatSummary(summarize(r.map((w) => w.outsideBytes / w.count)), 0),
      formatSummary(summarize(r.map((w) => w.nativeBytes / w.count)), 0),
      formatSummary(summarize(r.map((w) => (w.heapBytes + w.nativeBytes) / w.count)), 0),
      formatSummary(summarize(r.map((w) => w.rssBytes / MB)), 1),
    ];
  });
  ctx.log('  concurrency waiting memory: done');
  return {
    caption:
      `${count(BURST)} questions waiting at once (a server that never answers), ${runs} run${runs > 1 ? 's' : ''}, ` +
      `a fresh process each`,
    headers: [
      'system',
      'JS heap per waiting question, bytes',
      'external (buffers), bytes',
      'native (RSS outside V8), bytes',
      'live in all (heap + native), bytes',
      'RSS growth, MB',
    ],
    rows,
  };
}

async function cacheHeap(ctx: BenchContext): Promise<Table> {
  const answers = ctx.quick ? 20_000 : 100_000;
  const runs = runsFor(ctx, 3, 1);
  const samples: Heap[] = [];
  const warmFrom = ctx.rig.bulkNames - 2000;
  if (warmFrom < answers)
    throw new Error(`the bulk zone has ${ctx.rig.bulkNames} names: too few for ${answers} answers and the warm-up`);
  for (let i = 0; i < runs; i++)
    samples.push(
      await runChild<Heap>(
        'cache-heap-main.js',
        [ctx.rig.nsd.endpoint, String(answers), String(warmFrom)],
        ['--expose-gc'],
      ),
    );
  const per100k = (bytes: number, n: number): number => (bytes / n) * 100_000;
  const heap = summarize(samples.map((s) => per100k(s.heapBytes, s.count) / MB));
  const outside = summarize(samples.map((s) => per100k(s.outsideBytes, s.count) / MB));
  const total = summarize(samples.map((s) => per100k(s.heapBytes + s.outsideBytes, s.count) / MB));
  const perAnswer = summarize(samples.map((s) => (s.heapBytes + s.outsideBytes) / s.count));
  const packet = samples[0]!.packetBytes / samples[0]!.count;
  ctx.log('  concurrency cache heap: done');
  return {
    caption:
      `Memory of the core's cache: ${count(answers)} distinct A answers ` +
      `cached${answers !== 100_000 ? ', scaled to 100,000' : ''}, ${runs} run${runs > 1 ? 's' : ''}`,
    headers: ['figure', 'median (min-max)'],
    rows: [
      ['JS heap per 100,000 answers, MB', formatSummary(heap, 1)],
      ['buffers outside the heap per 100,000 answers, MB', formatSummary(outside, 1)],
      ['total per 100,000 answers, MB', formatSummary(total, 1)],
      ['bytes per cached answer', formatSummary(perAnswer, 0)],
      ['of which the answer packet itself, bytes', fixed(packet, 0)],
    ],
  };
}

export async function concurrency(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const tables = [await bursts(ctx, notes), await waitingMemory(ctx), await cacheHeap(ctx)];
  return {
    id: 'concurrency',
    title: '5. Concurrency and memory',
    method:
      `${count(BURST)} distinct names of a bulk zone (one A record each) asked at once, in a fresh Node.js process ` +
      `per run, ` +
      `after a warm-up of 500 other names; every answer is checked. Latency is from the start of the burst to each ` +
      `answer. Peak RSS is the process's high-water mark (VmHWM; getrusage's maxrss would carry the parent's over ` +
      `the fork); growth is that peak less the RSS just before ` +
      `the burst. The second table is what the questions of such a burst hold while they wait: the same ` +
      `${count(BURST)} questions asked of a UDP server that never answers, the JS heap (and memory outside it) ` +
      `after full collections, divided by the number of questions; the caller is the same for both systems (an ` +
      `async function per question, about 400 bytes of it), and each hands it the addresses: dnscore through ` +
      `\`resolveWith(name, 'A', addressesOf)\`, node:dns through \`resolve4\`. ` +
      `dnscore's system backend keeps at most 256 queries in flight (its \`maxInFlight\`), the others wait in its ` +
      `queue; queries in flight share sockets on random ports, at most 64 queries per socket, each with a random ID ` +
      `(RFC 5452); c-ares sends every query over the same few sockets. The cache's ` +
      `memory is measured after full garbage collections: JS heap growth and growth of buffers outside the heap ` +
      `(the answer packets the cache keeps), divided by the number of answers.`,
    tables,
    notes,
  };
}
