/**
 * The cost of dnscore's diagnostics channels: a DnsCore cache hit (the hottest path, no I/O)
 * with nobody subscribed, with no-op subscribers on every channel it publishes on, and after
 * they left. Nobody subscribed must be as fast as the hit path was before the channels: the
 * only work added there is one hasSubscribers read per channel. Then a backend answer (the zone
 * resolver, no cache) the same two ways: subscribed, the trace also records the servers asked.
 */
import diagnostics from 'node:diagnostics_channel';
import { DnsCore, ZoneResolver, withCache } from '@dnscore/core';
import { CHANNELS, queryChannel } from '@dnscore/core/diagnostics';
import { DnscoreInstrumentation } from '@dnscore/otel';
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

/** Every question asks the backend: the registry, the zone resolver, the result builder. */
function missPath(): DnsCore {
  return new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] })]);
}

const noop = (): void => {};
const traceHandlers = { start: noop, end: noop, asyncStart: noop, asyncEnd: noop, error: noop };
const EVENTS = [
  CHANNELS.cacheHit,
  CHANNELS.cacheMiss,
  CHANNELS.cacheStale,
  CHANNELS.cachePrefetch,
  CHANNELS.bogus,
  CHANNELS.fallback,
];

type Listeners = 'none' | 'no-op' | 'otel';
let subscribed: Listeners = 'none';
/** @dnscore/otel over the OpenTelemetry API with no SDK registered: its handlers run, spans are no-ops. */
const otel = new DnscoreInstrumentation();

/** Puts the wanted listeners in place of the others; nothing when already so. */
function listen(wanted: Listeners): void {
  if (wanted === subscribed) return;
  if (subscribed === 'no-op') {
    queryChannel.unsubscribe(traceHandlers);
    for (const name of EVENTS) diagnostics.unsubscribe(name, noop);
  } else if (subscribed === 'otel') otel.disable();
  subscribed = wanted;
  if (wanted === 'no-op') {
    queryChannel.subscribe(traceHandlers);
    for (const name of EVENTS) diagnostics.subscribe(name, noop);
  } else if (wanted === 'otel') otel.enable();
}

/** A system that runs with its listeners: its first call of a window puts them in place. */
function system(name: string, wanted: Listeners, core = hitPath()): ThroughputSystem {
  return {
    name,
    expected: EXPECTED,
    run: async () => {
      listen(wanted);
      return (await core.resolve('www.diag.example', 'A')).records.map((r) => r.data);
    },
    close: () => {
      listen('none');
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
      system('DnsCore hit, nobody subscribed', 'none'),
      system('DnsCore hit, no-op subscribers on dnscore:query and the cache events', 'no-op'),
      system('DnsCore hit, @dnscore/otel enabled (API without an SDK: no-op spans)', 'otel'),
    ],
    notes,
  );
  const misses = await throughputTable(
    {
      caption: 'DnsCore backend answers (zone resolver, no cache), one name',
      windowMs: ctx.quick ? 200 : 500,
      concurrency: 1,
      runs: runsFor(ctx, 7, 3),
    },
    [
      system('DnsCore backend answer, nobody subscribed', 'none', missPath()),
      system('DnsCore backend answer, no-op subscribers (the trace records the zone file asked)', 'no-op', missPath()),
      system('DnsCore backend answer, @dnscore/otel enabled (API without an SDK)', 'otel', missPath()),
    ],
    notes,
  );
  return {
    id: 'diagnostics',
    title: '9. Diagnostics channels: the cost of nobody listening',
    method:
      'A DnsCore over a zone resolver behind the core cache answers the same A question from the cache, ' +
      'one call at a time; then one without a cache asks the zone resolver each time. Rows are interleaved ' +
      'run by run and each figure is the median of the runs.',
    tables: [table, misses],
    notes,
  };
}
