import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisPenaltyStore, type RedisPenaltyStoreOptions } from '../src/index.js';
import { eventually, makeCertificate, redisInstalled, startRedis, type RedisServer } from './support/fleet.js';

const KEY = 'tls 192.0.2.50 5061';
const entry = { transport: 'tls', address: '192.0.2.50', port: 5061, reason: 'manual', detail: 'x' } as const;

describe.runIf(redisInstalled())('RedisPenaltyStore with an ACL user and TLS', () => {
  const stores: RedisPenaltyStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  function node(options: RedisPenaltyStoreOptions): { store: RedisPenaltyStore; logs: string[] } {
    const logs: string[] = [];
    const store = new RedisPenaltyStore({ log: (line) => logs.push(line), reconnectMinMs: 20, ...options }).start();
    stores.push(store);
    return { store, logs };
  }

  describe('ACL', () => {
    let redis: RedisServer;
    beforeAll(async () => {
      // The fleet's user may touch its own keys and channel only; the default user is off.
      redis = await startRedis({
        config: ['user default off', 'user fleet on >s3cret ~east:* &east:* +@all'],
      });
    });
    afterAll(() => redis?.stop());

    it('shares marks as the fleet user', async () => {
      const one = node({ url: redis.url, prefix: 'east:', username: 'fleet', password: 's3cret' }).store;
      const two = node({ url: redis.url, prefix: 'east:', username: 'fleet', password: 's3cret' }).store;
      await Promise.all([one.whenSynced(), two.whenSynced()]);
      one.mark(KEY, { ...entry, until: Date.now() + 30_000 });
      await eventually(() => two.get(KEY), 'the mark on node two');
    });

    it('with a wrong password, or outside its keys, logs once and keeps the local box', async () => {
      const wrong = node({ url: redis.url, prefix: 'east:', username: 'fleet', password: 'nope' });
      wrong.store.mark(KEY, { ...entry, until: Date.now() + 30_000 });
      expect(wrong.store.get(KEY)).toBeDefined();
      await eventually(() => wrong.logs.length > 0, 'the refusal in the log');
      await new Promise((resolve) => setTimeout(resolve, 200)); // several reconnect attempts
      expect(wrong.logs).toHaveLength(1);
      expect(wrong.logs[0]).toMatch(/WRONGPASS|invalid username-password/);
      expect(wrong.store.synced).toBe(false);

      const outside = node({ url: redis.url, prefix: 'west:', username: 'fleet', password: 's3cret' });
      await eventually(() => outside.logs.length > 0, 'the NOPERM in the log');
      expect(outside.logs[0]).toMatch(/NOPERM/);
      expect(outside.store.synced).toBe(false);
    });
  });

  describe('TLS', () => {
    let redis: RedisServer;
    let dir: string;
    let ca: string;
    beforeAll(async () => {
      const certificate = makeCertificate({ ip: ['127.0.0.1'] });
      ca = certificate.cert;
      dir = mkdtempSync(join(tmpdir(), 'dnscore-redis-tls-'));
      writeFileSync(join(dir, 'cert.pem'), certificate.cert);
      writeFileSync(join(dir, 'key.pem'), certificate.key);
      redis = await startRedis({ tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } });
    });
    afterAll(async () => {
      await redis?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('shares marks over rediss:// with the CA it is given', async () => {
      expect(redis.url).toMatch(/^rediss:/);
      const one = node({ url: redis.url, prefix: 'tls:', tls: { ca } }).store;
      const two = node({ url: redis.url, prefix: 'tls:', tls: { ca } }).store;
      await Promise.all([one.whenSynced(), two.whenSynced()]);
      one.mark(KEY, { ...entry, until: Date.now() + 30_000 });
      await eventually(() => two.get(KEY), 'the mark on node two');
    });

    it('refuses a server whose certificate it cannot verify, and logs it once', async () => {
      const untrusting = node({ url: redis.url, prefix: 'tls:' });
      await eventually(() => untrusting.logs.length > 0, 'the TLS failure in the log');
      expect(untrusting.logs[0]).toMatch(/self-signed certificate|unable to verify/i);
      expect(untrusting.store.synced).toBe(false);
    });
  });
});
