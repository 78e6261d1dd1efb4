/**
 * Part 1: cold RFC 3263 resolution latency against nsd behind the delaying proxy (every answer
 * D ms after its question), as a multiple of D. Every system starts cold in every run: a new
 * DnsCore and backend (a new libunbound context), a new dns.Resolver for node:dns (c-ares keeps
 * a cache per channel). Systems take turns within each round, so drift hits all alike.
 */
import dns from 'node:dns';
import { expectSameAddresses, expectSameSet, WrongAnswerError } from '../systems/check.js';
import { compose, systemPlugin, targetLines, unboundPlugin } from '../systems/dnscore.js';
import { nodeResolver, parallelWalk, sequentialWalk } from '../systems/node-dns.js';
import { sipStackResolve, useResolverForSipStack } from '../systems/sip-stack.js';
import { EXPECTED, RFC3263_ZONE, SRV_ONLY_ZONE } from '../rig/zones.js';
import { formatSummary, ratio, scale, since, summarize } from '../stats.js';
import { runsFor, type BenchContext, type Section, type Table } from './section.js';

interface Run {
  run(): Promise<string[]>;
  close(): Promise<void> | void;
}

interface ColdSystem {
  readonly name: string;
  prepare(): Run;
  readonly expected: readonly string[];
  /** The addresses it must find, whatever the transports (the npm `sip` stack's view of RFC 3263). */
  readonly addresses?: readonly string[];
}

function systems(ctx: BenchContext, zone: string): ColdSystem[] {
  const endpoint = ctx.rig.proxy.endpoint;
  const uri = `sip:bob@${zone}`;
  const rfc = zone === RFC3263_ZONE;
  const resolverLike = rfc ? EXPECTED.rfc3263Naptr : EXPECTED.srvOnly;
  const dnscore = (make: () => ReturnType<typeof compose>): Run => {
    const c = make();
    return { run: async () => targetLines(await c.locator.resolve(uri)), close: () => c.close() };
  };
  const node = (walk: typeof sequentialWalk): Run => {
    const resolver = nodeResolver(endpoint);
    return { run: () => walk(resolver, zone), close: () => resolver.cancel() };
  };
  return [
    {
      name: 'dnscore, system backend',
      expected: resolverLike,
      prepare: () => dnscore(() => compose(systemPlugin(endpoint), false)),
    },
    {
      name: 'dnscore, libunbound backend',
      expected: resolverLike,
      prepare: () => dnscore(() => compose(unboundPlugin(endpoint), false)),
    },
    {
      name: 'dnscore, libunbound, QNAME minimisation on',
      expected: resolverLike,
      prepare: () => dnscore(() => compose(unboundPlugin(endpoint, { qnameMinimisation: true }), false)),
    },
    {
      name: 'npm `sip` stack, its resolve()',
      expected: rfc ? EXPECTED.rfc3263SipStack : EXPECTED.srvOnly,
      ...(rfc ? { addresses: EXPECTED.rfc3263Addresses } : {}),
      prepare: () => {
        const resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
        resolver.setServers([endpoint]);
        useResolverForSipStack(resolver);
        return { run: () => sipStackResolve(uri), close: () => resolver.cancel() };
      },
    },
    { name: 'node:dns, sequential NAPTR -> SRV -> A', expected: resolverLike, prepare: () => node(sequentialWalk) },
    { name: 'node:dns, parallel (best of node:dns)', expected: resolverLike, prepare: () => node(parallelWalk) },
  ];
}

async function once(ctx: BenchContext, system: ColdSystem): Promise<{ ms: number; queries: number; lines: string[] }> {
  const run = system.prepare();
  try {
    await ctx.rig.proxy.reset();
    const start = performance.now();
    const lines = await run.run();
    const ms = since(start);
    const { udp, tcp } = await ctx.rig.proxy.queries();
    return { ms, queries: udp + tcp, lines };
  } finally {
    await run.close();
  }
}

