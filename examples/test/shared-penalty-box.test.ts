/** examples/shared-penalty-box runs: sender B skips the dead next hop sender A found, through Redis. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisInstalled, startRedis, type RedisServer } from '../../test/support/redis.js';
import { main } from '../shared-penalty-box/main.js';

describe.runIf(redisInstalled())('examples/shared-penalty-box', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it('the second sender skips the next hop the first found dead', async () => {
    const lines: string[] = [];
    await main(redis.url, (line) => lines.push(line));
    expect(lines).toEqual([
      'sender A, OPTIONS sip:bob@example.test:',
      '  try 1: sip1 -> timeout',
      '  try 2: sip2 -> response 200',
      "sender B's box, from Redis: sip1 (timeout: no response to OPTIONS within 500 ms)",
      'sender B, OPTIONS sip:bob@example.test:',
      '  try 1: sip2 -> response 200, skipped sip1',
    ]);
  });
});
