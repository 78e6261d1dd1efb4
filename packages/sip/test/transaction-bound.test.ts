/**
 * The whole-transaction bound (Timer B/F, 64*T1 = 32 s) over the failover cursor, with fake
 * timers and a clock that follows them: each try's timer is the per-target timer capped by
 * what is left of the bound (the capped-timer rule), no try starts after it, a try cut short
 * by it boxes nothing, and the lookups count.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import { TargetsExhaustedError, TransactionTimeoutError } from '../src/errors.js';
import type { SipAttempt } from '../src/failover-cursor.js';
import { SipLocator, type SipLocatorOptions } from '../src/locator.js';
import type { TryOutcome } from '../src/try-outcome.js';
import { ManualClock } from './support/fixtures.js';

/** Eight servers of one priority order each, silent in every test: 8 x 6 s would be 48 s. */
const ZONE = `$ORIGIN many.test.
$TTL 3600
@ IN SOA ns hostmaster 1 3600 600 86400 300
${Array.from(
  { length: 8 },
  (_, i) => `_sip._udp IN SRV ${i + 1} 0 5060 s${i + 1}\ns${i + 1} IN A 192.0.2.${i + 1}`,
).join('\n')}
`;
const URI = 'sip:bob@many.test';
const silent = (): Promise<TryOutcome> => new Promise(() => {});

function locator(options: SipLocatorOptions = {}): SipLocator {
  const core = new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] })], { random: seededRandom(1) });
  return new SipLocator(core, { ipv6: false, clock: { now: () => Date.now() }, ...options });
}

/** "address timeoutMs capped" of every try. */
const timers = (tries: readonly { attempt: SipAttempt }[]): string[] =>
  tries.map(({ attempt }) => `${attempt.target.address} ${attempt.timeoutMs}${attempt.capped ? ' capped' : ''}`);

describe('the transaction bound (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('eight silent servers: five full tries, the sixth capped to 2 s, TransactionTimeoutError at 32 s', async () => {
    const l = locator();
    const cursor = l.cursor(URI, { method: 'INVITE' });
    const started = Date.now();
    const running = cursor.run(silent);
    const rejection = expect(running).rejects.toBeInstanceOf(TransactionTimeoutError);
    await vi.advanceTimersByTimeAsync(31_999);
    expect(cursor.state).toBe('trying');
    await vi.advanceTimersByTimeAsync(1);
    await rejection;
    await expect(running).rejects.toMatchObject({
      code: 'SIP_ERR_TRANSACTION_TIMEOUT',
      tries: 6,
      timeoutMs: 32_000,
      message: 'no answer from sip:bob@many.test within the transaction bound of 32000 ms (6 tried)',
    });
    expect(Date.now() - started).toBe(32_000);
    expect(cursor.deadline).toBe(started + 32_000);
    expect(cursor.state).toBe('expired');
    expect(timers(cursor.tries)).toEqual([
      '192.0.2.1 6000',
      '192.0.2.2 6000',
      '192.0.2.3 6000',
      '192.0.2.4 6000',
      '192.0.2.5 6000',
      '192.0.2.6 2000 capped',
    ]);
    // INVITE timeouts are boxed; the capped try had 2 s, not the 6 s any server gets: not boxed.
    expect(l.penaltyBox.entries().map((e) => `${e.address} ${e.reason}`)).toEqual([
      '192.0.2.1 timeout',
      '192.0.2.2 timeout',
      '192.0.2.3 timeout',
      '192.0.2.4 timeout',
      '192.0.2.5 timeout',
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a 10 s bound: one full try and one of 4 s; a per-target timer over the bound is capped at once', async () => {
    const short = locator({ transactionTimeoutMs: 10_000 }).cursor(URI);
    const one = expect(short.run(silent)).rejects.toMatchObject({ tries: 2, timeoutMs: 10_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    await one;
    expect(timers(short.tries)).toEqual(['192.0.2.1 6000', '192.0.2.2 4000 capped']);

    const long = locator({ targetTimeoutMs: 40_000 }).cursor(URI);
    const two = expect(long.run(silent)).rejects.toMatchObject({ code: 'SIP_ERR_TRANSACTION_TIMEOUT', tries: 1 });
    await vi.advanceTimersByTimeAsync(32_000);
    await two;
    expect(timers(long.tries)).toEqual(['192.0.2.1 32000 capped']);
  });

  it('the bound of one cursor is an option; a 200 inside it ends the walk as always', async () => {
    const cursor = locator().cursor(URI, { transactionTimeoutMs: 15_000 });
    const running = cursor.run((attempt) =>
      attempt.index < 2 ? silent() : Promise.resolve({ type: 'response', status: 200 }),
    );
    await vi.advanceTimersByTimeAsync(12_000);
    const { attempt } = await running;
    expect(attempt).toMatchObject({ index: 2, timeoutMs: 3_000, capped: true });
    expect(cursor.state).toBe('succeeded');
  });

  it('refusals within the bound: every target is tried, then TargetsExhaustedError', async () => {
    const cursor = locator().cursor(URI);
    await expect(cursor.run(async () => ({ type: 'response', status: 503 }))).rejects.toBeInstanceOf(
      TargetsExhaustedError,
    );
    expect(cursor.tries).toHaveLength(8);
    expect(cursor.state).toBe('exhausted');
  });
});

describe('the transaction bound (a manual clock)', () => {
  it('starts at the first next() (the lookups count); no try is handed out once it has run out', async () => {
    const clock = new ManualClock(0);
    const l = locator({ clock });
    const cursor = l.cursor(URI);
    expect(cursor.deadline).toBeUndefined();
    expect(cursor.remainingMs).toBe(32_000);
    const first = await cursor.next();
    expect(cursor.deadline).toBe(32_000);
    clock.advance(31_000);
    expect(cursor.remainingMs).toBe(1_000);
    expect(cursor.report(first!, { type: 'response', status: 503 })).toBe('failover');
    const second = await cursor.next();
    expect(second).toMatchObject({ index: 1, timeoutMs: 1_000, capped: true });
    clock.advance(1_000);
    cursor.report(second!, { type: 'transport-error' });
    expect(await cursor.next()).toBeUndefined();
    expect(cursor.state).toBe('expired');
    expect(cursor.remainingMs).toBe(0);
    // Only a timeout of a capped try is spared the box: a transport error is proof whenever it comes.
    expect(l.penaltyBox.get(second!.target)?.reason).toBe('transport-error');
  });

  it('a try that got a 1xx is not cut by the bound: an INVITE may ring for minutes', async () => {
    const clock = new ManualClock(0);
    const cursor = locator({ clock }).cursor(URI, { method: 'INVITE' });
    const attempt = await cursor.next();
    expect(cursor.report(attempt!, { type: 'response', status: 180 })).toBe('provisional');
    clock.advance(120_000);
    expect(cursor.report(attempt!, { type: 'response', status: 200 })).toBe('success');
  });
});
