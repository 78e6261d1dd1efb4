/**
 * Spans and metrics made from dnscore's channels, read back through the OpenTelemetry SDK's
 * in-memory span exporter and a metric reader: names, kinds, attributes, events, statuses and
 * values, exactly.
 */
import { fileURLToPath } from 'node:url';
import { INVALID_SPAN_CONTEXT, SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DnsCore,
  NetworkError,
  ZoneResolver,
  seededRandom,
  withCache,
  type Clock,
  type ResolverPlugin,
} from '@dnscore/core';
import { withServers } from '@dnscore/core/plugin';
import { queryChannel, sipLocateChannel } from '@dnscore/core/diagnostics';
import { SipLocator } from '@dnscore/sip';
import { DnscoreInstrumentation, withoutUser } from '@dnscore/otel';

const BILOXI_ZONE = fileURLToPath(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url));
const ZONE = `$ORIGIN feathers.
@      3600 IN SOA ns host 1 7200 3600 1209600 300
goose  3600 IN A 192.0.2.1
`;

/** The zone resolver's try, as a span event: the text zone above answered. */
const ZONE_SERVER = [
  'dnscore.server',
  {
    'dnscore.resolver': 'zone',
    'dnscore.server': 'zone feathers (text)',
    'network.transport': 'file',
    'dnscore.server.outcome': 'answer',
    'dnscore.rcode': 'NOERROR',
  },
];

class TestReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

let time = 0;
let exporter: InMemorySpanExporter;
let reader: TestReader;
let instrumentation: DnscoreInstrumentation;

beforeEach(() => {
  time = 1000;
  exporter = new InMemorySpanExporter();
  reader = new TestReader();
  instrumentation = new DnscoreInstrumentation({
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    meterProvider: new MeterProvider({ readers: [reader] }),
    now: () => time,
  }).enable();
});
afterEach(() => instrumentation.disable());

/** A zone resolver that takes `ms` of the test's clock per question. */
function slowZone(ms: number, change: (answer: Awaited<ReturnType<ResolverPlugin['resolve']>>) => object = (a) => a) {
  const zone = new ZoneResolver({ zones: [{ text: ZONE }], name: 'zone' });
  const plugin: ResolverPlugin = {
    name: 'zone',
    priority: 50,
    available: () => true,
    close: () => {},
    resolve: async (query, signal) => {
      time += ms;
      return change(await zone.resolve(query, signal)) as Awaited<ReturnType<ResolverPlugin['resolve']>>;
    },
  };
  return plugin;
}

function failing(name: string, priority: number, error: Error): ResolverPlugin {
  return {
    name,
    priority,
    available: () => true,
    close: () => {},
    resolve: async () => {
      time += 5;
      throw error;
    },
  };
}

async function metric(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (found?.dataPoints ?? []) as DataPoint<unknown>[];
}

const points = (list: DataPoint<unknown>[]) => list.map((p) => [p.attributes, p.value]);
const histogram = (list: DataPoint<unknown>[]) =>
  list.map((p) => [p.attributes, (p.value as Histogram).count, (p.value as Histogram).sum]);

