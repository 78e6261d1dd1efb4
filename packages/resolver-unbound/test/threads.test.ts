/**
 * `threads`: a resolver's questions spread over several libunbound contexts, each with its own
 * resolver thread, by a hash of the question. Identical questions still meet in one context
 * and reach the server as one query; a context that breaks fails its own questions only;
 * close() settles the questions of every context; nothing forks; every thread is joined; each
 * context asks a trust anchor's DNSKEY once (the price of a cache per context).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { StateError, makeQuery, parseMessage } from '@dnscore/core/plugin';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { UnboundResolveError } from '../src/errors.js';
import type { UnboundOptions } from '../src/options.js';
import { shardOf } from '../src/shard.js';
import { LibunboundError } from '../src/unbound-context.js';
import { UnboundResolver, contextsOf } from '../src/unbound-resolver.js';
import { children } from './support/children.js';
import { startHoldProxy, type HoldProxy } from './support/hold-proxy.js';
import { labOptions } from './support/lab.js';
import { BILOXI_QUESTIONS, rigBehindHoldProxy } from './support/rig.js';
import { requiredAddon } from './support/addon.js';

const addon = requiredAddon();

const NAMES = 40;
const zone = [
  '$ORIGIN lab.test.',
  '$TTL 300',
  '@ IN SOA ns hm 1 7200 900 1209600 60',
  ' IN NS ns',
  'ns IN A 127.0.0.1',
  ...Array.from({ length: NAMES }, (_, i) => `h${i} IN A 192.0.2.${i + 1}`),
].join('\n');

/** Threads of this process named as the addon names its resolver threads. */
function resolverThreads(): number {
  let count = 0;
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      if (readFileSync(`/proc/${process.pid}/task/${task}/comm`, 'utf8').trim() === 'dnscore-unbound') count++;
    } catch {
      // the thread ended meanwhile
    }
  }
  return count;
}

/** Resolves once `check` holds, polling (a joined thread leaves /proc/self/task soon after, not at once). */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

/** The A record of an answer's packet, as text ("-" without one). */
function addressOf(answer: { answer?: Uint8Array }): string {
  const packet = answer.answer;
  const record = packet ? parseMessage(packet).answers.find((r) => r.type === 1) : undefined;
  return packet && record ? [...packet.subarray(record.rdataOffset, record.rdataOffset + 4)].join('.') : '-';
}

describe('shardOf', () => {
  it('one context: always 0', () => {
    expect(shardOf('h1.lab.test', 1, 1, 1)).toBe(0);
  });

  it('the same question whatever its ASCII case and trailing dot; every shard used', () => {
    for (let i = 0; i < NAMES; i++) {
      const shard = shardOf(`h${i}.lab.test`, 1, 1, 4);
      expect(shard).toBeGreaterThanOrEqual(0);
      expect(shard).toBeLessThan(4);
      expect(shardOf(`H${i}.LAB.Test.`, 1, 1, 4)).toBe(shard);
    }
    const used = new Set(Array.from({ length: NAMES }, (_, i) => shardOf(`h${i}.lab.test`, 1, 1, 4)));
    expect([...used].sort()).toEqual([0, 1, 2, 3]);
  });

  it('type and class are part of the question', () => {
    const spread = new Set(Array.from({ length: 16 }, (_, type) => shardOf('h1.lab.test', type + 1, 1, 2)));
    expect(spread.size).toBe(2);
    const classes = new Set(Array.from({ length: 16 }, (_, rrclass) => shardOf('h1.lab.test', 1, rrclass + 1, 2)));
    expect(classes.size).toBe(2);
  });
});

