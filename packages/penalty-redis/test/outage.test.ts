import { type AddressInfo, createServer, type Socket } from 'node:net';
import { StateError } from '@dnscore/core';
import { PenaltyBox } from '@dnscore/sip';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisPenaltyStore, type RedisPenaltyStoreOptions } from '../src/index.js';
import { eventually, freePort, rawClient, redisInstalled, startRedis, type RedisServer } from './support/fleet.js';

const A = { transport: 'udp', address: '192.0.2.10', port: 5060 } as const;
const B = { transport: 'udp', address: '192.0.2.11', port: 5060 } as const;
const KEY_A = 'udp 192.0.2.10 5060';
const KEY_B = 'udp 192.0.2.11 5060';

describe.runIf(redisInstalled())('RedisPenaltyStore when Redis goes away', () => {
  const stores: RedisPenaltyStore[] = [];
  const servers: RedisServer[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  function node(url: string, options: RedisPenaltyStoreOptions = {}): { store: RedisPenaltyStore; logs: string[] } {
    const logs: string[] = [];
    const store = new RedisPenaltyStore({
      url,
      prefix: 'outage:',
      log: (line) => logs.push(line),
      reconnectMinMs: 20,
      reconnectMaxMs: 100,
      ...options,
    }).start();
    stores.push(store);
    return { store, logs };
  }

  it('carries on locally when Redis is killed, logs once, and shares again once it is back empty', async () => {
    const redis = await startRedis();
    servers.push(redis);
    const one = node(redis.url);
    const two = node(redis.url);
    await Promise.all([one.store.whenSynced(), two.store.whenSynced()]);
    const boxOne = new PenaltyBox({ store: one.store });
    const boxTwo = new PenaltyBox({ store: two.store });

    await redis.kill();
    await eventually(() => one.logs.length === 1 && two.logs.length === 1, 'the outage in the logs');
    expect(one.logs[0]).toMatch(/^penalty-redis: Redis unreachable \(.+\); the penalty box carries on locally$/);
    expect(one.store.synced).toBe(false);
    // The SIP path: marks and reads answer at once, from the local box.
    const marked = boxOne.markFailed(A, { durationMs: 60_000, reason: 'timeout', detail: 'no response' });
    expect(boxOne.get(A)).toBe(marked);
    boxTwo.markFailed(B, { durationMs: 60_000, reason: 'transport-error', detail: 'ECONNREFUSED' });
    for (let i = 0; i < 20; i++) boxOne.markFailed(A, { durationMs: 60_000 + i });
    expect(one.store.stats.unshared).toBeGreaterThan(0);
    expect(two.store.get(KEY_A)).toBeUndefined();

    await redis.restart();
    await Promise.all([one.store.whenSynced(), two.store.whenSynced()]);
    // Each node put back what it knew into the empty Redis; each now has the other's mark.
    await eventually(() => two.store.get(KEY_A), 'A on node two');
    await eventually(() => one.store.get(KEY_B), 'B on node one');
    expect(two.store.get(KEY_A)).toMatchObject({ reason: 'manual' });
    expect(one.store.get(KEY_B)).toMatchObject({ reason: 'transport-error', detail: 'ECONNREFUSED' });
    const raw = await rawClient(redis.url);
    try {
      expect((await raw.keys('outage:penalty:*')).sort()).toEqual([
        `outage:penalty:${KEY_A}`,
        `outage:penalty:${KEY_B}`,
      ]);
      expect(Number(await raw.pTTL(`outage:penalty:${KEY_A}`))).toBeGreaterThan(50_000);
    } finally {
      raw.destroy();
    }
    expect(one.logs).toEqual([one.logs[0], 'penalty-redis: Redis is back; rebuilding the shared penalty box']);
  });

  it('a clear made while cut off from a Redis that kept the mark reaches the fleet, and is not undone', async () => {
    // Node one's ACL user is turned off and its connections killed: Redis stays up with its data.
    const redis = await startRedis({ config: ['user one on >pw ~outage:* &outage:* +@all'] });
    servers.push(redis);
    const raw = await rawClient(redis.url);
    try {
      const one = node(redis.url, { username: 'one', password: 'pw' });
      const two = node(redis.url);
      await Promise.all([one.store.whenSynced(), two.store.whenSynced()]);
      new PenaltyBox({ store: one.store }).markFailed(A, { durationMs: 60_000, reason: 'timeout' });
      await eventually(() => two.store.get(KEY_A), 'A on node two');
      await raw.sendCommand(['ACL', 'SETUSER', 'one', 'off']);
      await raw.sendCommand(['CLIENT', 'KILL', 'USER', 'one']);
      await eventually(() => one.logs.length === 1, 'the outage in the log');
      expect(new PenaltyBox({ store: one.store }).clear(A)).toBe(true);
      await raw.sendCommand(['ACL', 'SETUSER', 'one', 'on']);
      await one.store.whenSynced();
      // The rebuild read A from Redis, where the clear had not arrived yet: it must not bring it back.
      expect(one.store.get(KEY_A)).toBeUndefined();
      await eventually(() => two.store.get(KEY_A) === undefined, 'the clear on node two');
      expect(await raw.exists(`outage:penalty:${KEY_A}`)).toBe(0);
      expect(one.store.entries()).toEqual([]);
    } finally {
      raw.destroy();
    }
  });

  it('close() rejects whenSynced() with StateError rather than leave it waiting for ever', async () => {
    const one = node(`redis://127.0.0.1:${await freePort()}`);
    const waiting = one.store.whenSynced();
    await one.store.close();
    await expect(waiting).rejects.toThrow(new StateError('the penalty store was closed before it synced'));
    await expect(one.store.whenSynced()).rejects.toBeInstanceOf(StateError);
  });

  it('starts with no Redis at all, works locally, and syncs when Redis appears', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const one = node(url);
    new PenaltyBox({ store: one.store }).markFailed(A, { durationMs: 60_000, reason: 'timeout' });
    expect(one.store.get(KEY_A)).toMatchObject({ reason: 'timeout' });
    await eventually(() => one.logs.length === 1, 'the outage in the log');
    const redis = await startRedis({ port });
    servers.push(redis);
    await one.store.whenSynced();
    const late = node(url);
    await late.store.whenSynced();
    await eventually(() => late.store.get(KEY_A), 'A on the late joiner');
    expect(one.logs).toHaveLength(2);
  });

  it('a server that accepts and never answers is given up, logged once, and tried again', async () => {
    const sockets: Socket[] = [];
    let accepted = 0;
    let closed = 0;
    const silent = createServer((socket) => {
      accepted++;
      sockets.push(socket);
      socket.on('error', () => {});
      socket.on('close', () => closed++);
      socket.resume(); // reads and drops what the store sends
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const one = node(`redis://127.0.0.1:${port}`, { commandTimeoutMs: 50 });
      new PenaltyBox({ store: one.store }).markFailed(A, { durationMs: 60_000, reason: 'timeout' });
      expect(one.store.get(KEY_A)).toMatchObject({ reason: 'timeout' });
      await eventually(() => accepted >= 4, 'connections made again after the silent ones');
      expect(one.logs).toEqual([
        'penalty-redis: Redis unreachable (no answer within 50 ms); the penalty box carries on locally',
      ]);
      expect(one.store.synced).toBe(false);
      await one.store.close();
      await eventually(() => closed === accepted, 'every connection closed');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a Redis that stops answering mid-run is given up, logged, and the marks reach the fleet later', async () => {
    const redis = await startRedis();
    servers.push(redis);
    const one = node(redis.url, { commandTimeoutMs: 50 });
    const two = node(redis.url);
    await Promise.all([one.store.whenSynced(), two.store.whenSynced()]);
    const raw = await rawClient(redis.url);
    try {
      await raw.sendCommand(['CLIENT', 'PAUSE', '2000', 'ALL']);
      new PenaltyBox({ store: one.store }).markFailed(A, { durationMs: 60_000, reason: 'timeout' });
      await eventually(() => one.logs.length === 1, 'the outage in the log');
      expect(one.logs[0]).toBe(
        'penalty-redis: Redis unreachable (no answer within 50 ms); the penalty box carries on locally',
      );
      expect(one.store.synced).toBe(false);
      await one.store.whenSynced();
      await eventually(() => two.store.get(KEY_A), 'A on node two');
      expect(one.logs).toEqual([one.logs[0], 'penalty-redis: Redis is back; rebuilding the shared penalty box']);
      // Made anew, the connections hear each message once: a message is handled in one go.
      const received = one.store.stats.received;
      new PenaltyBox({ store: two.store }).markFailed(B, { durationMs: 60_000, reason: 'timeout' });
      await eventually(() => one.store.get(KEY_B), 'B on node one');
      expect(one.store.stats.received).toBe(received + 1);
    } finally {
      raw.destroy();
    }
  });

  it('a Redis that refuses changes is not asked again in a loop: logged once, shared after a reconnect', async () => {
    const redis = await startRedis();
    servers.push(redis);
    // A retry after a refusal waits at least 30 s: within the test, only a reconnect sends again.
    const one = node(redis.url, { reconnectMinMs: 60_000, reconnectMaxMs: 60_000 });
    const two = node(redis.url);
    await Promise.all([one.store.whenSynced(), two.store.whenSynced()]);
    const raw = await rawClient(redis.url);
    try {
      await raw.configSet('maxmemory', '1'); // noeviction: every write is refused with OOM
      const box = new PenaltyBox({ store: one.store });
      box.markFailed(A, { durationMs: 60_000, reason: 'timeout' });
      await eventually(() => one.logs.length === 1, 'the refusal in the log');
      expect(one.logs[0]).toMatch(
        /^penalty-redis: Redis refused a change \(OOM .+\); the penalty box carries on locally$/,
      );
      box.markFailed(B, { durationMs: 60_000, reason: 'timeout' });
      const failedEvals = async () => /cmdstat_eval:.*failed_calls=(\d+)/.exec(await raw.info('commandstats'))?.[1];
      expect(await failedEvals()).toBe('1');
      expect(one.store.stats.unshared).toBe(2);

      await raw.configSet('maxmemory', '0');
      await raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal']);
      await raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
      await eventually(() => two.store.get(KEY_A) && two.store.get(KEY_B), 'A and B on node two');
      expect(await failedEvals()).toBe('1');
      expect(one.logs.filter((line) => line.includes('refused'))).toHaveLength(1);
    } finally {
      raw.destroy();
    }
  });

  it('a slow Redis delays nothing: marks wait in the backlog and reach the fleet when it answers', async () => {
    const redis = await startRedis();
    servers.push(redis);
    const one = node(redis.url, { maxInFlight: 2 });
    const two = node(redis.url);
    await Promise.all([one.store.whenSynced(), two.store.whenSynced()]);
    const raw = await rawClient(redis.url);
    try {
      await raw.sendCommand(['CLIENT', 'PAUSE', '1000', 'ALL']);
      const box = new PenaltyBox({ store: one.store });
      for (let i = 1; i <= 6; i++)
        box.markFailed({ transport: 'udp', address: `198.51.100.${i}`, port: 5060 }, { durationMs: 60_000 });
      expect(one.store.entries()).toHaveLength(6);
      expect(one.store.stats.unshared).toBe(4); // two in flight, four waiting
      await eventually(() => two.store.entries().length === 6 && true, 'the six marks on node two');
      expect(await raw.dbSize()).toBe(6);
    } finally {
      raw.destroy();
    }
    expect(one.logs).toEqual([]);
  });
});
