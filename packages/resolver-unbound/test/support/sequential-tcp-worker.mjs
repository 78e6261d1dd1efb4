/**
 * The sequential TCP questions of tcp-streams.test.ts, asked from a worker_threads thread (the
 * package as built: dist/). workerData: { churn, resolver } (the options of the resolvers made
 * first and of the one asked) and sequential. Posts each answer's rcode and the contexts the
 * questions went to.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { makeQuery } from '@dnscore/core/plugin';
import { shardOf } from '../../dist/shard.js';
import { UnboundResolver } from '../../dist/index.js';

const { churn: churnOptions, resolver: options, sequential } = workerData;
const ask = (resolver, name) => resolver.resolve(makeQuery(name, 'A'), new AbortController().signal);

// This thread's malloc arena, grown and left by contexts made and closed first.
for (let i = 0; i < 4; i++) {
  const churn = new UnboundResolver(churnOptions);
  await Promise.all([0, 1, 2, 3].map((j) => ask(churn, `n${j}.reuse.test`)));
  churn.close();
}
parentPort.postMessage({ churned: true });
const resolver = new UnboundResolver(options);
const rcodes = [];
const shards = new Set();
for (let i = 0; i < sequential; i++) {
  rcodes.push((await ask(resolver, `n${i}.reuse.test`)).rcode);
  shards.add(shardOf(`n${i}.reuse.test`, 1, 1, options.threads));
}
resolver.close();
parentPort.postMessage({ rcodes, contexts: shards.size });
