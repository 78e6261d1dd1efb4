/** Helpers for the shared-store tests: a raw Redis client for writing by hand, and waiting for propagation. */
import { createClient, type RedisClientType } from 'redis';

export { redisInstalled, startRedis, type RedisServer } from '../../../../test/support/redis.js';
export { freePort } from '../../../../test/support/ports.js';
export { makeCertificate } from '../../../../test/support/certs.js';

/** A plain client, as an operator (or an attacker with access) would use. */
export async function rawClient(url: string): Promise<RedisClientType> {
  const client = createClient({ url }) as RedisClientType;
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Polls `check` until it returns something other than undefined/false; fails after `ms`. */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = 5_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
