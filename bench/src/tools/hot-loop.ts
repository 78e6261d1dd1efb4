/**
 * One dnscore workload in a loop, to profile it:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/dist/tools/hot-loop.js WORKLOAD [SECONDS]
 *   node bench/dist/tools/cpuprofile-top.js /tmp/prof/*.cpuprofile
 * Workloads: warm-srv-a, warm-full, warm-a (cache hits), cold-sip (a new DnsCore per
 * resolution, nsd direct), burst (10,000 distinct names at once through the system backend),
 * unbound-cached (an A answer from libunbound's cache through the addon, no core cache, 16
 * names in flight), binding-cached (the same through the npm `unbound` binding).
 */
import { createRequire } from 'node:module';
import type UnboundClass from 'unbound';
import {
  BULK_ZONE,
  RFC3263_ZONE,
  SRV_ONLY_ZONE,
  bulkZoneText,
  bulkName,
  rfc3263ZoneText,
  srvOnlyZoneText,
  warmDomain,
  WARM_DOMAINS,
} from '../rig/zones.js';
import { startNsd } from '../rig/support.js';
import { compose, systemPlugin, targetLines, unboundPlugin } from '../systems/dnscore.js';
import { throughput } from '../stats.js';

const [workload = 'warm-srv-a', secondsText = '5'] = process.argv.slice(2);
const seconds = Number(secondsText);
const nsd = await startNsd([
  { name: RFC3263_ZONE, text: rfc3263ZoneText() },
  { name: SRV_ONLY_ZONE, text: srvOnlyZoneText() },
  { name: BULK_ZONE, text: bulkZoneText(10_000) },
]);

try {
  let perSecond: number;
  /** With THREADS=/path/to/module exporting threadTimes(): CPU per thread, for profiling. */
  const printThreads = async (): Promise<void> => {
    if (!process.env.THREADS) return;
    const { threadTimes } = await import(process.env.THREADS);
    const times = threadTimes() as Record<string, { comm: string; ticks: number }>;
    const main = String(process.pid);
    for (const [tid, t] of Object.entries(times)
      .sort((a, b) => b[1].ticks - a[1].ticks)
      .slice(0, 8)) {
      console.log(`  thread ${tid}${tid === main ? ' (JS)' : ''} ${t.comm}: ${t.ticks * 10} ms`);
    }
  };
  let cpu = process.cpuUsage();
  let ops = 0;
  /** The timed window: answers per second, and the CPU of every thread of the process per answer. */
  const timed = async (run: (loop: number) => Promise<unknown>, inFlight: number): Promise<number> => {
    await throughput(run, 300, inFlight);
    cpu = process.cpuUsage();
    const rate = await throughput(run, seconds * 1000, inFlight);
    ops = rate * seconds;
    return rate;
  };
  if (workload === 'warm-srv-a' || workload === 'warm-full') {
    const c = compose(
      systemPlugin(nsd.endpoint),
      true,
      workload === 'warm-srv-a' ? { transports: ['udp'], ipv6: false } : {},
    );
    const run = async (loop: number): Promise<string[]> =>
      targetLines(await c.locator.resolve(`sip:bob@${warmDomain(loop)}`));
    await throughput(run, 300, WARM_DOMAINS);
    perSecond = await throughput(run, seconds * 1000, WARM_DOMAINS);
  } else if (workload === 'warm-a') {
    const c = compose(systemPlugin(nsd.endpoint), true);
    perSecond = await throughput(() => c.core.resolve(`sip1.${SRV_ONLY_ZONE}`, 'A'), seconds * 1000, 16);
  } else if (workload === 'cold-sip') {
    perSecond = await throughput(
      async () => {
        const c = compose(systemPlugin(nsd.endpoint), false);
        targetLines(await c.locator.resolve(`sip:bob@${RFC3263_ZONE}`));
        await c.close();
      },
      seconds * 1000,
      1,
    );
  } else if (workload === 'burst') {
    perSecond = await throughput(
      async () => {
        const c = compose(systemPlugin(nsd.endpoint), false);
        await Promise.all(Array.from({ length: 10_000 }, (_, i) => c.core.resolve(bulkName(i), 'A')));
        await c.close();
      },
      seconds * 1000,
      1,
    );
  } else if (workload === 'unbound-cached') {
    const c = compose(unboundPlugin(nsd.endpoint), false);
    perSecond = await timed((loop) => c.core.resolve(bulkName(loop % 16), 'A'), 16);
    await printThreads();
    await c.close();
  } else if (workload === 'binding-cached') {
    const Unbound = createRequire(import.meta.url)('unbound') as typeof UnboundClass;
    const ub = new Unbound();
    ub.setOption('do-not-query-localhost', 'no');
    ub.setOption('local-zone', `${BULK_ZONE}. transparent`);
    ub.setStub(`${BULK_ZONE}.`, nsd.endpoint.replace(':', '@'));
    perSecond = await timed((loop) => ub.resolve(bulkName(loop % 16), 1), 16);
  } else {
    throw new Error(`unknown workload ${workload}`);
  }
  const used = process.cpuUsage(cpu);
  const perOp = ops > 0 ? `, ${((used.user + used.system) / ops).toFixed(1)} µs CPU (all threads) each` : '';
  console.log(`${workload}: ${perSecond.toFixed(1)} per second${perOp}`);
} finally {
  await nsd.stop();
}
