/**
 * Questions over TCP streams (tcp-upstream), as libunbound 1.17 as a library handles them.
 *
 * Reuse: libunbound before 1.18 finds a stream to reuse by ordering a key on the sending
 * thread's stack against the streams' slots on the heap (unbound issue #887): a worker allocated
 * above the resolver thread's stack never finds one, so every TCP query opens a connection and,
 * with the 2 a library gets, closes one that may still carry queries (SERVFAIL for them). The
 * addon makes the worker on the JS thread, whose heap (the main thread's) lies below every
 * thread's stack. Contexts made and closed first leave exited threads' malloc arenas behind, the
 * layout in which the worker made on the resolver thread failed: 26-56 connections here instead
 * of 16, in each of 12 rounds. A worker_threads thread allocates from an arena of its own: there
 * the resolver thread gets a stack placed above it (29 and 35 connections for 16 without).
 *
 * Bursts: each stream carries up to 200 queries at once, and a query that finds them all full
 * makes libunbound close the oldest, with its queries: with the 2 streams a library gets, 600 of
 * 1,000 questions failed with SERVFAIL. The package asks for 10 (DEFAULT_OUTGOING_NUM_TCP).
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeQuery, parseMessage, type PluginAnswer } from '@dnscore/core/plugin';
import { startDnsProxy, type DnsProxy } from '../../../test/support/dns-proxy.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { aZone } from './support/a-zone.js';
import type { UnboundOptions } from '../src/options.js';
import { shardOf } from '../src/shard.js';
import { UnboundResolver } from '../src/unbound-resolver.js';

const NAMES = 1000;
/** Asked one after another: enough for every one of 16 contexts to get several. */
const SEQUENTIAL = 64;
const address = (i: number): string => `10.7.${i >> 8}.${i & 255}`;
const zone = aZone('reuse.test', NAMES, address);

let nsd: NsdServer;
let proxy: DnsProxy;
beforeAll(async () => {
  nsd = await startNsd([{ name: 'reuse.test', text: zone }]);
  proxy = await startDnsProxy(nsd);
});
afterAll(async () => {
  await proxy?.close();
  await nsd?.stop();
});

/**
 * Over tcp-upstream libunbound gives each query its server's retransmit timeout, at least
 * infra-cache-min-rtt (50 ms by default), from its write on a stream it shares with up to 199
 * others, and one timeout fails every query on the stream: behind this JS proxy, 2 bursts in 5
 * lost their tail to SERVFAIL. From 400 ms, each query waits tcp-auth-query-timeout (3 s).
 */
function overTcp(threads: number): UnboundOptions {
  return {
    threads,
    hosts: false,
    resolvConf: false,
    trustAnchors: [],
    qnameMinimisation: false,
    localZones: [{ name: 'test', type: 'transparent' }],
    stubZones: [{ name: 'reuse.test', addresses: [`${proxy.address}@${proxy.port}`] }],
    options: { 'do-not-query-localhost': 'no', 'tcp-upstream': 'yes', 'infra-cache-min-rtt': 400 },
  };
}

/** The one A address of an answer packet. */
function addressOf(answer: PluginAnswer): string {
  const record = parseMessage(answer.answer!).answers.find((r) => r.type === 1)!;
  return [...answer.answer!.subarray(record.rdataOffset, record.rdataOffset + 4)].join('.');
}

const ask = (resolver: UnboundResolver, name: string) =>
  resolver.resolve(makeQuery(name, 'A'), new AbortController().signal);

describe('TCP streams', () => {
  it('questions asked one after another open one connection per context, however the heap lies', async () => {
    for (let i = 0; i < 4; i++) {
      const churn = new UnboundResolver(overTcp(4));
      await Promise.all([0, 1, 2, 3].map((j) => ask(churn, `n${j}.reuse.test`)));
      churn.close();
    }
    const resolver = new UnboundResolver(overTcp(16));
    const before = proxy.tcpConnections;
    const shards = new Set<number>();
    for (let i = 0; i < SEQUENTIAL; i++) {
      const answer = await ask(resolver, `n${i}.reuse.test`);
      expect(answer.rcode).toBe(0);
      shards.add(shardOf(`n${i}.reuse.test`, 1, 1, 16));
    }
    expect(proxy.tcpConnections - before).toBe(shards.size);
    resolver.close();
  });

  it('and from a worker_threads thread, whose own malloc arena may lie above a new thread stack', async () => {
    const worker = new Worker(new URL('./support/sequential-tcp-worker.mjs', import.meta.url), {
      workerData: { churn: overTcp(4), resolver: overTcp(16), sequential: SEQUENTIAL },
      execArgv: [], // not the test runner's "source" condition: the worker loads the built packages
    });
    try {
      const [churned] = await once(worker, 'message');
      expect(churned).toEqual({ churned: true });
      const before = proxy.tcpConnections;
      const [{ rcodes, contexts }] = (await once(worker, 'message')) as [{ rcodes: number[]; contexts: number }];
      expect(rcodes).toEqual(Array.from({ length: SEQUENTIAL }, () => 0));
      expect(proxy.tcpConnections - before).toBe(contexts);
    } finally {
      await worker.terminate();
    }
  });

  it('1,000 distinct questions at once are each answered, over at most 10 connections', async () => {
    const resolver = new UnboundResolver(overTcp(1));
    const before = proxy.tcpConnections;
    const answers = await Promise.all(Array.from({ length: NAMES }, (_, i) => ask(resolver, `n${i}.reuse.test`)));
    const seen = answers.map((answer) => (answer.answer ? addressOf(answer) : `rcode ${answer.rcode}`));
    expect(seen).toEqual(Array.from({ length: NAMES }, (_, i) => address(i)));
    expect(proxy.tcpConnections - before).toBeLessThanOrEqual(10);
    resolver.close();
  });
});
