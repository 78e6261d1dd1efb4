/**
 * What the `unbound` binding costs dnscore, measured against nsd on loopback (numbers in the
 * README, "Speed and threads"). Not a test: no assertion on time. Run it with the pool sizes
 * to compare:
 *   UV_THREADPOOL_SIZE=4  npx vitest run --config bench/vitest.config.ts
 *   UV_THREADPOOL_SIZE=16 npx vitest run --config bench/vitest.config.ts
 */
import { createSocket } from 'node:dgram';
import { pbkdf2 } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, it } from 'vitest';
import { DnsCore, withCache } from '@dnscore/core';
import { makeQuery, type DnsQuery } from '@dnscore/core/plugin';
import { UnboundResolver, defaultMaxInFlight, threadPoolSize, type UnboundOptions } from '../src/index.js';
import { startRig, type Rig } from '../test/support/rig.js';

const ROUNDS = 40;
const ROUND: [string, string][] = [
  ['biloxi.test', 'NAPTR'],
  ['_sips._tcp.biloxi.test', 'SRV'],
  ['_sip._tcp.biloxi.test', 'SRV'],
  ['_sip._udp.biloxi.test', 'SRV'],
  ['sip1.biloxi.test', 'A'],
  ['sip1.biloxi.test', 'AAAA'],
];
const queries: DnsQuery[] = ROUND.map(([name, type]) => makeQuery(name, type));
const never = new AbortController().signal;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.stop();
});

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `median ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms (n=${samples.length})`;
}

async function coldRounds(label: string, options: UnboundOptions, parallel: boolean, server?: string): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const base = rig.options(options);
    const stubZones = server ? base.stubZones!.map((stub) => ({ ...stub, addresses: [server] })) : base.stubZones;
    const resolver = new UnboundResolver({ ...base, stubZones }); // a new context: libunbound's caches are empty
    const start = performance.now();
    if (parallel) await Promise.all(queries.map((q) => resolver.resolve(q, never)));
    else for (const q of queries) await resolver.resolve(q, never);
    samples.push(performance.now() - start);
    resolver.close();
  }
  console.log(
    `pool ${threadPoolSize()} | cold six-query round, ${parallel ? 'parallel  ' : 'sequential'} | ${label}: ${stats(samples)}`,
  );
}

it('cold six-query rounds', async () => {
  for (const parallel of [true, false]) {
    await coldRounds('DNSSEC, qname-min off, maxInFlight default', {}, parallel);
    await coldRounds('DNSSEC, qname-min ON,  maxInFlight default', { qnameMinimisation: true }, parallel);
    await coldRounds('no DNSSEC, qname-min off', { trustAnchors: [] }, parallel);
  }
  await coldRounds('DNSSEC, qname-min off, maxInFlight 6', { maxInFlight: 6 }, true);
  await coldRounds('DNSSEC, qname-min off, maxInFlight 1', { maxInFlight: 1 }, true);
});

it('cold six-query rounds with a 40 ms round trip (a delaying relay in front of nsd)', async () => {
  const relay = await startDelayRelay(rig.nsd, 40);
  for (const parallel of [true, false]) {
    await coldRounds('RTT 40 ms, DNSSEC, qname-min off, maxInFlight default', {}, parallel, relay.server);
  }
  await coldRounds(
    'RTT 40 ms, DNSSEC, qname-min ON,  maxInFlight default',
    { qnameMinimisation: true },
    true,
    relay.server,
  );
  await coldRounds(
    'RTT 40 ms, no DNSSEC, qname-min off, maxInFlight default',
    { trustAnchors: [] },
    true,
    relay.server,
  );
  await coldRounds('RTT 40 ms, DNSSEC, qname-min off, maxInFlight 6', { maxInFlight: 6 }, true, relay.server);
  await relay.close();
});