async function measureZone(
  ctx: BenchContext,
  zone: string,
  notes: string[],
  medians: Map<string, number>,
): Promise<Table> {
  const D = ctx.rig.delayMs;
  const all = systems(ctx, zone);
  const valid: ColdSystem[] = [];
  const rows: string[][] = [];
  for (const system of all) {
    try {
      const { lines } = await once(ctx, system);
      if (system.addresses) expectSameAddresses(system.name, system.addresses, lines);
      expectSameSet(system.name, system.expected, lines);
      await once(ctx, system); // warm-up: the JIT, not the caches (every run is cold)
      valid.push(system);
    } catch (error) {
      const why = error instanceof WrongAnswerError ? error.message : `failed: ${String(error)}`;
      notes.push(`${zone}: ${system.name} not timed: ${why}`);
    }
  }
  const samples = new Map<string, number[]>(valid.map((s) => [s.name, []]));
  const queries = new Map<string, number[]>(valid.map((s) => [s.name, []]));
  const runs = runsFor(ctx, 15, 5);
  for (let round = 0; round < runs; round++) {
    // A different system goes first each round.
    const order = valid.map((_, i) => valid[(i + round) % valid.length]!);
    for (const system of order) {
      const { ms, queries: q } = await once(ctx, system);
      samples.get(system.name)!.push(ms);
      queries.get(system.name)!.push(q);
    }
  }
  const reference = summarize(samples.get(valid[0]?.name ?? '') ?? [NaN]);
  for (const system of all) {
    const s = samples.get(system.name);
    if (!s) {
      rows.push([system.name, '-', 'wrong answer, not timed', '-', '-']);
      continue;
    }
    const summary = summarize(s);
    medians.set(system.name, summary.median / D);
    rows.push([
      system.name,
      String(summarize(queries.get(system.name)!).median),
      formatSummary(summary, 1),
      formatSummary(scale(summary, D), 2),
      ratio(summary.median, reference.median, 2),
    ]);
  }
  ctx.log(`  cold ${zone}: done (${runs} rounds)`);
  return {
    caption: `${zoneTitle(zone)}: \`sip:bob@${zone}\`, D = ${D} ms, ${runs} runs`,
    headers: ['system', 'queries', 'ms, median (min-max)', 'x D, median (min-max)', 'time vs dnscore (system)'],
    rows,
  };
}

export async function coldLatency(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const rfc = new Map<string, number>();
  const srv = new Map<string, number>();
  const tables = [await measureZone(ctx, RFC3263_ZONE, notes, rfc), await measureZone(ctx, SRV_ONLY_ZONE, notes, srv)];
  const d = (m: Map<string, number>, name: string): string => (m.has(name) ? `${m.get(name)!.toFixed(2)} D` : 'n/a');
  notes.unshift(
    `On the RFC 3263 zone dnscore takes ${d(rfc, 'dnscore, system backend')} (system backend) and ` +
      `${d(rfc, 'dnscore, libunbound backend')} ` +
      `(libunbound); the npm \`sip\` stack ${d(rfc, 'npm `sip` stack, its resolve()')}, the sequential walk ` +
      `${d(rfc, 'node:dns, sequential NAPTR -> SRV -> A')}, the best node:dns strategy ` +
      `${d(rfc, 'node:dns, parallel (best of node:dns)')}. ` +
      `On the SRV-only zone: ${d(srv, 'dnscore, system backend')} against ` +
      `${d(srv, 'npm `sip` stack, its resolve()')} and ${d(srv, 'node:dns, parallel (best of node:dns)')}.`,
  );
  return {
    id: 'cold',
    title: '1. Cold RFC 3263 resolution latency',
    method:
      `Each system resolves \`sip:bob@ZONE\` with nothing cached, against nsd behind the bench's delaying proxy, ` +
      `which hands every answer back D = ${ctx.rig.delayMs} ms after its question (UDP and TCP). A new DnsCore and ` +
      `backend ` +
      `(a new libunbound context) or a new \`dns.Resolver\` is made for every run, outside the timed part. "queries" ` +
      `is how ` +
      `many questions reached the proxy. The floor is 1 D: nsd puts the A records of in-zone SRV targets in the ` +
      `additional ` +
      `section. dnscore's client is the default one (UDP, TCP, TLS; IPv4 and IPv6), so it asks AAAA too; the ` +
      `node:dns walks ` +
      `ask the same names one after the other (sequential, A only) or all at once per step (parallel, A and AAAA); ` +
      `the ` +
      `npm \`sip\` stack asks SRV for tcp, udp and tls at once, then A then AAAA of each target.`,
    tables,
    notes,
  };
}

function zoneTitle(zone: string): string {
  return zone === RFC3263_ZONE ? 'RFC 3263 example zone (NAPTR -> SRV -> A)' : 'SRV-only zone (SRV -> A, no NAPTR)';
}
