/**
 * Memory of the core's cache in a fresh process run with --expose-gc: COUNT distinct A answers
 * of the bulk zone resolved through DnsCore + withCache(system backend), then the heap and the
 * buffers outside it (the answer packets) measured after full collections. Prints one JSON line.
 * Usage: node --expose-gc cache-heap-main.js ENDPOINT COUNT WARM_FROM
 * (names WARM_FROM .. WARM_FROM+1999 warm the JIT up; they must exist, as names 0..COUNT-1 must).
 */
import { DnsCore, withCache } from '@dnscore/core';
import { systemPlugin } from '../systems/dnscore.js';
import { bulkAddress, bulkName } from '../rig/zones.js';
import { settledMemory } from './settled-memory.js';

const [endpoint = '127.0.0.1:53', countText = '100000', warmText = '100000'] = process.argv.slice(2);
const count = Number(countText);
const warmFrom = Number(warmText);
const BATCH = 1000;

async function used(): Promise<{ heap: number; outside: number }> {
  const m = await settledMemory();
  return { heap: m.heapUsed, outside: m.external };
}

async function fill(core: DnsCore, from: number, to: number): Promise<number> {
  let packetBytes = 0;
  for (let i = from; i < to; i += BATCH) {
    const results = await Promise.all(
      Array.from({ length: Math.min(BATCH, to - i) }, (_, j) => core.resolve(bulkName(i + j), 'A')),
    );
    results.forEach((r, j) => {
      if (r.records[0]?.data !== bulkAddress(i + j))
        throw new Error(`${bulkName(i + j)}: wrong answer ${String(r.records[0]?.data)}`);
      packetBytes += r.answer.length;
    });
  }
  return packetBytes;
}

// The JIT warms up on a cache that is then dropped.
const warm = new DnsCore([withCache(systemPlugin(endpoint))]);
await fill(warm, warmFrom, warmFrom + 2000);
await warm.close();

const cache = withCache(systemPlugin(endpoint), { maxEntries: count + BATCH });
const core = new DnsCore([cache]);
const before = await used();
const packetBytes = await fill(core, 0, count);
const after = await used();
if (cache.stats.size !== count) throw new Error(`the cache holds ${cache.stats.size} entries, not ${count}`);
console.log(
  JSON.stringify({
    count,
    heapBytes: after.heap - before.heap,
    outsideBytes: after.outside - before.outside,
    packetBytes,
  }),
);
await core.close();
