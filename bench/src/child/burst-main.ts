/**
 * One burst in a fresh process (so its peak RSS is its own): COUNT distinct names of the bulk
 * zone asked at once, each answer checked. Prints one JSON line.
 * Usage: node burst-main.js SYSTEM ENDPOINT COUNT   (SYSTEM: dnscore-system | node-dns)
 */
import { promises as dnsPromises } from 'node:dns';
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { DnsCore, type DnsResult, type TypedRecord } from '@dnscore/core';
import { systemPlugin } from '../systems/dnscore.js';
import { bulkAddress, bulkName } from '../rig/zones.js';
import { percentile } from '../stats.js';

const [system = 'dnscore-system', endpoint = '127.0.0.1:53', countText = '10000'] = process.argv.slice(2);
const count = Number(countText);
const WARM_UP = 500;

type Lookup = (name: string) => Promise<string[]>;

/**
 * This process's peak RSS: VmHWM of its own memory map. getrusage's maxrss would not do: Linux
 * carries it over a fork and exec, so a child started by a big parent reports the parent's RSS.
 */
function peakRss(): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  if (!hwm) throw new Error('no VmHWM in /proc/self/status');
  return Number(hwm[1]) * 1024;
}

function lookupFor(kind: string): { lookup: Lookup; close(): Promise<void> | void } {
  if (kind === 'dnscore-system') {
    const core = new DnsCore([systemPlugin(endpoint, { timeoutMs: 5000 })]);
    return {
      lookup: (name) => core.resolveWith(name, 'A', addressesOf),
      close: () => core.close(),
    };
  }
  if (kind === 'node-dns') {
    // c-ares's defaults (timeout 5 s, 4 tries): under a burst some datagrams are lost and retried.
    const resolver = new dnsPromises.Resolver();
    resolver.setServers([endpoint]);
    return { lookup: (name) => resolver.resolve4(name), close: () => resolver.cancel() };
  }
  throw new Error(`unknown system ${kind}`);
}

const { lookup, close } = lookupFor(system);
// Warm-up on other names: the JIT and the first sockets, not the measured answers.
await Promise.allSettled(Array.from({ length: WARM_UP }, (_, i) => lookup(bulkName(count + i))));
const rssBefore = process.memoryUsage().rss;
const latencies = new Array<number>(count);
let wrong = 0;
let failed = 0;
let firstError: string | undefined;
const start = performance.now();
await Promise.all(
  Array.from({ length: count }, async (_, i) => {
    try {
      const addresses = await lookup(bulkName(i));
      if (addresses.length !== 1 || addresses[0] !== bulkAddress(i)) wrong++;
    } catch (error) {
      failed++;
      firstError ??= String(error);
    }
    latencies[i] = performance.now() - start;
  }),
);
const totalMs = performance.now() - start;
const { young, old } = heapPagesTouched();
await close();
console.log(
  JSON.stringify({
    system,
    count,
    totalMs,
    perSecond: count / (totalMs / 1000),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    rssBefore,
    peakRss: peakRss(),
    youngBytes: young,
    oldBytes: old,
    wrong,
    failed,
    firstError,
  }),
);

/**
 * The pages of V8's young and old generations that hold memory now (physical_space_size): a
 * young generation grown to 16 MB semispaces costs RSS only where allocation has touched it.
 */
function heapPagesTouched(): { young: number; old: number } {
  const spaces = getHeapSpaceStatistics();
  const physical = (name: string): number => spaces.find((s) => s.space_name === name)?.physical_space_size ?? 0;
  return { young: physical('new_space'), old: physical('old_space') };
}

/**
 * A result's addresses, picked as the result is made (resolveWith): the caller's promise holds
 * the addresses, as node:dns's does, not the whole result; one function for every question.
 */
function addressesOf(result: DnsResult<TypedRecord<'A'>>): string[] {
  return result.records.map((r) => r.data);
}