describe('DNS queries', () => {
  it('makes one CLIENT span per query and times it in dns.lookup.duration, a miss then a hit', async () => {
    const core = new DnsCore([withCache(slowZone(12))]);
    await core.resolve('goose.feathers', 'A');
    await core.resolve('goose.feathers', 'A');
    const spans = exporter.getFinishedSpans();
    expect(
      spans.map((s) => [s.name, s.kind, s.status.code, s.attributes, s.events.map((e) => [e.name, e.attributes])]),
    ).toEqual([
      [
        'DNS A',
        SpanKind.CLIENT,
        SpanStatusCode.UNSET,
        {
          'dns.question.name': 'goose.feathers',
          'dnscore.question.type': 'A',
          'dnscore.cache': 'miss',
          'dnscore.attempts': 1,
          'dnscore.resolver': 'zone',
          'dnscore.rcode': 'NOERROR',
          'dnscore.dnssec': 'insecure',
        },
        [['dnscore.attempt', { 'dnscore.resolver': 'zone' }], ZONE_SERVER],
      ],
      [
        'DNS A',
        SpanKind.CLIENT,
        SpanStatusCode.UNSET,
        {
          'dns.question.name': 'goose.feathers',
          'dnscore.question.type': 'A',
          'dnscore.cache': 'hit',
          'dnscore.attempts': 0,
          'dnscore.resolver': 'zone',
          'dnscore.rcode': 'NOERROR',
          'dnscore.dnssec': 'insecure',
        },
        [],
      ],
    ]);
    expect(histogram(await metric('dns.lookup.duration'))).toEqual([
      [{ 'dns.question.name': 'goose.feathers' }, 2, 0.012],
    ]);
    expect(points(await metric('dnscore.cache.lookups'))).toEqual([
      [{ 'dnscore.cache': 'miss', 'dnscore.resolver': 'zone' }, 1],
      [{ 'dnscore.cache': 'hit', 'dnscore.resolver': 'zone' }, 1],
    ]);
  });

  it('records a fallback as an attempt event and a counter; a failed lookup gets error.type', async () => {
    const refused = new NetworkError('ECONNREFUSED');
    await new DnsCore([failing('a', 1, refused), slowZone(3)]).resolve('goose.feathers');
    await expect(new DnsCore([failing('a', 1, refused)]).resolve('goose.feathers')).rejects.toBe(refused);
    const [fellBack, failed] = exporter.getFinishedSpans();
    expect(fellBack!.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'dnscore.attempt',
        { 'dnscore.resolver': 'a', 'error.type': 'DNS_ERR_NETWORK', 'exception.message': 'ECONNREFUSED' },
      ],
      ['dnscore.attempt', { 'dnscore.resolver': 'zone' }],
      ZONE_SERVER,
    ]);
    expect(fellBack!.status.code).toBe(SpanStatusCode.UNSET);
    expect([failed!.status, failed!.attributes['error.type'], failed!.attributes['dnscore.resolver']]).toEqual([
      { code: SpanStatusCode.ERROR, message: 'ECONNREFUSED' },
      'DNS_ERR_NETWORK',
      undefined,
    ]);
    expect(failed!.events.map((e) => e.name)).toEqual(['dnscore.attempt', 'exception']);
    expect(points(await metric('dnscore.resolver.fallbacks'))).toEqual([
      [{ 'dnscore.resolver': 'a', 'error.type': 'DNS_ERR_NETWORK' }, 2],
    ]);
    expect(histogram(await metric('dns.lookup.duration'))).toEqual([
      [{ 'dns.question.name': 'goose.feathers' }, 1, 0.008],
      [{ 'dns.question.name': 'goose.feathers', 'error.type': 'DNS_ERR_NETWORK' }, 1, 0.005],
    ]);
  });

  it('says NXDOMAIN and bogus answers are failed lookups, and counts the bogus ones with their EDE', async () => {
    await new DnsCore([slowZone(1)]).resolve('fox.feathers');
    const bogus = slowZone(1, (a) => ({ ...a, bogus: true, ede: 7, whyBogus: 'signature expired' }));
    await new DnsCore([bogus]).resolve('goose.feathers');
    const [nx, bad] = exporter.getFinishedSpans();
    expect([nx!.attributes['error.type'], nx!.attributes['dnscore.rcode'], nx!.status]).toEqual([
      'NXDOMAIN',
      'NXDOMAIN',
      { code: SpanStatusCode.ERROR, message: 'NXDOMAIN' },
    ]);
    expect([
      bad!.attributes['error.type'],
      bad!.attributes['dnscore.dnssec'],
      bad!.attributes['dnscore.ede'],
      bad!.status,
    ]).toEqual(['DNSSEC_BOGUS', 'bogus', 7, { code: SpanStatusCode.ERROR, message: 'signature expired' }]);
    expect(points(await metric('dnscore.dnssec.bogus'))).toEqual([
      [{ 'dnscore.resolver': 'zone', 'dnscore.ede': 7 }, 1],
    ]);
    expect(histogram(await metric('dns.lookup.duration'))).toEqual([
      [{ 'dns.question.name': 'fox.feathers', 'error.type': 'NXDOMAIN' }, 1, 0.001],
      [{ 'dns.question.name': 'goose.feathers', 'error.type': 'DNSSEC_BOGUS' }, 1, 0.001],
    ]);
  });
});

