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
import { runsFor, type BenchContext, type Section } from './section.js';
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
/** What net passes to a lookup when autoSelectFamily is on (Node 20's default). */
const NET_OPTIONS = { all: true, hints: dns.ADDRCONFIG } as const;

type Lookup = (hostname: string, options: object, callback: (error: Error | null, addresses: unknown) => void) => void;

function viaLookup(lookup: Lookup, hostname: string): () => Promise<string[]> {
  return () =>
    new Promise((resolve, reject) =>
      lookup(hostname, NET_OPTIONS, (error, addresses) =>
        error
          ? reject(error)
          : resolve((addresses as { address: string; family: number }[]).map((a) => `${a.address}/${a.family}`)),
      ),
    );
}

function httpGet(url: string, lookup: Lookup | undefined): Promise<string[]> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, ...(lookup ? { lookup: lookup as never } : {}) }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve([`${res.statusCode} ${body}`]));
      })
      .on('error', reject);
  });
}

export async function nodeDnsFacade(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const windowMs = ctx.quick ? 250 : 1000;
  const runs = runsFor(ctx, 5, 3);
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
    const localhostHasV4 = (lines: readonly string[]): void => {
      if (!lines.includes('127.0.0.1/4')) throw new Error(`dns.lookup("localhost") gave [${lines.join(', ')}]`);
    };

    const lookups: ThroughputSystem[] = [
      {
        name: '@dnscore/node-dns createLookup (its result memo)',
        expected: ['127.0.0.1/4'],
        run: viaLookup(ours, NAME),
      },
      {
        name: '@dnscore/node-dns createLookup, resultMemoEntries: 0 (the core cache only)',
        expected: ['127.0.0.1/4'],
        run: viaLookup(coreCacheOnly, NAME),
      },
      {
        name: 'cacheable-lookup 7 over dns.promises.Resolver',
        expected: ['127.0.0.1/4'],
        run: viaLookup(cacheableLookup, NAME),
      },
      {
        name: 'dns.lookup("localhost"), from /etc/hosts',
        check: localhostHasV4,
        run: viaLookup(getaddrinfo, 'localhost'),
      },
    ];
    const lookupTable = await throughputTable(
      {
        caption: `Warm \`lookup("${NAME}", { all: true, hints: ADDRCONFIG })\`, the call net makes`,
        windowMs,
        runs,
        concurrency: 16,
        unit: 'lookups',
      },
      lookups,
      notes,
    );
    ctx.log('  node-dns lookups: done');

    const url = (host: string): string => `http://${host}:${port}/`;
    const requests: ThroughputSystem[] = [
      { name: 'http.get, lookup: @dnscore/node-dns', expected: ['200 ok'], run: () => httpGet(url(NAME), ours) },
      {
        name: 'http.get, lookup: cacheable-lookup',
        expected: ['200 ok'],
        run: () => httpGet(url(NAME), cacheableLookup),
      },
      {
        name: 'http.get, dns.lookup("localhost")',
        expected: ['200 ok'],
        run: () => httpGet(url('localhost'), undefined),
      },
      // the floor of any lookup: net skips the lookup for an IP literal
      {
        name: 'http.get to 127.0.0.1, no lookup',
        expected: ['200 ok'],
        run: () => httpGet(url('127.0.0.1'), undefined),
      },
    ];
    const httpTable = await throughputTable(
      {
        caption: 'Warm `http.get` by name to a local server, a new connection each time (`agent: false`)',
        windowMs,
        // TCP set-up dominates and varies: more runs for a steadier median
        runs: runsFor(ctx, 9, 3),
        concurrency: 8,
        unit: 'requests',
      },
      requests,
      notes,
    );
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
      { caption: `Warm \`resolve4("${NAME}")\``, windowMs, runs, concurrency: 16 },
      resolvers,
      notes,
    );
    await core.close();
    return {
      id: 'nodedns',
      title: '6. node:dns-compatible lookup and Resolver',
      method:
        `What an application gets by passing @dnscore/node-dns's \`lookup\` to net/http/undici instead of ` +
        `the default. ` +
        `Every system asks nsd on loopback for \`${NAME}\` (A 127.0.0.1, no AAAA) except dns.lookup, which cannot be ` +
        `pointed at a server: it is timed on "localhost", which glibc answers from /etc/hosts without any DNS, its ` +
        `best case. The lookups run in the form net calls them; the HTTP rows open a new TCP connection per ` +
        `request so ` +
        `each request pays one lookup, and the last HTTP row connects to the IP literal, with no lookup at all. ` +
        `node:dns's Resolver has no cache in Node 20, so it asks nsd every time.`,
      tables: [lookupTable, httpTable, resolverTable],
      notes,
    };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await nsd.stop();
  }
}