describe('UnboundResolver with threads', () => {
  let nsd: NsdServer;
  let proxy: HoldProxy;
  const closing: UnboundResolver[] = [];

  beforeAll(async () => {
    nsd = await startNsd([{ name: 'lab.test', text: `${zone}\n` }]);
  });
  afterEach(async () => {
    for (const resolver of closing.splice(0)) resolver.close();
    await proxy?.close();
  });
  afterAll(async () => {
    await nsd?.stop();
  });

  async function held(extra: UnboundOptions = {}): Promise<UnboundResolver> {
    proxy = await startHoldProxy(nsd);
    const resolver = new UnboundResolver(labOptions(proxy.server, { threads: 2, ...extra }));
    closing.push(resolver);
    return resolver;
  }

  it('a context and a resolver thread per thread; distinct questions answered by both; no fork', async () => {
    const before = children();
    const threadsBefore = resolverThreads();
    const resolver = await held({ threads: 3 });
    expect(contextsOf(resolver)).toHaveLength(3);
    await eventually(() => resolverThreads() === threadsBefore + 3);
    proxy.release();
    const signal = new AbortController().signal;
    const answers = await Promise.all(
      Array.from({ length: NAMES }, (_, i) => resolver.resolve(makeQuery(`h${i}.lab.test`, 'A'), signal)),
    );
    expect(answers.map(addressOf)).toEqual(Array.from({ length: NAMES }, (_, i) => `192.0.2.${i + 1}`));
    expect(proxy.names.filter((name) => name.startsWith('h')).sort()).toEqual(
      Array.from({ length: NAMES }, (_, i) => `h${i}.lab.test`).sort(),
    );
    expect(children()).toEqual(before);
    resolver.close();
    await eventually(() => resolverThreads() === threadsBefore);
  });

  it('30 identical questions at once (case and trailing dot aside) reach the server as one query', async () => {
    const resolver = await held();
    const signal = new AbortController().signal;
    const spellings = ['h7.lab.test', 'H7.Lab.Test', 'h7.lab.test.'];
    const pending = Array.from({ length: 30 }, (_, i) => resolver.resolve(makeQuery(spellings[i % 3]!, 'A'), signal));
    await proxy.waitFor('h7.lab.test');
    proxy.release();
    const answers = await Promise.all(pending);
    expect(answers.map(addressOf)).toEqual(answers.map(() => '192.0.2.8'));
    expect(proxy.names.filter((name) => name === 'h7.lab.test')).toEqual(['h7.lab.test']);
  });

  it('close() with questions in flight on every context: each rejects with StateError, all freed', async () => {
    const open = addon.openContexts();
    const resolver = await held();
    expect(addon.openContexts()).toBe(open + 2);
    const signal = new AbortController().signal;
    // One held question on each context.
    const names = [0, 1].map((shard) => {
      const i = Array.from({ length: NAMES }, (_, j) => j).find((j) => shardOf(`h${j}.lab.test`, 1, 1, 2) === shard)!;
      return `h${i}.lab.test`;
    });
    const pending = names.map((name) => resolver.resolve(makeQuery(name, 'A'), signal).catch((e: unknown) => e));
    for (const name of names) await proxy.waitFor(name);
    expect(contextsOf(resolver).map((context) => context.inFlight)).toEqual([1, 1]);
    resolver.close();
    const errors = await Promise.all(pending);
    expect(errors.map((e) => [e instanceof StateError, (e as Error).message])).toEqual([
      [true, 'the unbound resolver was closed'],
      [true, 'the unbound resolver was closed'],
    ]);
    expect(contextsOf(resolver)).toEqual([]);
    expect(addon.openContexts()).toBe(open);
  });

  it('a context that breaks fails its own questions; the other context keeps answering', async () => {
    const resolver = await held();
    const signal = new AbortController().signal;
    const onShard = (shard: number): string[] =>
      Array.from({ length: NAMES }, (_, i) => `h${i}.lab.test`).filter((name) => shardOf(name, 1, 1, 2) === shard);
    const [broken, healthy] = [onShard(0), onShard(1)];
    const lost = resolver.resolve(makeQuery(broken[0]!, 'A'), signal).catch((e: unknown) => e);
    await proxy.waitFor(broken[0]!);
    // As the addon reports a context that cannot go on (token 0): libunbound's error closes it.
    contextsOf(resolver)[0]!.close(new LibunboundError('libunbound: out of memory (-2)', -2));
    const error = await lost;
    expect(error).toBeInstanceOf(UnboundResolveError);
    expect((error as Error).message).toBe(
      `${broken[0]} IN A: libunbound returned no result: libunbound: out of memory (-2)`,
    );
    proxy.release();
    const answer = await resolver.resolve(makeQuery(healthy[0]!, 'A'), signal);
    expect(addressOf(answer)).toBe(`192.0.2.${Number(healthy[0]!.slice(1, healthy[0]!.indexOf('.'))) + 1}`);
    await expect(resolver.resolve(makeQuery(broken[1]!, 'A'), signal)).rejects.toBeInstanceOf(StateError);
    expect(resolver.inFlight).toBe(0);
  });

  it('reload() to another thread count: questions in flight finish on the old contexts, then those close', async () => {
    const resolver = await held();
    const signal = new AbortController().signal;
    const old = contextsOf(resolver);
    const pending = resolver.resolve(makeQuery('h3.lab.test', 'A'), signal);
    await proxy.waitFor('h3.lab.test');
    resolver.reload(
      labOptions(proxy.server, { stubZones: [{ name: 'lab.test', addresses: [proxy.server] }], threads: 1 }),
    );
    expect(contextsOf(resolver)).toHaveLength(1);
    expect(old.map((context) => context.closed)).toEqual(old.map((context) => context.inFlight === 0));
    proxy.release();
    expect(addressOf(await pending)).toBe('192.0.2.4');
    expect(old.map((context) => context.closed)).toEqual([true, true]);
    expect(addressOf(await resolver.resolve(makeQuery('h4.lab.test', 'A'), signal))).toBe('192.0.2.5');
  });
});

describe('threads and validation', () => {
  const held = rigBehindHoldProxy();

  it('each context asks the anchor DNSKEY once, however many validated questions wait; all secure', async () => {
    const { proxy } = held;
    const resolver = new UnboundResolver(held.options({ trustAnchors: [held.rig.biloxi.ds], threads: 2 }));
    const dnskeys = (): string[] => proxy.questions.filter((q) => q === 'biloxi.test 48');
    try {
      await eventually(() => dnskeys().length === 2); // primed at construction, by each context
      const names = BILOXI_QUESTIONS;
      const shards = new Set(names.map(([name, type]) => shardOf(name, makeQuery(name, type).type, 1, 2)));
      expect([...shards].sort()).toEqual([0, 1]);
      const answers = await held.resolveAtOnce(resolver, names);
      expect(answers.map((a) => [a.rcode, a.secure, a.bogus])).toEqual(names.map(() => [0, true, false]));
      expect(dnskeys()).toEqual(['biloxi.test 48', 'biloxi.test 48']);
    } finally {
      resolver.close();
    }
  });
});