describe('SIP location and failover', () => {
  const URI = 'sip:bob@biloxi.example;transport=udp';

  it('makes a span per location (no user part), failover events and penalty counts', async () => {
    const core = new DnsCore([new ZoneResolver({ files: [BILOXI_ZONE] })], { random: seededRandom(1) });
    const locator = new SipLocator(core, {
      clock: { now: () => 1_700_000_000_000 },
    });
    const cursor = locator.cursor(URI);
    const first = await cursor.next();
    cursor.report(first!, { type: 'response', status: 503, retryAfter: 30 });
    const second = await cursor.next();
    cursor.report(second!, { type: 'response', status: 200 });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['DNS SRV', 'DNS AAAA', 'DNS A', 'SIP locate', 'SIP failover']);
    const locate = spans.find((s) => s.name === 'SIP locate')!;
    expect([locate.kind, locate.status.code, locate.attributes]).toEqual([
      SpanKind.INTERNAL,
      SpanStatusCode.UNSET,
      {
        'dnscore.sip.uri': 'sip:biloxi.example;transport=udp',
        'dnscore.sip.targets': 3,
        'dnscore.sip.round_trips': 1,
        'dnscore.sip.queries': 3,
        'dnscore.sip.rule': 'transport-param',
        'network.transport': 'udp',
        'server.address': 'sip1.biloxi.example',
        'server.port': 5060,
        'network.peer.address': '203.0.113.11',
      },
    ]);
    const failover = spans.find((s) => s.name === 'SIP failover')!;
    expect(failover.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'dnscore.sip.failover',
        {
          'dnscore.sip.uri': 'sip:biloxi.example;transport=udp',
          'dnscore.sip.failover.from': 'udp 203.0.113.11:5060',
          'dnscore.sip.failover.to': 'udp 203.0.113.12:5060',
          'dnscore.sip.failover.reason': '503 Service Unavailable',
          'dnscore.sip.failover.index': 0,
          'dnscore.sip.failover.elapsed_ms': 0,
        },
      ],
    ]);
    expect(points(await metric('dnscore.sip.failovers'))).toEqual([
      [{ 'dnscore.sip.failover.reason': '503 Service Unavailable', 'network.transport': 'udp' }, 1],
    ]);
    expect(points(await metric('dnscore.sip.penalty.changes'))).toEqual([
      [{ 'dnscore.sip.penalty.event': 'enter', 'dnscore.sip.penalty.reason': 'retry-after' }, 1],
    ]);
  });

  it('names the server by its domain name, and by its address when the URI gives only that', async () => {
    const locator = new SipLocator(new DnsCore([new ZoneResolver({ files: [BILOXI_ZONE] })]));
    await locator.resolve('sip:sip2.biloxi.example;transport=tcp');
    await locator.resolve('sip:[2001:db8::1]:5070;transport=udp');
    const attributes = exporter
      .getFinishedSpans()
      .filter((s) => s.name === 'SIP locate')
      .map((s) => [s.attributes['server.address'], s.attributes['server.port'], s.attributes['network.peer.address']]);
    expect(attributes).toEqual([
      ['sip2.biloxi.example', 5060, '203.0.113.12'],
      ['2001:db8::1', 5070, '2001:db8::1'],
    ]);
  });

  it('keeps the user part out of the URI attribute, also one holding ";" or "?"', async () => {
    const locator = new SipLocator(new DnsCore([new ZoneResolver({ files: [BILOXI_ZONE] })]));
    await locator.resolve('sip:+1-212-555-1212;npdi@biloxi.example;user=phone');
    await locator.resolve('SIPS:alice;day=tuesday?x:secret@biloxi.example');
    const uris = exporter
      .getFinishedSpans()
      .filter((s) => s.name === 'SIP locate')
      .map((s) => s.attributes['dnscore.sip.uri']);
    expect(uris).toEqual(['sip:biloxi.example;user=phone', 'SIPS:biloxi.example']);
    const noUser = 'sip:biloxi.example;maddr=192.0.2.1?subject=x';
    expect(withoutUser(noUser)).toBe(noUser);
  });

  it('marks a location without targets as an error', async () => {
    const locator = new SipLocator(new DnsCore([new ZoneResolver({ files: [BILOXI_ZONE] })]));
    await locator.resolve('sip:alice@nowhere.biloxi.example');
    const locate = exporter.getFinishedSpans().find((s) => s.name === 'SIP locate')!;
    expect([locate.status.code, locate.attributes['error.type'], locate.attributes['dnscore.sip.targets']]).toEqual([
      SpanStatusCode.ERROR,
      'SIP_ERR_NO_TARGETS',
      0,
    ]);
  });
});

