/**
 * The cost of dnscore's diagnostics channels: a DnsCore cache hit (the hottest path, no I/O)
 * with nobody subscribed, with no-op subscribers on every channel it publishes on, and after
 * they left. Nobody subscribed must be as fast as the hit path was before the channels: the
 * only work added there is one hasSubscribers read per channel.
 */
import diagnostics from 'node:diagnostics_channel';
import { DnsCore, ZoneResolver, withCache } from '@dnscore/core';
import { CHANNELS, queryChannel } from '@dnscore/core/diagnostics';
import { runsFor, type BenchContext, type Section } from './section.js';
import { throughputTable, type ThroughputSystem } from './throughput-table.js';

const ZONE = `$ORIGIN diag.example.
@    3600 IN SOA ns host 1 7200 3600 1209600 300
www  3600 IN A 192.0.2.80
`;
const EXPECTED = ['192.0.2.80'];

function hitPath(): DnsCore {
  return new DnsCore([withCache(new ZoneResolver({ zones: [{ text: ZONE }] }))]);
}

const noop = (): void => {};
const traceHandlers = { start: noop, end: noop, asyncStart: noop, asyncEnd: noop, error: noop };
const EVENTS = [CHANNELS.cacheHit, CHANNELS.cacheMiss, CHANNELS.bogus, CHANNELS.fallback];

let subscribed = false;

/** Subscribes the no-op listeners, or takes them away; nothing when already so. */
function listen(wanted: boolean): void {
  if (wanted === subscribed) return;
  subscribed = wanted;
  if (wanted) {
    queryChannel.subscribe(traceHandlers);
    for (const name of EVENTS) diagnostics.subscribe(name, noop);
  } else {
    queryChannel.unsubscribe(traceHandlers);
    for (const name of EVENTS) diagnostics.unsubscribe(name, noop);
  }
}

/** A system that runs with the listeners there or not: its first call of a window sets them. */
function system(name: string, wanted: boolean): ThroughputSystem {
  const core = hitPath();
  return {
    name,
    expected: EXPECTED,
    run: async () => {
      listen(wanted);
      return (await core.resolve('www.diag.example', 'A')).records.map((r) => r.data);
    },
    close: () => {
      listen(false);
      return core.close();
    },
  };
}

export async function diagnosticsCost(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const table = await throughputTable(
    {
      caption: 'DnsCore cache hits, one name',
      windowMs: ctx.quick ? 200 : 500,
      concurrency: 1,
      runs: runsFor(ctx, 7, 3),
    },
    [
      system('DnsCore hit, nobody subscribed', false),
      system('DnsCore hit, no-op subscribers on dnscore:query and the cache events', true),
    ],
    notes,
  );
  return {
    id: 'diagnostics',
    title: 'Diagnostics channels: the cost of nobody listening',
    method:
      'A DnsCore over a zone resolver behind the core cache answers the same A question from the cache, ' +
      'one call at a time; rows are interleaved run by run and each figure is the median of the runs.',
    tables: [table],
    notes,
  };
}
