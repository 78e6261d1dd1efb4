/**
 * The failover policy: the failover set, the penalty by reason (each reason's default and its
 * own duration or off), the transaction bound's option, and what is refused. Through the
 * cursor, so each row is what a carrier sees in its penalty box after one try.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core';
import { DEFAULT_FAILOVER_ON, DEFAULT_TRANSACTION_TIMEOUT_MS } from '../src/defaults.js';
import { FailoverPolicy, type PenaltyPolicy } from '../src/failover-policy.js';
import type { TryOutcome } from '../src/try-outcome.js';
import { setup } from './support/fixtures.js';

const URI = 'sip:bob@biloxi.example;transport=udp';

/** One try with `outcome`: the verdict, and the penalty entry of the target as [reason, detail, ms] or null. */
async function oneTry(
  outcome: TryOutcome,
  options: { method?: string; penalty?: PenaltyPolicy; failoverOn?: number[] } = {},
): Promise<[string, [string, string, number] | null]> {
  const { method, ...locatorOptions } = options;
  const { locator, clock } = setup(locatorOptions);
  const cursor = locator.cursor(URI, method ? { method } : {});
  const attempt = await cursor.next();
  const verdict = cursor.report(attempt!, outcome);
  const entry = locator.penaltyBox.get(attempt!.target);
  return [verdict, entry ? [entry.reason, entry.detail, entry.until - clock.now()] : null];
}

describe('FailoverPolicy: the penalty by reason, defaults', () => {
  it('503 with Retry-After: boxed for the Retry-After (clamped to 300 s)', async () => {
    expect(await oneTry({ type: 'response', status: 503, retryAfter: 30 })).toEqual([
      'failover',
      ['retry-after', '503 Service Unavailable, Retry-After 30 s', 30_000],
    ]);
    expect((await oneTry({ type: 'response', status: 503, retryAfter: 9_999 }))[1]![2]).toBe(300_000);
  });

  it('503 without Retry-After: fails over, boxes nothing (one 503 must not ban a server)', async () => {
    expect(await oneTry({ type: 'response', status: 503 })).toEqual(['failover', null]);
  });

  it('an INVITE without any response: boxed 60 s', async () => {
    expect(await oneTry({ type: 'timeout' }, { method: 'INVITE' })).toEqual([
      'failover',
      ['timeout', 'no response to INVITE within 6000 ms', 60_000],
    ]);
  });

  it('any other request without any response: fails over, boxes nothing (a live hop may be silent)', async () => {
    expect(await oneTry({ type: 'timeout' }, { method: 'OPTIONS' })).toEqual(['failover', null]);
    expect(await oneTry({ type: 'timeout' })).toEqual(['failover', null]);
  });

  it('a transport error: boxed 60 s, with the error in the detail', async () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 203.0.113.12:5060'), { code: 'ECONNREFUSED' });
    expect(await oneTry({ type: 'transport-error', error })).toEqual([
      'failover',
      ['transport-error', 'transport error: connect ECONNREFUSED 203.0.113.12:5060', 60_000],
    ]);
    const coded = Object.assign(new Error('TLS handshake failed'), { code: 'BRIDGE_ERR_TRANSPORT' });
    expect((await oneTry({ type: 'transport-error', error: coded }))[1]![1]).toBe(
      'transport error: TLS handshake failed (BRIDGE_ERR_TRANSPORT)',
    );
  });

  it('penaltyMs moves the reasons that are on by default', async () => {
    const { locator } = setup({ penaltyMs: 15_000 });
    expect(locator.policy.penalty).toEqual({
      retryAfter: true,
      serviceUnavailableMs: false,
      failoverResponseMs: false,
      inviteTimeoutMs: 15_000,
      nonInviteTimeoutMs: false,
      transportErrorMs: 15_000,
    });
  });
});

describe('FailoverPolicy: each reason has its own duration, or off', () => {
  it.each<[string, TryOutcome, { method?: string; penalty: PenaltyPolicy }, [string, string, number] | null]>([
    [
      '503 without Retry-After, on',
      { type: 'response', status: 503 },
      { penalty: { serviceUnavailableMs: 5_000 } },
      ['service-unavailable', '503 without Retry-After', 5_000],
    ],
    [
      '503 with Retry-After, off',
      { type: 'response', status: 503, retryAfter: 30 },
      { penalty: { retryAfter: false } },
      null,
    ],
    ['INVITE timeout, off', { type: 'timeout' }, { method: 'INVITE', penalty: { inviteTimeoutMs: false } }, null],
    [
      'INVITE timeout, 10 s',
      { type: 'timeout' },
      { method: 'invite', penalty: { inviteTimeoutMs: 10_000 } },
      ['timeout', 'no response to INVITE within 6000 ms', 10_000],
    ],
    [
      'MESSAGE timeout, on',
      { type: 'timeout' },
      { method: 'MESSAGE', penalty: { nonInviteTimeoutMs: 20_000 } },
      ['timeout', 'no response to MESSAGE within 6000 ms', 20_000],
    ],
    ['transport error, off', { type: 'transport-error' }, { penalty: { transportErrorMs: false } }, null],
    [
      'transport error, clamped to 300 s',
      { type: 'transport-error' },
      { penalty: { transportErrorMs: 10_000_000 } },
      ['transport-error', 'transport error', 300_000],
    ],
  ])('%s', async (_name, outcome, options, entry) => {
    expect(await oneTry(outcome, options)).toEqual(['failover', entry]);
  });
});