describe('enable and disable', () => {
  it('makes nothing once disabled, and enable() twice subscribes once', async () => {
    instrumentation.enable();
    const core = new DnsCore([slowZone(1)]);
    await core.resolve('goose.feathers');
    instrumentation.disable();
    await core.resolve('goose.feathers');
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    expect(instrumentation.enabled).toBe(false);
  });
});

describe('disable with spans open', () => {
  it('ends and measures the spans still open when their work ends, and starts no new one', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const zone = slowZone(3);
    const gated: ResolverPlugin = {
      ...zone,
      resolve: async (query, signal) => gate.then(() => zone.resolve(query, signal)),
    };
    const core = new DnsCore([gated]);
    const locator = new SipLocator(core);
    const located = locator.resolve('sip:goose.feathers;transport=udp');
    const first = core.resolve('goose.feathers');
    instrumentation.disable();
    const second = core.resolve('goose.feathers', 'AAAA');
    const later = locator.resolve('sip:goose.feathers;transport=tcp');
    open();
    await Promise.all([located, first, second, later]);
    const spans = exporter.getFinishedSpans();
    // The first query and the location's first round had begun: they end; what came after has no span.
    const locate = spans.find((s) => s.name === 'SIP locate')!;
    expect(
      spans.map((s) => [
        s.name,
        s.attributes['dns.question.name'] ?? s.attributes['dnscore.sip.uri'],
        s.parentSpanContext?.spanId === locate.spanContext().spanId,
      ]),
    ).toEqual([
      ['DNS A', 'goose.feathers', false],
      ['DNS SRV', '_sip._udp.goose.feathers', true],
      ['DNS AAAA', 'goose.feathers', true],
      ['DNS A', 'goose.feathers', true],
      ['SIP locate', 'sip:goose.feathers;transport=udp', false],
    ]);
    expect(spans[0]!.attributes['dnscore.attempts']).toBe(1);
    expect(locate.attributes['dnscore.sip.targets']).toBe(1);
    expect(histogram(await metric('dns.lookup.duration')).map(([name, count]) => [name, count])).toEqual([
      [{ 'dns.question.name': 'goose.feathers' }, 3],
      [{ 'dns.question.name': '_sip._udp.goose.feathers', 'error.type': 'NXDOMAIN' }, 1],
    ]);
    // Every open span ended: dnscore is back to one hasSubscribers read.
    expect(queryChannel.hasSubscribers).toBe(false);
    expect(sipLocateChannel.hasSubscribers).toBe(false);
  });
});

describe('spans no one records', () => {
  it('are only ended: no attribute, event or status is built for them', async () => {
    const calls: string[] = [];
    const span = new Proxy({} as Span, {
      get: (_target, name) => {
        if (name === 'isRecording') return () => false;
        if (name === 'spanContext') return () => INVALID_SPAN_CONTEXT;
        return () => {
          calls.push(String(name));
          return span;
        };
      },
    });
    const tracer = {
      startSpan: (name: string) => {
        calls.push(name);
        return span;
      },
    } as unknown as Tracer;
    instrumentation.disable();
    const quiet = new DnscoreInstrumentation({ tracerProvider: { getTracer: () => tracer } }).enable();
    try {
      const core = new DnsCore([failing('down', 10, new NetworkError('refused')), slowZone(1)]);
      await core.resolve('goose.feathers');
      await core.resolve('nowhere.feathers');
      const cursor = new SipLocator(new DnsCore([new ZoneResolver({ files: [BILOXI_ZONE] })])).cursor(
        'sip:biloxi.example;transport=udp',
      );
      cursor.report((await cursor.next())!, { type: 'response', status: 503 });
      await cursor.next();
      expect(calls).toEqual([
        ...['DNS A', 'end', 'DNS A', 'end'],
        ...['SIP locate', 'DNS SRV', 'DNS AAAA', 'DNS A', 'end', 'end', 'end', 'end'],
        ...['SIP failover', 'end'],
      ]);
    } finally {
      quiet.disable();
    }
  });
});