it('cost per cached lookup', async () => {
  const resolver = new UnboundResolver(rig.options());
  const query = makeQuery('sip1.biloxi.test', 'A');
  await resolver.resolve(query, never);
  const n = 2000;
  let start = performance.now();
  for (let i = 0; i < n; i++) await resolver.resolve(query, never);
  console.log(
    `pool ${threadPoolSize()} | libunbound cache hit through the binding, sequential: ${(((performance.now() - start) / n) * 1000).toFixed(0)} µs per lookup`,
  );
  start = performance.now();
  for (let i = 0; i < n / 100; i++)
    await Promise.all(Array.from({ length: 100 }, () => resolver.resolve(query, never)));
  console.log(
    `pool ${threadPoolSize()} | libunbound cache hit through the binding, 100 at a time: ${(((performance.now() - start) / n) * 1000).toFixed(0)} µs per lookup`,
  );

  const dns = new DnsCore([withCache(new UnboundResolver(rig.options()))]);
  await dns.resolve('sip1.biloxi.test', 'A');
  start = performance.now();
  for (let i = 0; i < n; i++) await dns.resolve('sip1.biloxi.test', 'A');
  console.log(
    `pool ${threadPoolSize()} | DnsCore + core cache hit (unbound behind): ${(((performance.now() - start) / n) * 1000).toFixed(1)} µs per lookup`,
  );

  resolver.close();
  await dns.close();
});

it('fs and crypto while libunbound threads wait on a dead server', async () => {
  const blackhole = createSocket('udp4');
  await new Promise<void>((resolve) => blackhole.bind(0, '127.0.0.1', resolve));
  const dead = `127.0.0.1@${blackhole.address().port}`;
  const pool = threadPoolSize();
  for (const maxInFlight of [Math.max(1, pool - 1), pool]) {
    const resolver = new UnboundResolver({
      ...rig.options({ trustAnchors: [] }),
      stubZones: [{ name: '.', addresses: [dead] }],
      maxInFlight,
    });
    const hanging = Array.from({ length: pool * 2 }, (_, i) =>
      resolver.resolve(makeQuery(`q${i}.dead.test`, 'A'), never),
    );
    await new Promise((resolve) => setTimeout(resolve, 50)); // let them reach the pool
    let start = performance.now();
    await readFile(new URL(import.meta.url));
    const fsMs = performance.now() - start;
    start = performance.now();
    await new Promise((resolve, reject) => pbkdf2('x', 'y', 1, 32, 'sha256', (e, k) => (e ? reject(e) : resolve(k))));
    const cryptoMs = performance.now() - start;
    start = performance.now();
    await Promise.all(hanging);
    console.log(
      `pool ${pool} | dead upstream, ${pool * 2} queries, maxInFlight ${maxInFlight}: fs.readFile waited ${fsMs.toFixed(1)} ms, ` +
        `crypto.pbkdf2 ${cryptoMs.toFixed(1)} ms; all SERVFAIL after ${(performance.now() - start + 50).toFixed(0)} ms`,
    );
    resolver.close();
  }
  // Head-of-line: a live name asked while every slot waits on a dead server.
  const resolver = new UnboundResolver({
    ...rig.options(),
    stubZones: [...rig.options().stubZones!, { name: 'dead.test', addresses: [dead] }],
  });
  await resolver.resolve(makeQuery('sip1.biloxi.test', 'AAAA'), never); // warm: DNSKEY known
  const stuck = Array.from({ length: resolver.inFlight + defaultMaxInFlight() }, (_, i) =>
    resolver.resolve(makeQuery(`q${i}.dead.test`, 'A'), never),
  );
  const start = performance.now();
  await resolver.resolve(makeQuery('sip1.biloxi.test', 'A'), never);
  console.log(
    `pool ${pool} | a live cold query behind ${stuck.length} queries to a dead server: answered after ${(performance.now() - start).toFixed(0)} ms`,
  );
  await Promise.all(stuck);
  resolver.close();
  blackhole.close();
});

/** Relays UDP queries to `upstream` after `ms`, as a distant server would answer. */
async function startDelayRelay(
  upstream: { address: string; port: number },
  ms: number,
): Promise<{ server: string; close(): Promise<void> }> {
  const socket = createSocket('udp4');
  socket.on('message', (message, from) => {
    setTimeout(() => {
      const relay = createSocket('udp4');
      relay.once('message', (reply) => {
        socket.send(reply, from.port, from.address);
        relay.close();
      });
      relay.send(message, upstream.port, upstream.address);
    }, ms);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1@${socket.address().port}`,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
