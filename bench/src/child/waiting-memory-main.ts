/**
 * What a waiting question holds, in a fresh process run with --expose-gc: COUNT distinct A
 * questions asked at once of a UDP server in this process that never answers, so every one of
 * them is still waiting (in flight or queued) when memory is measured, after full collections.
 * Native memory counts too: node:dns keeps its questions in c-ares and its own C++ objects,
 * allocated with malloc, which neither the JS heap nor `external` shows. It is the RSS less
 * the pages of V8's heap (v8.getHeapSpaceStatistics' physical sizes): malloc's arenas and
 * mappings, the sockets' buffers, and whatever else the process touched outside V8's heap.
 * Prints one JSON line.
 * Usage: node --expose-gc waiting-memory-main.js SYSTEM COUNT
 *   (SYSTEM: dnscore-system | dnscore-cached | node-dns)
 */
import { createSocket } from 'node:dgram';
import { promises as dnsPromises } from 'node:dns';
import { DnsCore, withCache, type DnsResult, type TypedRecord } from '@dnscore/core';
import { systemPlugin } from '../systems/dnscore.js';
import { bulkName } from '../rig/zones.js';
import { getHeapSpaceStatistics } from 'node:v8';
import { settledMemory } from './settled-memory.js';

const [system = 'dnscore-system', countText = '10000'] = process.argv.slice(2);
const count = Number(countText);
// Nobody waits this long: the questions are cancelled (closed) once measured.
const TIMEOUT_MS = 120_000;

const silent = createSocket('udp4');
await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
silent.on('message', () => {});
const endpoint = `127.0.0.1:${silent.address().port}`;

function lookupFor(kind: string): { lookup(name: string): Promise<string[]>; close(): Promise<void> | void } {
  if (kind === 'dnscore-system' || kind === 'dnscore-cached') {
    const plugin = systemPlugin(endpoint, { timeoutMs: TIMEOUT_MS });
    const core = new DnsCore([kind === 'dnscore-cached' ? withCache(plugin) : plugin]);
    return {
      lookup: (name) => core.resolveWith(name, 'A', addressesOf),
      close: () => core.close(),
    };
  }
  if (kind === 'node-dns') {
    const resolver = new dnsPromises.Resolver({ timeout: TIMEOUT_MS, tries: 1 });
    resolver.setServers([endpoint]);
    return { lookup: (name) => resolver.resolve4(name), close: () => resolver.cancel() };
  }
  throw new Error(`unknown system ${kind}`);
}

/** RSS outside V8's heap pages: native memory (see the header). */
function nativeRss(memory: NodeJS.MemoryUsage): number {
  let heapPages = 0;
  for (const space of getHeapSpaceStatistics()) heapPages += space.physical_space_size;
  return memory.rss - heapPages;
}

const { lookup, close } = lookupFor(system);
const before = await settledMemory();
const nativeBefore = nativeRss(before);
// The same caller for both systems: an async function per question awaiting the lookup.
const waiting = Array.from({ length: count }, async (_, i) => {
  try {
    await lookup(bulkName(i));
  } catch {
    // cancelled by close()
  }
});
const during = await settledMemory();
const nativeDuring = nativeRss(during);
await close();
await Promise.all(waiting);
silent.close();
console.log(
  JSON.stringify({
    system,
    count,
    heapBytes: during.heapUsed - before.heapUsed,
    outsideBytes: during.external - before.external,
    nativeBytes: nativeDuring - nativeBefore,
    rssBytes: during.rss - before.rss,
  }),
);

/**
 * A result's addresses, picked as the result is made (resolveWith): the caller's promise holds
 * the addresses, as node:dns's does, not the whole result; one function for every question.
 */
function addressesOf(result: DnsResult<TypedRecord<'A'>>): string[] {
  return result.records.map((r) => r.data);
}