describe('servers, stale answers and prefetches', () => {
  it('adds one dnscore.server event per try after its attempt, with transport, outcome and rcode', async () => {
    const down = withServers(new NetworkError('no answer'), [
      { server: '192.0.2.53:53', transport: 'udp', outcome: 'timeout' },
      { server: '192.0.2.53:53', transport: 'tcp', outcome: 'error', error: 'ECONNREFUSED' },
    ]);
    const zone = new ZoneResolver({ zones: [{ text: ZONE, file: '/srv/feathers.zone' }] });
    await new DnsCore([failing('system', 1, down), zone]).resolve('goose.feathers');
    const [span] = exporter.getFinishedSpans();
    expect(span!.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'dnscore.attempt',
        { 'dnscore.resolver': 'system', 'error.type': 'DNS_ERR_NETWORK', 'exception.message': 'no answer' },
      ],
      [
        'dnscore.server',
        {
          'dnscore.resolver': 'system',
          'dnscore.server': '192.0.2.53:53',
          'network.transport': 'udp',
          'dnscore.server.outcome': 'timeout',
        },
      ],
      [
        'dnscore.server',
        {
          'dnscore.resolver': 'system',
          'dnscore.server': '192.0.2.53:53',
          'network.transport': 'tcp',
          'dnscore.server.outcome': 'error',
          'exception.message': 'ECONNREFUSED',
        },
      ],
      ['dnscore.attempt', { 'dnscore.resolver': 'zone' }],
      [
        'dnscore.server',
        {
          'dnscore.resolver': 'zone',
          'dnscore.server': 'zone file /srv/feathers.zone',
          'network.transport': 'file',
          'dnscore.server.outcome': 'answer',
          'dnscore.rcode': 'NOERROR',
        },
      ],
    ]);
  });

  it('counts stale answers by reason and prefetches by event, and marks a stale answer on its span', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now };
    let down = false;
    const zone = new ZoneResolver({ zones: [{ text: ZONE }] });
    const flaky: ResolverPlugin = {
      name: 'flaky',
      priority: 1,
      available: () => true,
      close: () => {},
      resolve: async (query, signal) => {
        if (down) throw new NetworkError('unreachable');
        return zone.resolve(query, signal);
      },
    };
    // goose.feathers lives 3600 s: a hit after 3300 s prefetches, one after 3700 s is stale.
    const core = new DnsCore([withCache(flaky, { clock, serveStale: true, prefetch: true })]);
    await core.resolve('goose.feathers');
    now += 3_300_000;
    await core.resolve('goose.feathers');
    await new Promise((resolve) => setImmediate(resolve));
    down = true;
    now += 3_700_000;
    const stale = await core.resolve('goose.feathers');
    now += 1_000;
    await core.resolve('goose.feathers');
    expect(stale.stale).toBe(true);
    expect(points(await metric('dnscore.cache.prefetches'))).toEqual([
      [{ 'dnscore.resolver': 'flaky', 'dnscore.cache.prefetch.event': 'start' }, 1],
      [{ 'dnscore.resolver': 'flaky', 'dnscore.cache.prefetch.event': 'finish' }, 1],
    ]);
    expect(points(await metric('dnscore.cache.stale'))).toEqual([
      [{ 'dnscore.resolver': 'flaky', 'dnscore.cache.stale.reason': 'failed' }, 1],
      [{ 'dnscore.resolver': 'flaky', 'dnscore.cache.stale.reason': 'recheck' }, 1],
    ]);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.attributes['dnscore.stale'])).toEqual([undefined, undefined, true, true]);
  });
});

