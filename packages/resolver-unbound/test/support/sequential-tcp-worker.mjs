/**
 * The sequential TCP questions of tcp-streams.test.ts, asked from a worker_threads thread (the
 * package as built: dist/). workerData: { address, port, sequential }. Posts each answer's rcode
 * and the contexts the questions went to.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { makeQuery } from '@dnscore/core/plugin';
import { shardOf } from '../../dist/shard.js';
import { UnboundResolver } from '../../dist/index.js';

const { address, port, sequential } = workerData;
const overTcp = (threads) => ({
  threads,
  hosts: false,
  resolvConf: false,
  trustAnchors: [],
  qnameMinimisation: false,
  localZones: [{ name: 'test', type: 'transparent' }],
  stubZones: [{ name: 'reuse.test', addresses: [`${address}@${port}`] }],
  options: { 'do-not-query-localhost': 'no', 'tcp-upstream': 'yes', 'infra-cache-min-rtt': 400 },
});
const ask = (resolver, name) => resolver.resolve(makeQuery(name, 'A'), new AbortController().signal);

// This thread's malloc arena, grown and left by contexts made and closed first.
for (let i = 0; i < 4; i++) {
  const churn = new UnboundResolver(overTcp(4));
  await Promise.all([0, 1, 2, 3].map((j) => ask(churn, `n${j}.reuse.test`)));
  churn.close();
}
parentPort.postMessage({ churned: true });
const resolver = new UnboundResolver(overTcp(16));
const rcodes = [];
const shards = new Set();
for (let i = 0; i < sequential; i++) {
  rcodes.push((await ask(resolver, `n${i}.reuse.test`)).rcode);
  shards.add(shardOf(`n${i}.reuse.test`, 1, 1, 16));
}
resolver.close();
parentPort.postMessage({ rcodes, contexts: shards.size });
