/**
 * Part 6: @dnscore/node-dns, the node:dns-compatible lookup and Resolver, against what a Node.js
 * application uses instead: dns.lookup (getaddrinfo on libuv's thread pool), cacheable-lookup
 * (a lookup with a cache over dns.resolve4/6) and node:dns's Resolver. Names come from an nsd of
 * this part's own, whose one address is 127.0.0.1, so the HTTP figures reach a real local server.
 */
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import CacheableLookup from 'cacheable-lookup';
import { DnsCore, withCache } from '@dnscore/core';
import { NodeDnsPromiseResolver, createLookup } from '@dnscore/node-dns';
import { startNsd } from '../rig/support.js';
import { systemPlugin } from '../systems/dnscore.js';
import { expectSameSet } from '../systems/check.js';
import { count, formatSummary, percentile, summarize } from '../stats.js';
import { runsFor, type BenchContext, type Section, type Table } from './section.js';
import { throughputTable, type ThroughputSystem } from './throughput-table.js';

const ZONE = 'nodedns.example';
const NAME = `web.${ZONE}`;
const ZONE_TEXT = `$ORIGIN ${ZONE}.
$TTL 3600
@   IN SOA ns1 hostmaster 2026120101 7200 900 1209600 300
    IN NS  ns1
ns1 IN A   127.0.0.1
web IN A   127.0.0.1
`;
/** Lookup chains in flight (what a busy server's connects give). */
const LOOKUP_CHAINS = 16;
const HTTP_GETADDRINFO = 'http.get, dns.lookup("localhost")';
const HTTP_FLOOR = 'http.get to 127.0.0.1, no lookup';

/** What net passes to a lookup when autoSelectFamily is on (Node 20's default). */
const NET_OPTIONS = { all: true, hints: dns.ADDRCONFIG } as const;

type Lookup = (hostname: string, options: object, callback: (error: Error | null, addresses: unknown) => void) => void;

/** One system of an interleaved table: `measure(round)` gives its figure of that round. */
interface Variant {
  readonly name: string;
  /** Throws when the system's answer is wrong; the figures of a wrong system mean nothing. */
  check(): Promise<void>;
}

interface LookupVariant extends Variant {
  readonly lookup: Lookup;
  readonly hostname: string;
}

interface HttpVariant extends Variant {
  readonly url: string;
  readonly lookup: Lookup | undefined;
}

/** The addresses a lookup gives in the form net asks for, as "address/family" lines. */
function lookupLines(lookup: Lookup, hostname: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    lookup(hostname, NET_OPTIONS, (error, addresses) =>
      error
        ? reject(error)
        : resolve((addresses as { address: string; family: number }[]).map((a) => `${a.address}/${a.family}`)),
    ),
  );
}

/**
 * Lookups per second: `concurrency` chains, each calling the lookup again from its callback, as
 * net calls it (a callback, no promise around it), until `windowMs` has passed.
 */
function lookupRate(lookup: Lookup, hostname: string, windowMs: number, concurrency: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let done = 0;
    let chains = concurrency;
    let failed = false;
    const start = performance.now();
    const end = start + windowMs;
    const next = (error: Error | null): void => {
      if (failed) return;
      if (error) {
        failed = true;
        reject(error);
        return;
      }
      done++;
      if (performance.now() < end) lookup(hostname, NET_OPTIONS, next);
      else if (--chains === 0) resolve(done / ((performance.now() - start) / 1000));
    };
    for (let i = 0; i < concurrency; i++) lookup(hostname, NET_OPTIONS, next);
  });
}

/** "200 ok" from one request on a new connection (`agent: false`), by `lookup` or net's default. */
function httpGet(url: string, lookup: Lookup | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, ...(lookup ? { lookup: lookup as never } : {}) }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(`${res.statusCode} ${body}`));
      })
      .on('error', reject);
  });
}

/**
 * Runs `rounds` rounds; in each, every system that passed its check gives one figure, in an
 * order rotated round by round, so that load on the machine falls on all of them alike and a
 * round's figures can be compared with each other. Returns the figures per system, by round.
 */
