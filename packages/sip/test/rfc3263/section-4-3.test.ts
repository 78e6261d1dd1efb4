/** RFC 3263 section 4.3, Details of RFC 2782 Process: what a failure is and what follows it. */
import { beforeEach, describe, expect, it } from 'vitest';
import { lines, setup, type Setup } from '../support/fixtures.js';

let s: Setup;
beforeEach(() => {
  s = setup();
});

async function walk(
  outcomes: Parameters<import('../../src/failover-cursor.js').FailoverCursor['report']>[1][],
): Promise<string[]> {
  const cursor = s.locator.cursor('sip:bob@biloxi.example;transport=udp');
  const verdicts: string[] = [];
  for (const outcome of outcomes) {
    const attempt = await cursor.next();
    if (!attempt) break;
    verdicts.push(`${attempt.target.host}: ${cursor.report(attempt, outcome)}`);
  }
  return verdicts;
}

describe('"failure occurs if the transaction layer reports a 503 error response"', () => {
  it('a 503 moves on to the next target at once', async () => {
    expect(
      await walk([
        { type: 'response', status: 503 },
        { type: 'response', status: 200 },
      ]),
    ).toEqual(['sip1.biloxi.example: failover', 'sip2.biloxi.example: success']);
  });
});

describe(
  '"or a transport failure of some sort (generally, due to fatal ICMP errors in UDP or connection failures in ' +
    'TCP)"',
  () => {
    it('a transport error moves on at once', async () => {
      expect(
        await walk([
          { type: 'transport-error', error: new Error('ECONNREFUSED') },
          { type: 'response', status: 180 },
        ]),
      ).toEqual(['sip1.biloxi.example: failover', 'sip2.biloxi.example: provisional']);
    });
  },
);

describe(
  '"Failure also occurs if the transaction layer times out without ever having received any response, ' +
    'provisional or final"',
  () => {
    it('a timeout without any response moves on', async () => {
      expect(await walk([{ type: 'timeout' }, { type: 'timeout' }, { type: 'response', status: 200 }])).toEqual([
        'sip1.biloxi.example: failover',
        'sip2.biloxi.example: failover',
        'backup.biloxi.example: success',
      ]);
    });

    it('a timeout after a provisional response is not a failure of the server: the walk ends, no penalty', async () => {
      const cursor = s.locator.cursor('sip:bob@biloxi.example;transport=udp');
      const attempt = await cursor.next();
      expect(cursor.report(attempt!, { type: 'response', status: 100 })).toBe('provisional');
      expect(cursor.report(attempt!, { type: 'timeout' })).toBe('ended');
      expect(await cursor.next()).toBeUndefined();
      expect(s.locator.penaltyBox.isPenalized(attempt!.target)).toBe(false);
    });

    it('any other response is not a failure: no failover on 486, 408 or 500', async () => {
      for (const status of [486, 408, 500, 603, 302]) {
        s = setup();
        expect(await walk([{ type: 'response', status }])).toEqual(['sip1.biloxi.example: success']);
      }
    });
  },
);

describe(
  '"the client SHOULD create a new request ... sent to the next element in the list as specified by RFC ' + '2782"',
  () => {
    it('each failure hands out the next target in RFC 2782 order, each try numbered', async () => {
      const resolution = await s.locator.resolve('sip:bob@biloxi.example;transport=udp');
      const cursor = s.locator.cursor('sip:bob@biloxi.example;transport=udp');
      const tried: string[] = [];
      for (let attempt = await cursor.next(); attempt; attempt = await cursor.next()) {
        tried.push(`${attempt.index} ${attempt.target.address}`);
        cursor.report(attempt, { type: 'response', status: 503 });
      }
      // The same seed gives the same draw as a fresh resolution would: compare with the list itself.
      expect(tried.map((t) => t.split(' ')[0])).toEqual(['0', '1', '2']);
      expect(new Set(tried.map((t) => t.split(' ')[1]))).toEqual(new Set(resolution.targets.map((t) => t.address)));
      expect(tried[2]).toBe('2 198.51.100.50');
      expect(lines(resolution.targets)[2]).toBe('udp 198.51.100.50:5060 backup.biloxi.example');
    });
  },
);