describe('DNS spans under the SIP location that made them', () => {
  const locateSpans = () => exporter.getFinishedSpans().filter((s) => s.name === 'SIP locate');
  const parentOf = (name: string) =>
    exporter
      .getFinishedSpans()
      .filter((s) => s.name === name)
      .map((s) => s.parentSpanContext?.spanId);

  it('parents every query span to its location, misses, joined queries and cache hits alike', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const zone = new ZoneResolver({ files: [BILOXI_ZONE] });
    let asked = 0;
    const slow: ResolverPlugin = {
      name: 'zone',
      priority: 50,
      available: () => true,
      close: () => {},
      resolve: async (query, signal) => {
        asked++;
        await gate;
        return zone.resolve(query, signal);
      },
    };
    const core = new DnsCore([withCache(slow)], { random: seededRandom(1) });
    const locator = new SipLocator(core);
    // Two locations at once: the second's queries join the first's in the cache.
    const both = Promise.all([
      locator.resolve('sip:bob@biloxi.example;transport=udp'),
      locator.resolve('sip:carol@biloxi.example;transport=udp'),
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await both;
    // A third, later: its queries are cache hits (another URI: no target plan to reuse).
    await locator.resolve('sip:dave@biloxi.example;transport=udp');
    // Its answers were all cached: the next location of that URI comes from its target plan.
    await locator.resolve('sip:dave@biloxi.example;transport=udp');
    // Three questions reached the backend for nine asked: the rest joined or hit the cache.
    expect(asked).toBe(3);
    const [first, second, third, planned] = locateSpans();
    expect([planned!.attributes['dnscore.sip.planned'], third!.attributes['dnscore.sip.planned']]).toEqual([
      true,
      undefined,
    ]);
    const ids = [first, second, third].map((s) => s!.spanContext().spanId);
    expect(new Set(ids).size).toBe(3);
    expect([first, second, third].map((s) => s!.parentSpanContext)).toEqual([undefined, undefined, undefined]);
    const dns = exporter.getFinishedSpans().filter((s) => s.name.startsWith('DNS '));
    // The two first locations end their queries interleaved: each is read by its parent.
    const under = (i: number) =>
      dns
        .filter((s) => s.parentSpanContext?.spanId === ids[i])
        .map((s) => [s.name, s.attributes['dnscore.cache'], s.spanContext().traceId === locateTrace(i)]);
    const locateTrace = (i: number) => [first, second, third][i]!.spanContext().traceId;
    expect(dns).toHaveLength(9);
    expect([under(0), under(1), under(2)]).toEqual([
      [
        ['DNS SRV', 'miss', true],
        ['DNS AAAA', 'miss', true],
        ['DNS A', 'miss', true],
      ],
      [
        ['DNS SRV', 'miss', true],
        ['DNS AAAA', 'miss', true],
        ['DNS A', 'miss', true],
      ],
      [
        ['DNS SRV', 'hit', true],
        ['DNS AAAA', 'hit', true],
        ['DNS A', 'hit', true],
      ],
    ]);
  });

  it('leaves a query outside any location without a parent', async () => {
    await new DnsCore([slowZone(1)]).resolve('goose.feathers');
    expect(parentOf('DNS A')).toEqual([undefined]);
  });
});

describe('SIP box and affinity counters', () => {
  it('counts a penalty that expired with the reason the entry had, and Call-ID pins', async () => {
    let now = 1_700_000_000_000;
    const locator = new SipLocator(new DnsCore([new ZoneResolver({ files: [BILOXI_ZONE] })]), {
      clock: { now: () => now },
    });
    const where = { transport: 'udp' as const, address: '203.0.113.11', port: 5060 };
    locator.penaltyBox.markFailed(where, { retryAfter: 30, reason: 'retry-after' });
    now += 31_000;
    expect(locator.penaltyBox.isPenalized(where)).toBe(false);
    locator.dialogs.learnOutgoing('call-1@biloxi.example', where);
    locator.dialogs.learnIncoming('call-2@biloxi.example', where);
    expect(points(await metric('dnscore.sip.penalty.changes'))).toEqual([
      [{ 'dnscore.sip.penalty.event': 'enter', 'dnscore.sip.penalty.reason': 'retry-after' }, 1],
      [
        {
          'dnscore.sip.penalty.event': 'leave',
          'dnscore.sip.penalty.reason': 'expired',
          'dnscore.sip.penalty.entry_reason': 'retry-after',
        },
        1,
      ],
    ]);
    expect(points(await metric('dnscore.sip.affinity.pins'))).toEqual([
      [{ 'dnscore.sip.affinity.learned': 'outgoing', 'network.transport': 'udp' }, 1],
      [{ 'dnscore.sip.affinity.learned': 'incoming', 'network.transport': 'udp' }, 1],
    ]);
  });
});