describe('FailoverPolicy: the failover set', () => {
  it('by default only 503 fails over: a 500 ends the walk and is the answer', async () => {
    expect(DEFAULT_FAILOVER_ON).toEqual([503]);
    expect(await oneTry({ type: 'response', status: 500 })).toEqual(['success', null]);
    expect(await oneTry({ type: 'response', status: 408 })).toEqual(['success', null]);
  });

  it('failoverOn [500, 503, 504, 408]: each moves on; a 404 still ends the walk; not boxed unless asked', async () => {
    const failoverOn = [500, 503, 504, 408];
    for (const status of [500, 504, 408]) {
      expect(await oneTry({ type: 'response', status }, { failoverOn })).toEqual(['failover', null]);
    }
    expect(await oneTry({ type: 'response', status: 404 }, { failoverOn })).toEqual(['success', null]);
    expect(
      await oneTry({ type: 'response', status: 500 }, { failoverOn, penalty: { failoverResponseMs: 7_000 } }),
    ).toEqual(['failover', ['failover-response', '500 response', 7_000]]);
  });

  it('a failover set without 503: a 503 is the answer, the next target is not tried', async () => {
    const { locator } = setup({ failoverOn: [500] });
    const cursor = locator.cursor(URI);
    const attempt = await cursor.next();
    expect(cursor.report(attempt!, { type: 'response', status: 503, retryAfter: 30 })).toBe('success');
    expect(locator.penaltyBox.size).toBe(0);
    expect(await cursor.next()).toBeUndefined();
  });

  it('a cursor can carry its own set, over the locator’s', async () => {
    const { locator } = setup();
    const cursor = locator.cursor(URI, { failoverOn: [500] });
    const first = await cursor.next();
    expect(cursor.report(first!, { type: 'response', status: 500 })).toBe('failover');
    const second = await cursor.next();
    expect(second!.index).toBe(1);
    expect(cursor.report(second!, { type: 'response', status: 503 })).toBe('success');
  });

  it('timeouts and transport errors fail over whatever the set', async () => {
    expect((await oneTry({ type: 'timeout' }, { failoverOn: [500] }))[0]).toBe('failover');
    expect((await oneTry({ type: 'transport-error' }, { failoverOn: [500] }))[0]).toBe('failover');
  });
});

describe('FailoverPolicy: off-nominal', () => {
  it('the defaults: 32 s, [503]', () => {
    const policy = new FailoverPolicy();
    expect(policy.transactionTimeoutMs).toBe(DEFAULT_TRANSACTION_TIMEOUT_MS);
    expect(DEFAULT_TRANSACTION_TIMEOUT_MS).toBe(32_000);
    expect([...policy.failoverOn]).toEqual([503]);
  });

  it.each([
    [{ failoverOn: [200] }, 'failoverOn must be a list of final response codes 300..699, not 200'],
    [{ failoverOn: [180] }, 'failoverOn must be a list of final response codes 300..699, not 180'],
    [{ failoverOn: [700] }, 'failoverOn must be a list of final response codes 300..699, not 700'],
    [{ failoverOn: [503.5] }, 'failoverOn must be a list of final response codes 300..699, not 503.5'],
    [{ failoverOn: '503' }, 'failoverOn must be a list of final response codes 300..699, not "503"'],
    [{ transactionTimeoutMs: 0 }, 'transactionTimeoutMs must be a positive integer, not 0'],
    [{ transactionTimeoutMs: Number.NaN }, 'transactionTimeoutMs must be a positive integer, not NaN'],
    [
      { penalty: { inviteTimeoutMs: -1 } },
      'penalty.inviteTimeoutMs must be a non-negative number of ms, or false, not -1',
    ],
    [
      { penalty: { transportErrorMs: true } },
      'penalty.transportErrorMs must be a non-negative number of ms, or false, not true',
    ],
    [{ penalty: { retryAfter: 30 } }, 'penalty.retryAfter must be true or false, not 30'],
    [{ penalty: 'off' }, 'penalty must be an object, not "off"'],
  ])('%j is refused', (options, message) => {
    expect(() => new FailoverPolicy(options as never)).toThrow(InvalidArgumentError);
    expect(() => new FailoverPolicy(options as never)).toThrow(message);
    expect(() => setup(options as never)).toThrow(message);
  });

  it('a cursor refuses a bad set, bound or method at once', () => {
    const { locator } = setup();
    expect(() => locator.cursor(URI, { failoverOn: [100] })).toThrow(InvalidArgumentError);
    expect(() => locator.cursor(URI, { transactionTimeoutMs: -1 })).toThrow(InvalidArgumentError);
    expect(() => locator.cursor(URI, { method: '' })).toThrow(InvalidArgumentError);
  });
});
