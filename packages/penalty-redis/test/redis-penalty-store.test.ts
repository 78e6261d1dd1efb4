import { type Clock, InvalidArgumentError } from '@dnscore/core';
import { PenaltyBox } from '@dnscore/sip';
import type { RedisClientType } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisPenaltyStore, type RedisPenaltyStoreOptions } from '../src/index.js';
import { eventually, rawClient, redisInstalled, startRedis, type RedisServer } from './support/fleet.js';

const A = { transport: 'udp', address: '192.0.2.10', port: 5060 } as const;
const B = { transport: 'tcp', address: '2001:db8::20', port: 5061 } as const;
const KEY_A = 'udp 192.0.2.10 5060';
const KEY_B = 'tcp 2001:db8::20 5061';

describe.runIf(redisInstalled())('RedisPenaltyStore against redis-server', () => {
  let redis: RedisServer;
  let raw: RedisClientType;
  const stores: RedisPenaltyStore[] = [];
  let fleet = 0;

  beforeAll(async () => {
    redis = await startRedis();
    raw = await rawClient(redis.url);
  });
  afterAll(async () => {
    raw?.destroy();
    await redis?.stop();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  /** A started store of `prefix` on the test's Redis, with its log lines collected. */
  function node(prefix: string, options: RedisPenaltyStoreOptions = {}): { store: RedisPenaltyStore; logs: string[] } {
    const logs: string[] = [];
    const store = new RedisPenaltyStore({
      url: redis.url,
      prefix,
      log: (line) => logs.push(line),
      reconnectMinMs: 20,
      reconnectMaxMs: 200,
      ...options,
    }).start();
    stores.push(store);
    return { store, logs };
  }
  const newFleet = (): string => `fleet${++fleet}:`;

  it('shares a mark made through the box with another node, reason and detail included', async () => {
    const prefix = newFleet();
    const one = node(prefix).store;
    const two = node(prefix).store;
    await Promise.all([one.whenSynced(), two.whenSynced()]);
    const box = new PenaltyBox({ store: one });
    const marked = box.markFailed(A, { durationMs: 30_000, reason: 'timeout', detail: 'no response to INVITE' });
    // Applied locally at once: no await between the mark and the read.
    expect(one.get(KEY_A)).toBe(marked);
    const seen = await eventually(() => two.get(KEY_A), 'the mark on node two');
    expect(seen).toMatchObject({ ...A, reason: 'timeout', detail: 'no response to INVITE' });
    expect(seen.until).toBeGreaterThan(Date.now() + 25_000);
    expect(seen.until).toBeLessThanOrEqual(marked.until + 1_000);
    const left = Number(await raw.pTTL(`${prefix}penalty:${KEY_A}`));
    expect(left).toBeGreaterThan(25_000);
    expect(left).toBeLessThanOrEqual(30_000);
    expect(two.stats.received).toBe(1);
    expect(new PenaltyBox({ store: two }).isPenalized(A)).toBe(true);
  });

  it('shares a clear, and a success that clears nothing sends nothing', async () => {
    const prefix = newFleet();
    const one = node(prefix).store;
    const heard: string[] = [];
    const two = node(prefix, { onRemote: (key, entry) => heard.push(`${key}: ${entry?.reason ?? 'cleared'}`) }).store;
    await Promise.all([one.whenSynced(), two.whenSynced()]);
    new PenaltyBox({ store: one }).markFailed(B, { durationMs: 60_000, reason: 'transport-error' });
    await eventually(() => two.get(KEY_B), 'the mark on node two');
    expect(new PenaltyBox({ store: two }).clear(B)).toBe(true);
    expect(two.get(KEY_B)).toBeUndefined();
    await eventually(() => one.get(KEY_B) === undefined, 'the clear on node one');
    expect(heard).toEqual([`${KEY_B}: transport-error`]); // its own clear is not news to it
    expect(await raw.exists(`${prefix}penalty:${KEY_B}`)).toBe(0);
    const received = one.stats.received;
    expect(two.clear(KEY_B)).toBeUndefined();
    new PenaltyBox({ store: two }).markFailed(A, { durationMs: 1_000 });
    await eventually(() => one.get(KEY_A), 'the next mark on node one');
    expect(one.stats.received).toBe(received + 1); // the mark, no clear before it
  });

  it('an onRemote that throws is logged once, and neither stops the sharing nor reads as Redis down', async () => {
    const prefix = newFleet();
    const one = node(prefix).store;
    const two = node(prefix, {
      onRemote: () => {
        throw new Error('metrics broke');
      },
    });
    await Promise.all([one.whenSynced(), two.store.whenSynced()]);
    const box = new PenaltyBox({ store: one });
    box.markFailed(A, { durationMs: 30_000, reason: 'timeout' });
    await eventually(() => two.store.get(KEY_A), 'A on node two');
    box.markFailed(B, { durationMs: 30_000, reason: 'transport-error' });
    await eventually(() => two.store.get(KEY_B), 'B on node two');
    expect(two.logs).toEqual(['penalty-redis: onRemote threw (metrics broke)']);
    expect(two.store.synced).toBe(true);
    expect(two.store.stats.received).toBe(2);
  });

  it('keeps the later end when two nodes mark the same target, in either order', async () => {
    const prefix = newFleet();
    const one = node(prefix).store;
    const two = node(prefix).store;
    await Promise.all([one.whenSynced(), two.whenSynced()]);
    const boxOne = new PenaltyBox({ store: one });
    const boxTwo = new PenaltyBox({ store: two });
    boxOne.markFailed(A, { durationMs: 10_000, reason: 'timeout' });
    const long = boxTwo.markFailed(A, { retryAfter: 120, reason: 'retry-after', detail: '503, Retry-After 120' });
    await eventually(() => one.get(KEY_A)?.reason === 'retry-after', 'the longer mark on node one');
    expect(two.get(KEY_A)).toBe(long);
    expect(Number(await raw.pTTL(`${prefix}penalty:${KEY_A}`))).toBeGreaterThan(100_000);
    // The shorter mark afterwards loses everywhere, and its node adopts the longer one.
    boxOne.markFailed(B, { durationMs: 90_000, reason: 'failover-response', detail: '500' });
    await eventually(() => two.get(KEY_B), 'B on node two');
    const short = boxTwo.markFailed(B, { durationMs: 5_000, reason: 'timeout' });
    expect(short.reason).toBe('failover-response'); // the local box already had the later end
    const three = node(prefix).store;
    await three.whenSynced();
    expect(three.get(KEY_A)).toMatchObject({ reason: 'retry-after', detail: '503, Retry-After 120' });
    expect(three.get(KEY_B)).toMatchObject({ reason: 'failover-response', detail: '500' });
    expect(Number(await raw.pTTL(`${prefix}penalty:${KEY_B}`))).toBeGreaterThan(80_000);
  });

  it('a node whose own shorter mark reaches Redis after a longer one adopts the longer one', async () => {
    const prefix = newFleet();
    await raw.set(`${prefix}penalty:${KEY_A}`, JSON.stringify({ r: 'manual', d: 'operator' }), { PX: 200_000 });
    const one = node(prefix).store;
    // Marked before the first rebuild: the script answers with the entry Redis keeps.
    new PenaltyBox({ store: one }).markFailed(A, { durationMs: 1_000, reason: 'timeout' });
    await one.whenSynced();
    await eventually(() => one.get(KEY_A)?.reason === 'manual', 'the operator entry on node one');
    expect(one.get(KEY_A)!.until).toBeGreaterThan(Date.now() + 150_000);
  });

  it('a malformed entry with a long expiry does not keep a mark from the fleet: it is replaced', async () => {
    const prefix = newFleet();
    const k = `${prefix}penalty:${KEY_A}`;
    const one = node(prefix).store;
    const two = node(prefix).store;
    await Promise.all([one.whenSynced(), two.whenSynced()]);
    // Written after the rebuilds, as a hostile or broken peer would: not our shape, an hour to live.
    await raw.set(k, JSON.stringify({ r: 'banned', d: 'x' }), { PX: 3_600_000 });
    new PenaltyBox({ store: one }).markFailed(A, { durationMs: 60_000, reason: 'timeout', detail: 'no response' });
    const seen = await eventually(() => two.get(KEY_A), 'the mark on node two');
    expect(seen).toMatchObject({ ...A, reason: 'timeout', detail: 'no response' });
    expect(await raw.get(k)).toBe(JSON.stringify({ r: 'timeout', d: 'no response' }));
    expect(Number(await raw.pTTL(k))).toBeLessThanOrEqual(60_000);
    expect(one.get(KEY_A)).toMatchObject({ reason: 'timeout', detail: 'no response' });
    expect(one.stats.dropped).toBe(1); // the script's answer with the malformed value
    // A well-formed entry that lasts longer still wins over a shorter mark, and is adopted.
    await raw.set(k, JSON.stringify({ r: 'manual', d: 'operator' }), { PX: 200_000 });
    one.mark(KEY_A, { ...A, until: Date.now() + 120_000, reason: 'timeout', detail: 'again' });
    await eventually(() => one.get(KEY_A)?.reason === 'manual', 'the operator entry on node one');
    expect(await raw.get(k)).toBe(JSON.stringify({ r: 'manual', d: 'operator' }));
  });

  it('reads no more of a huge value than a node writes, in a rebuild or a mark, and replaces it', async () => {
    const prefix = newFleet();
    const k = `${prefix}penalty:${KEY_A}`;
    // The right shape up to its 1 MB detail, an hour to live: not ours, and costly to read whole.
    await raw.set(k, `{"r":"timeout","d":"${'x'.repeat(1_000_000)}"}`, { PX: 3_600_000 });
    const sent = async () => Number(/total_net_output_bytes:(\d+)/.exec(await raw.info('stats'))?.[1]);
    const before = await sent();
    const one = node(prefix).store;
    const two = node(prefix).store;
    await Promise.all([one.whenSynced(), two.whenSynced()]);
    expect([one.entries(), one.stats.dropped]).toEqual([[], 1]);
    new PenaltyBox({ store: one }).markFailed(A, { durationMs: 60_000, reason: 'timeout', detail: 'no response' });
    await eventually(() => two.get(KEY_A), 'the mark on node two');
    expect(await raw.get(k)).toBe(JSON.stringify({ r: 'timeout', d: 'no response' }));
    expect(one.stats.dropped).toBe(1);
    expect((await sent()) - before).toBeLessThan(100_000);
  });

  it('rebuilds a late joiner from Redis before it says it is synced', async () => {
    const prefix = newFleet();
    const one = node(prefix).store;
    await one.whenSynced();
    const box = new PenaltyBox({ store: one });
    for (let i = 1; i <= 250; i++)
      box.markFailed({ transport: 'udp', address: `198.51.100.${i}`, port: 5060 }, { durationMs: 60_000 });
    await eventually(async () => (await raw.dbSize()) >= 250, 'the marks in Redis');
    await eventually(() => one.stats.unshared === 0 && true, 'all shared');
    const late = node(prefix).store;
    expect(late.synced).toBe(false);
    await late.whenSynced();
    expect(late.synced).toBe(true);
    expect(
      late
        .entries()
        .map((e) => e.address)
        .sort(),
    ).toEqual(
      one
        .entries()
        .map((e) => e.address)
        .sort(),
    );
    expect(late.entries()).toHaveLength(250);
    expect(late.stats.rebuilds).toBe(1);
  });

  it('drops entries and messages of the wrong shape written by hand, and clamps long ones', async () => {
    const prefix = newFleet();
    const k = (key: string): string => `${prefix}penalty:${key}`;
    const good = JSON.stringify({ r: 'timeout', d: 'ok' });
    await raw.set(k(KEY_A), good, { PX: 30_000 });
    await raw.set(k('udp 192.0.2.11 5060'), good); // no expiry: never ends, not ours
    await raw.set(k('udp 192.0.2.12 5060'), 'not json', { PX: 30_000 });
    await raw.set(k('udp 192.0.2.13 5060'), JSON.stringify({ r: 'forever', d: 'x' }), { PX: 30_000 });
    await raw.set(k('udp 192.0.2.14 5060'), JSON.stringify({ r: 'timeout', d: 'x'.repeat(5000) }), { PX: 30_000 });
    await raw.set(k('udp 192.0.2.15 5060'), JSON.stringify([1, 2]), { PX: 30_000 });
    await raw.set(k('UDP 192.0.2.16 5060'), good, { PX: 30_000 }); // not canonical
    await raw.set(k('udp 192.0.2.017 5060'), good, { PX: 30_000 });
    await raw.set(k('udp 192.0.2.18 70000'), good, { PX: 30_000 });
    await raw.set(k('udp example.com 5060'), good, { PX: 30_000 });
    await raw.set(k('udp 192.0.2.19'), good, { PX: 30_000 });
    await raw.hSet(k('udp 192.0.2.20 5060'), { r: 'timeout' }); // another type
    await raw.expire(k('udp 192.0.2.20 5060'), 30);
    await raw.set(k('tls 192.0.2.21 5061'), good, { PX: 86_400_000 }); // a day: clamped to 300 s
    const store = node(prefix).store;
    await store.whenSynced();
    expect(
      store
        .entries()
        .map((e) => `${e.transport} ${e.address} ${e.port}`)
        .sort(),
    ).toEqual(['tls 192.0.2.21 5061', KEY_A]);
    expect(store.get('tls 192.0.2.21 5061')!.until).toBeLessThanOrEqual(Date.now() + 300_000);
    expect(store.stats.dropped).toBe(11);

    const hostile = [
      'not json',
      'x'.repeat(5000),
      JSON.stringify({ t: 'm', n: 'evil', k: 'udp 192.0.2.30 5060', ms: -5, v: good }),
      JSON.stringify({ t: 'm', n: 'evil', k: 'udp 192.0.2.31 5060', ms: 1.5, v: good }),
      JSON.stringify({ t: 'm', n: 'evil', k: 'udp 192.0.2.32 5060', ms: 1000, v: '{"r":"banned","d":""}' }),
      JSON.stringify({ t: 'm', n: 'evil', k: 'udp 192.0.2.33 5060; rm -rf', ms: 1000, v: good }),
      JSON.stringify({ t: 'x', n: 'evil', k: KEY_A }),
      JSON.stringify({ t: 'c', n: 7, k: KEY_A }),
      'null',
    ];
    for (const message of hostile) await raw.publish(`${prefix}penalty`, message);
    await raw.publish(
      `${prefix}penalty`,
      JSON.stringify({ t: 'm', n: 'peer', k: 'udp 192.0.2.40 5060', ms: 1e12, v: good }),
    );
    const clamped = await eventually(() => store.get('udp 192.0.2.40 5060'), 'the last, valid message');
    expect(clamped.until).toBeLessThanOrEqual(Date.now() + 300_000);
    expect(store.stats.dropped).toBe(11 + hostile.length);
    expect(store.get(KEY_A)).toBeDefined();
    expect(store.entries()).toHaveLength(3);
  });

  it('reads at most four times maxEntries keys in a rebuild, keeps maxEntries, and says so once', async () => {
    const prefix = newFleet();
    const value = JSON.stringify({ r: 'timeout', d: 'flood' });
    for (let i = 1; i <= 250; i++) await raw.set(`${prefix}penalty:udp 198.51.100.${i} 5060`, value, { PX: 60_000 });
    const { store, logs } = node(prefix, { maxEntries: 10 });
    await store.whenSynced();
    expect(store.entries()).toHaveLength(10);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      new RegExp(`^penalty-redis: more than 40 keys under "${prefix}penalty:"; the rebuild read the first \\d+$`),
    );
  });

  it('needs no clock agreement: a node an hour ahead, or one at the epoch, sees the same time left', async () => {
    const prefix = newFleet();
    const dawn = Date.now();
    const ahead: Clock = { now: () => Date.now() + 3_600_000 };
    const epoch: Clock = { now: () => Date.now() - dawn };
    const one = node(prefix, { clock: ahead }).store;
    const two = node(prefix, { clock: epoch }).store;
    await Promise.all([one.whenSynced(), two.whenSynced()]);
    new PenaltyBox({ store: one, clock: ahead }).markFailed(A, { durationMs: 30_000, reason: 'timeout' });
    const seen = await eventually(() => two.get(KEY_A), 'the mark on node two');
    expect(seen.until - epoch.now()).toBeGreaterThan(25_000);
    expect(seen.until - epoch.now()).toBeLessThanOrEqual(30_000);
    const left = Number(await raw.pTTL(`${prefix}penalty:${KEY_A}`));
    expect(left).toBeGreaterThan(25_000);
    expect(left).toBeLessThanOrEqual(30_000);
    // A late joiner behind everyone rebuilds the same time left from Redis.
    const behind: Clock = { now: () => Date.now() - 86_400_000 };
    const three = node(prefix, { clock: behind }).store;
    await three.whenSynced();
    expect(three.get(KEY_A)!.until - behind.now()).toBeGreaterThan(25_000);
    expect(three.get(KEY_A)!.until - behind.now()).toBeLessThanOrEqual(30_000);
    expect(new PenaltyBox({ store: three, clock: behind }).isPenalized(A)).toBe(true);
  });

  it('start() again does nothing: no outage logged, still synced', async () => {
    const prefix = newFleet();
    const { store, logs } = node(prefix);
    await store.whenSynced();
    expect(store.start()).toBe(store);
    new PenaltyBox({ store }).markFailed(A, { durationMs: 30_000 });
    await eventually(async () => (await raw.exists(`${prefix}penalty:${KEY_A}`)) === 1, 'the mark in Redis');
    expect([store.synced, logs]).toEqual([true, []]);
  });

  it('keeps fleets apart by prefix', async () => {
    const red = node(newFleet()).store;
    const blue = node(newFleet()).store;
    const redToo = node(red.prefix).store;
    await Promise.all([red.whenSynced(), blue.whenSynced(), redToo.whenSynced()]);
    red.mark(KEY_A, { ...A, until: Date.now() + 20_000, reason: 'manual', detail: 'red' });
    await eventually(() => redToo.get(KEY_A), 'the mark in the same fleet');
    expect(blue.get(KEY_A)).toBeUndefined();
    expect(blue.stats.received).toBe(0);
  });

  it('refuses bad options with InvalidArgumentError', () => {
    for (const prefix of ['', 'a*', 'a b', 'x[1]'])
      expect(() => new RedisPenaltyStore({ prefix })).toThrow(InvalidArgumentError);
    expect(() => new RedisPenaltyStore({ maxRemoteMs: 0 })).toThrow(InvalidArgumentError);
    expect(() => new RedisPenaltyStore({ maxInFlight: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => new RedisPenaltyStore({ commandTimeoutMs: -1 })).toThrow(InvalidArgumentError);
    for (const url of ['http://127.0.0.1:6379', '127.0.0.1:6379', 'redis://', ''])
      expect(() => new RedisPenaltyStore({ url }), url).toThrow(InvalidArgumentError);
    expect(() => new RedisPenaltyStore({ maxEntries: 0 })).toThrow(InvalidArgumentError);
  });
});
