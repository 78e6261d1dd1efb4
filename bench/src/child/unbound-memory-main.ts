/**
 * Memory of the libunbound addon over many questions, in a fresh process run with --expose-gc:
 * COUNT distinct A questions of the bulk zone through DnsCore over the libunbound backend (no
 * core cache), 1,000 at a time, each answer checked; heap and RSS after full collections at
 * the baseline (JIT warm), after COUNT/2 and COUNT questions, after close(), and 31 s later (the
 * backend has given libunbound's freed memory back by then). Prints one JSON line.
 * Usage: node --expose-gc unbound-memory-main.js ENDPOINT COUNT WARM_FROM
 */
import { DnsCore } from '@dnscore/core';
import { bulkAddress, bulkName } from '../rig/zones.js';
import { unboundPlugin } from '../systems/dnscore.js';
import { settledMemory } from './settled-memory.js';

const [endpoint = '127.0.0.1:53', countText = '100000', warmText = '100000'] = process.argv.slice(2);
const count = Number(countText);
const warmFrom = Number(warmText);
const BATCH = 1000;
const RETURNED_AFTER_MS = 31_000;

async function used(): Promise<{ heap: number; rss: number }> {
  const m = await settledMemory();
  return { heap: m.heapUsed, rss: m.rss };
}

async function ask(core: DnsCore, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += BATCH) {
    const results = await Promise.all(
      Array.from({ length: Math.min(BATCH, to - i) }, (_, j) => core.resolve(bulkName(i + j), 'A')),
    );
    results.forEach((r, j) => {
      if (r.records[0]?.data !== bulkAddress(i + j))
        throw new Error(`${bulkName(i + j)}: wrong answer ${String(r.records[0]?.data)} (rcode ${r.rcode})`);
    });
  }
}

const core = new DnsCore([unboundPlugin(endpoint)]);
await ask(core, warmFrom, warmFrom + 2000);
const baseline = await used();
const start = performance.now();
await ask(core, 0, count / 2);
const firstHalf = performance.now() - start;
const half = await used();
const resumed = performance.now();
await ask(core, count / 2, count);
const seconds = (firstHalf + performance.now() - resumed) / 1000; // without the pauses to measure
const after = await used();
await core.close();
const closed = await used();
// The backend gives freed memory back to the OS once the process has had no libunbound context for 30 s.
await new Promise((resolve) => setTimeout(resolve, RETURNED_AFTER_MS));
const returned = await used();
console.log(JSON.stringify({ count, seconds, baseline, half, after, closed, returned }));
