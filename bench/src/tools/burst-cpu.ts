/**
 * Where the time of a cold burst goes: COUNT distinct names of the bulk zone at once against the
 * delaying proxy (as the libunbound part asks them), RUNS times per system, each run with the
 * wall time and the CPU each party spent meanwhile (/proc/PID/task/TID/schedstat: nanoseconds on
 * a CPU): this process's threads by name (the JS thread, the addon's resolver threads, V8's),
 * the proxy process and nsd with its children.
 *   node bench/dist/tools/burst-cpu.js [SYSTEMS] [RUNS] [COUNT] [DELAY_MS]
 * SYSTEMS: comma-separated, of unbound, unboundN (the libunbound backend with `threads: N`), system
 * (default unbound,system); UNBOUND_OPTIONS='{"udp-connect":"no"}' adds libunbound options; WARM=0
 * leaves out the warm-up before each burst, COLLECT=1 adds two full collections before it (see
 * the libunbound part's BurstMethod). On a
 * shared machine, QUIET=1 starts each burst only after 300 ms in which the CPUs were at least 85%
 * idle (waiting up to a minute; "(busy)" marks a burst that started without such a moment).
 * PERF_WINDOW=1 prints each burst's start and end on CLOCK_MONOTONIC (seconds), to cut a profile
 * taken with `perf record -k mono` down to the bursts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { startDelayProxy } from '../rig/delay-proxy.js';
import { fullCollection } from '../rig/full-collection.js';
import { startNsd } from '../rig/support.js';
import { BULK_ZONE, bulkAddress, bulkName, bulkZoneText } from '../rig/zones.js';
import { compose, systemPlugin, unboundPlugin } from '../systems/dnscore.js';

const [systemsText = 'unbound,system', runsText = '5', countText = '1000', delayText = '20'] = process.argv.slice(2);
const runs = Number(runsText);
const count = Number(countText);
const delayMs = Number(delayText);
const NAMES = 110_000;

/** CPU nanoseconds per thread of a process, keyed "comm/tid". */
function threadTimes(pid: number | 'self'): Map<string, number> {
  const times = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return times;
  }
  for (const tid of tids) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      times.set(`${comm}/${tid}`, ns);
    } catch {
      // the thread ended
    }
  }
  return times;
}

/** The processes whose command line mentions `text` (nsd's main, xfrd and server processes: its config file). */
function processesOf(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

function total(pids: readonly number[]): number {
  let ns = 0;
  for (const pid of pids) for (const t of threadTimes(pid).values()) ns += t;
  return ns;
}

const nsd = await startNsd([{ name: BULK_ZONE, text: bulkZoneText(NAMES) }]);
const proxy = await startDelayProxy(nsd, delayMs);
const nsdPids = processesOf(nsd.dir);
console.log(`nsd processes: ${nsdPids.join(' ')}; proxy processes: ${proxy.pids.join(' ')} (UDP in ${proxy.udpPath})`);
let first = 0;

const extra = JSON.parse(process.env.UNBOUND_OPTIONS ?? '{}') as Record<string, string>;

/** A fresh system, set up: for libunbound, once ready() says each context's worker is made. */
async function make(system: string): Promise<ReturnType<typeof compose>> {
  if (system === 'system') return compose(systemPlugin(proxy.endpoint, { maxInFlight: count }), false);
  const threads = Number(system.slice('unbound'.length) || 1);
  const plugin = unboundPlugin(proxy.endpoint, { options: extra, threads });
  await plugin.ready();
  return compose(plugin, false);
}

/** Idle and total jiffies of all CPUs (/proc/stat). */
function cpuJiffies(): { idle: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: fields[3]! + fields[4]!, total: fields.reduce((a, b) => a + b, 0) };
}

/** Waits for 300 ms in which the machine was mostly idle; false after a minute without one. */
async function quietMoment(): Promise<boolean> {
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    const before = cpuJiffies();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = cpuJiffies();
    if ((after.idle - before.idle) / Math.max(1, after.total - before.total) >= 0.85) return true;
  }
  return false;
}

async function burst(system: string): Promise<void> {
  // As the libunbound part: a warm-up through a throwaway system of the same kind (WARM=0: none;
  // COLLECT=1: two full collections before, the last method), then a system made and ready.
  if (process.env.COLLECT === '1') await fullCollection(50);
  first = (first + count) % (NAMES - count);
  const from = first;
  if (process.env.WARM !== '0') {
    const warm = await make(system);
    await Promise.all(Array.from({ length: count }, (_, i) => warm.core.resolve(bulkName(from + i), 'A')));
    await warm.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const c = await make(system);
  await proxy.reset();
  const quiet = process.env.QUIET ? await quietMoment() : true;
  const selfBefore = threadTimes('self');
  const proxyBefore = proxy.pids.map((pid) => total([pid]));
  const nsdBefore = total(nsdPids);
  const start = performance.now();
  const startMono = process.hrtime.bigint();
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => c.core.resolve(bulkName(from + i), 'A').then((r) => r.records[0]?.data)),
  );
  const ms = performance.now() - start;
  if (process.env.PERF_WINDOW) {
    const seconds = (ns: bigint): string => (Number(ns / 1000n) / 1e6).toFixed(6);
    console.log(`window ${system} ${seconds(startMono)} ${seconds(process.hrtime.bigint())}`);
  }
  const selfAfter = threadTimes('self');
  const proxyEach = proxy.pids.map((pid, i) => (total([pid]) - proxyBefore[i]!) / 1e6);
  const proxyMs = proxyEach.reduce((a, b) => a + b, 0);
  const nsdMs = (total(nsdPids) - nsdBefore) / 1e6;
  answers.forEach((got, i) => {
    if (got !== bulkAddress(from + i)) throw new Error(`${bulkName(from + i)}: got ${String(got)}`);
  });
  const { udp } = await proxy.queries();
  await c.close();
  const threads: string[] = [];
  for (const [key, after] of selfAfter) {
    const spent = (after - (selfBefore.get(key) ?? 0)) / 1e6;
    if (spent >= 0.5)
      threads.push(`${key.split('/')[0]}${key.endsWith(`/${process.pid}`) ? '(JS)' : ''} ${spent.toFixed(1)}`);
  }
  // With the C UDP path, the proxy's CPU is "Node + C".
  const proxyParts = proxyEach.length > 1 ? ` (${proxyEach.map((t) => t.toFixed(1)).join(' + ')})` : '';
  console.log(
    `${quiet ? '' : '(busy) '}${system.padEnd(8)} ${ms.toFixed(1).padStart(6)} ms = ` +
      `${delayMs > 0 ? (ms / delayMs).toFixed(2) : '-'} D  queries ${udp}  ` +
      `proxy ${proxyMs.toFixed(1)}${proxyParts}  nsd ${nsdMs.toFixed(1)}  threads: ${threads.join(', ')}`,
  );
}

try {
  for (const system of systemsText.split(',')) await burst(system); // warm-up
  for (let run = 0; run < runs; run++) for (const system of systemsText.split(',')) await burst(system);
} finally {
  await proxy.stop();
  await nsd.stop();
}
