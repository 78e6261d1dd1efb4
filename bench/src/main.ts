/**
 * The bench: starts the loopback rig, runs each part in turn, writes the report, stops every
 * server it started (by PID), whatever happened.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { CASE_IDS, parseArgs } from './args.js';
import { coldLatency } from './cases/cold-latency.js';
import { warmThroughput } from './cases/warm-throughput.js';
import { dnssecCost } from './cases/dnssec-cost.js';
import { concurrency } from './cases/concurrency.js';
import { failoverCase } from './cases/failover.js';
import { libunboundCase } from './cases/libunbound.js';
import { nodeDnsFacade } from './cases/node-dns-facade.js';
import { sharedPenalty } from './cases/shared-penalty.js';
import { diagnosticsCost } from './cases/diagnostics-cost.js';
import { sipGuard } from './cases/sip-guard.js';
import type { BenchCase, BenchContext, Section } from './cases/section.js';
import { describeEnvironment } from './report/environment.js';
import { renderReport, renderSection } from './report/markdown.js';
import { startRig } from './rig/rig.js';
import { since } from './stats.js';

const DELAY_MS = 20;

const CASES: Record<(typeof CASE_IDS)[number], BenchCase | undefined> = {
  cold: coldLatency,
  warm: warmThroughput,
  dnssec: dnssecCost,
  failover: failoverCase,
  concurrency,
  nodedns: nodeDnsFacade,
  shared: sharedPenalty,
  unbound: libunboundCase,
  diagnostics: diagnosticsCost,
  sipguard: sipGuard,
};

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const loadAtStart = os.loadavg();
  const log = (line: string): void => console.error(`[bench ${(since(started) / 1000).toFixed(1)}s] ${line}`);
  log(`starting the rig (nsd, delaying proxy, unbound daemon)${args.quick ? ', quick run' : ''}`);
  if (loadAtStart[0]! > 1)
    log(`the machine is busy (load average ${loadAtStart[0]!.toFixed(2)}): expect noisy figures`);
  const rig = await startRig({ delayMs: DELAY_MS, bulkNames: args.quick ? 30_000 : 110_000 });
  log(`the delaying proxy relays UDP in ${rig.proxy.udpPath}, TCP in Node`);
  const sections: Section[] = [];
  try {
    const ctx: BenchContext = { quick: args.quick, rig, log };
    for (const id of CASE_IDS) {
      const run = CASES[id];
      if (!run || (args.only && !args.only.includes(id))) continue;
      log(`${id}: running`);
      const t0 = performance.now();
      let section: Section;
      try {
        section = await run(ctx);
      } catch (error) {
        // One part failing (a server that would not start, a wrong answer) does not lose the others.
        log(`${id}: FAILED: ${String(error)}`);
        section = {
          id,
          title: `${id}: failed`,
          method: 'This part did not complete.',
          tables: [],
          notes: [`failed: ${String(error)}`],
        };
      }
      section.seconds = since(t0) / 1000;
      sections.push(section);
      console.log(`${renderSection(section)}\n`);
    }
  } finally {
    await rig.stop();
  }
  const seconds = since(started) / 1000;
  const env = describeEnvironment({ quick: args.quick, delayMs: DELAY_MS, seconds, loadAtStart });
  writeFileSync(args.out, renderReport(env, sections, args.quick || args.only !== undefined));
  log(`done in ${seconds.toFixed(1)} s; report written to ${args.out}`);
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