async function interleaved<V extends Variant>(
  variants: readonly V[],
  rounds: number,
  measure: (variant: V) => Promise<number>,
  notes: string[],
): Promise<Map<string, number[]>> {
  const valid: V[] = [];
  for (const variant of variants) {
    try {
      await variant.check();
      valid.push(variant);
    } catch (error) {
      notes.push(`${variant.name} not timed: ${String(error)}`);
    }
  }
  const figures = new Map<string, number[]>(valid.map((v) => [v.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < valid.length; i++) {
      const variant = valid[(i + round) % valid.length]!;
      figures.get(variant.name)!.push(await measure(variant));
    }
  }
  return figures;
}

/** Round by round, `of` over `to` (both measured in that round). */
function pairedRatios(of: readonly number[], to: readonly number[]): number[] {
  return of.map((value, round) => value / to[round]!);
}

/** "1.02x (0.97-1.08)": the median and the p25-p75 of round-by-round ratios. */
function formatRatios(ratios: readonly number[]): string {
  const x = (r: number): string => `${r.toFixed(r >= 100 ? 0 : 2)}x`;
  return `${x(summarize(ratios).median)} (${x(percentile(ratios, 0.25))}-${x(percentile(ratios, 0.75))})`;
}

/** Lookups per second, median (min-max) of the rounds, and how row 1 compares round by round. */
function rateTable(caption: string, variants: readonly Variant[], rates: Map<string, number[]>): Table {
  const first = rates.get(variants[0]!.name);
  return {
    caption,
    headers: ['system', 'lookups/s, median (min-max)', 'µs each', 'row 1 ÷ this, per round: median (p25-p75)'],
    rows: variants.map((v) => {
      const r = rates.get(v.name);
      if (!r) return [v.name, 'not timed (see below)', '-', '-'];
      const summary = summarize(r);
      return [
        v.name,
        formatSummary(summary, 0),
        (1e6 / summary.median).toFixed(2),
        first ? formatRatios(pairedRatios(first, r)) : '-',
      ];
    }),
  };
}

/** µs per request, median (p25-p75), and each against dns.lookup and the no-lookup floor, round by round. */
function latencyTable(variants: readonly Variant[], latencies: Map<string, number[]>, rounds: number): Table {
  const getaddrinfo = latencies.get(HTTP_GETADDRINFO);
  const floor = latencies.get(HTTP_FLOOR);
  return {
    caption:
      `Warm \`http.get\` by name to a local server, a new connection each (\`agent: false\`), one request at a ` +
      `time, ${rounds} interleaved rounds of one request per system`,
    headers: [
      'system',
      'µs per request, median (p25-p75)',
      'this ÷ dns.lookup, per round: median (p25-p75)',
      'this ÷ no lookup, per round: median (p25-p75)',
    ],
    rows: variants.map((v) => {
      const l = latencies.get(v.name);
      if (!l) return [v.name, 'not timed (see below)', '-', '-'];
      return [
        v.name,
        `${count(summarize(l).median)} (${count(percentile(l, 0.25))}-${count(percentile(l, 0.75))})`,
        getaddrinfo ? formatRatios(pairedRatios(l, getaddrinfo)) : '-',
        floor ? formatRatios(pairedRatios(l, floor)) : '-',
      ];
    }),
  };
}

export async function nodeDnsFacade(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const nsd = await startNsd([{ name: ZONE, text: ZONE_TEXT }]);
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const core = new DnsCore([withCache(systemPlugin(nsd.endpoint))]);
    const ours = createLookup(core) as unknown as Lookup;
    const coreCacheOnly = createLookup(core, { resultMemoEntries: 0 }) as unknown as Lookup;
    const toNsd = new dns.promises.Resolver({ timeout: 2000, tries: 1 });
    toNsd.setServers([nsd.endpoint]);
    const cacheable = new CacheableLookup({ resolver: toNsd as never, lookup: false, fallbackDuration: 0 });
    const cacheableLookup = cacheable.lookup as unknown as Lookup;
    const getaddrinfo = dns.lookup as unknown as Lookup;
    const lookupCheck = (lookup: Lookup, hostname: string, expected: readonly string[]) => async (): Promise<void> => {
      expectSameSet(`lookup("${hostname}")`, expected, await lookupLines(lookup, hostname));
      await lookupRate(lookup, hostname, 200, LOOKUP_CHAINS); // fills the caches, lets the JIT settle
    };
    const lookupVariant = (name: string, lookup: Lookup, hostname: string): LookupVariant => ({
      name,
      lookup,
      hostname,
      check: lookupCheck(lookup, hostname, ['127.0.0.1/4']),
    });
    const lookups: LookupVariant[] = [
      lookupVariant('@dnscore/node-dns createLookup (its result memo)', ours, NAME),
      lookupVariant('@dnscore/node-dns createLookup, resultMemoEntries: 0 (the core cache only)', coreCacheOnly, NAME),
      lookupVariant('cacheable-lookup 7 over dns.promises.Resolver', cacheableLookup, NAME),
      lookupVariant('dns.lookup("localhost"), from /etc/hosts', getaddrinfo, 'localhost'),
    ];
    const lookupWindowMs = ctx.quick ? 100 : 200;
    const lookupRounds = runsFor(ctx, 15, 5);
    const rates = await interleaved(
      lookups,
      lookupRounds,
      (v) => lookupRate(v.lookup, v.hostname, lookupWindowMs, LOOKUP_CHAINS),
      notes,
    );
    const lookupTable = rateTable(
      `Warm \`lookup("${NAME}", { all: true, hints: ADDRCONFIG })\`, called as net calls it (a callback), ` +
        `${LOOKUP_CHAINS} in flight, ${lookupRounds} interleaved rounds of ${lookupWindowMs} ms`,
      lookups,
      rates,
    );
    ctx.log('  node-dns lookups: done');

    const url = (host: string): string => `http://${host}:${port}/`;
    const httpVariant = (name: string, host: string, lookup: Lookup | undefined): HttpVariant => ({
      name,
      url: url(host),
      lookup,
      async check() {
        const answer = await httpGet(url(host), lookup);
        if (answer !== '200 ok') throw new Error(`got "${answer}"`);
        for (let i = 0; i < 50; i++) await httpGet(url(host), lookup);
      },
    });
    const requests: HttpVariant[] = [
      httpVariant('http.get, lookup: @dnscore/node-dns', NAME, ours),
      httpVariant('http.get, lookup: cacheable-lookup', NAME, cacheableLookup),
      httpVariant(HTTP_GETADDRINFO, 'localhost', undefined),
      // the floor of any lookup: net skips the lookup for an IP literal
      httpVariant(HTTP_FLOOR, '127.0.0.1', undefined),
    ];
    const httpRounds = runsFor(ctx, 1000, 200);
    const latencies = await interleaved(
      requests,
      httpRounds,
      async (v) => {
        const start = performance.now();
        await httpGet(v.url, v.lookup);
        return (performance.now() - start) * 1000;
      },
      notes,
    );
    const httpTable = latencyTable(requests, latencies, httpRounds);
    ctx.log('  node-dns http.get: done');

    const ourResolver = new NodeDnsPromiseResolver(core);
    const resolvers: ThroughputSystem[] = [
      {
        name: '@dnscore/node-dns NodeDnsPromiseResolver.resolve4 (core cache)',
        expected: ['127.0.0.1'],
        run: () => ourResolver.resolve4(NAME),
      },
      {
        name: 'node:dns promises Resolver.resolve4 -> nsd (no cache)',
        expected: ['127.0.0.1'],
        run: () => toNsd.resolve4(NAME),
      },
    ];
    const resolverTable = await throughputTable(
      {
        caption: `Warm \`resolve4("${NAME}")\``,
        windowMs: ctx.quick ? 250 : 1000,
        runs: runsFor(ctx, 5, 3),
        concurrency: 16,
      },
      resolvers,
      notes,
    );
    await core.close();
    return {
      id: 'nodedns',
      title: '6. node:dns-compatible lookup and Resolver',
      method:
        `What an application gets by passing @dnscore/node-dns's \`lookup\` to net/http/undici instead of ` +
        `the default. Every system asks nsd on loopback for \`${NAME}\` (A 127.0.0.1, no AAAA) except dns.lookup, ` +
        `which cannot be pointed at a server: it is timed on "localhost", which glibc answers from /etc/hosts ` +
        `without any DNS, its best case. The systems take turns, in an order rotated every round, so that the ` +
        `machine's load falls on all of them alike, and each ratio is taken within a round, then summarised. ` +
        `The lookups are called as net calls them (a callback calling the next lookup, no promise around it). ` +
        `The HTTP rows open a new TCP connection per request, one request at a time, so each request pays one ` +
        `lookup; the last HTTP row connects to the IP literal, with no lookup at all: the floor. ` +
        `node:dns's Resolver has no cache in Node 20, so it asks nsd every time.`,
      tables: [lookupTable, httpTable, resolverTable],
      notes,
    };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await nsd.stop();
  }
}
