/**
 * A response after a try's timer ran out (cursor.reportLate): the server was slow, not silent.
 * A 503 with Retry-After boxes it for that long (RFC 3261 21.5.4); any other response takes it
 * out of the box its timeout put it in; the walk goes on as it was.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, StateError } from '@dnscore/core';
import { setup } from './support/fixtures.js';

const URI = 'sip:bob@biloxi.example;transport=udp';

describe('FailoverCursor.reportLate', () => {
  it('a late 503 with Retry-After boxes a server a non-INVITE timeout left open', async () => {
    const { locator, clock } = setup();
    const cursor = locator.cursor(URI, { method: 'OPTIONS' });
    const slow = await cursor.next();
    expect(cursor.report(slow!, { type: 'timeout' })).toBe('failover');
    expect(locator.penaltyBox.isPenalized(slow!.target)).toBe(false);
    const next = await cursor.next();

    const entry = cursor.reportLate(slow!, { type: 'response', status: 503, retryAfter: 120 });
    expect(entry).toMatchObject({
      transport: 'udp',
      address: slow!.target.address,
      port: 5060,
      reason: 'retry-after',
      detail: '503 Service Unavailable, Retry-After 120 s',
      until: clock.now() + 120_000,
    });
    // The walk is where it was: the current try is still the one to report.
    expect(cursor.report(next!, { type: 'response', status: 200 })).toBe('success');
    const later = await locator.cursor(URI).next();
    expect(later!.target.address).not.toBe(slow!.target.address);
  });

  it('a late 503 without Retry-After boxes nothing (the policy default)', async () => {
    const { locator } = setup();
    const cursor = locator.cursor(URI);
    const slow = await cursor.next();
    cursor.report(slow!, { type: 'timeout' });
    expect(cursor.reportLate(slow!, { type: 'response', status: 503 })).toBeUndefined();
    expect(locator.penaltyBox.entries()).toEqual([]);
  });

  it('a late answer takes out of the box a server its INVITE timeout put there', async () => {
    const { locator } = setup();
    const cursor = locator.cursor(URI, { method: 'INVITE' });
    const slow = await cursor.next();
    cursor.report(slow!, { type: 'timeout' });
    expect(locator.penaltyBox.isPenalized(slow!.target)).toBe(true);
    expect(cursor.reportLate(slow!, { type: 'response', status: 486 })).toBeUndefined();
    expect(locator.penaltyBox.isPenalized(slow!.target)).toBe(false);
  });

  it('also for the last try of a walk that is over', async () => {
    const { locator } = setup({ maxTargets: 1 });
    const cursor = locator.cursor(URI);
    const only = await cursor.next();
    cursor.report(only!, { type: 'timeout' });
    expect(await cursor.next()).toBeUndefined();
    expect(cursor.reportLate(only!, { type: 'response', status: 503, retryAfter: 30 })?.reason).toBe('retry-after');
  });

  it('refuses a try not timed out, one of another walk, and an outcome that is not a response', async () => {
    const { locator } = setup();
    const cursor = locator.cursor(URI);
    const current = await cursor.next();
    expect(() => cursor.reportLate(current!, { type: 'response', status: 503 })).toThrow(
      new StateError('a late response is for a try of this walk whose timer ran out'),
    );
    cursor.report(current!, { type: 'response', status: 503 });
    expect(() => cursor.reportLate(current!, { type: 'response', status: 503 })).toThrow(StateError);
    const other = await locator.cursor(URI).next();
    expect(() => cursor.reportLate(other!, { type: 'response', status: 503 })).toThrow(StateError);

    const timed = await cursor.next();
    cursor.report(timed!, { type: 'timeout' });
    expect(() => cursor.reportLate(timed!, { type: 'transport-error' })).toThrow(
      new InvalidArgumentError('a late outcome must be a response'),
    );
    expect(() => cursor.reportLate(timed!, { type: 'response', status: 99 })).toThrow(
      new InvalidArgumentError('SIP status 99 is outside 100..699'),
    );
    expect(() => cursor.reportLate(timed!, { type: 'response', status: 503, retryAfter: -1 })).toThrow(
      InvalidArgumentError,
    );
  });
});
