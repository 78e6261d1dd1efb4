/**
 * The failover cursor: order, outcomes, the shared penalty box, Call-ID affinity, the
 * per-target timer (fake timers), re-resolution and misuse.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, InvalidArgumentError, StateError } from '@dnscore/core';
import { BogusAnswerError, NoTargetsError, TargetsExhaustedError } from '../src/errors.js';
import type { SipAttempt, TryOutcome } from '../src/failover-cursor.js';
import { setup } from './support/fixtures.js';

const URI = 'sip:bob@biloxi.example;transport=udp';

describe('FailoverCursor: nominal', () => {
  it('hands out the targets in order, with the per-target timer, and ends after the last', async () => {
    const { locator } = setup();
    const resolution = await locator.resolve(URI);
    const cursor = setup().locator.cursor(URI);
    const seen: SipAttempt[] = [];
    for (let a = await cursor.next(); a; a = await cursor.next()) {
      seen.push(a);
      expect(cursor.report(a, { type: 'response', status: 503 })).toBe('failover');
    }
    expect(seen.map((a) => a.target)).toEqual(resolution.targets);
    expect(seen.map((a) => [a.index, a.timeoutMs, a.penalized, a.pinned, a.switched])).toEqual([
      [0, 6000, false, false, false],
      [1, 6000, false, false, false],
      [2, 6000, false, false, false],
    ]);
    expect(cursor.state).toBe('exhausted');
    expect(cursor.tries.map((t) => t.outcome)).toEqual([
      { type: 'response', status: 503 },
      { type: 'response', status: 503 },
      { type: 'response', status: 503 },
    ]);
  });

  it('a success ends the walk and takes the destination out of the penalty box', async () => {
    const { locator } = setup();
    const cursor = locator.cursor(URI);
    const attempt = await cursor.next();
    locator.penaltyBox.markFailed(attempt!.target);
    expect(cursor.report(attempt!, { type: 'response', status: 200 })).toBe('success');
    expect(cursor.succeeded).toBe(attempt!.target);
    expect(locator.penaltyBox.isPenalized(attempt!.target)).toBe(false);
    expect(await cursor.next()).toBeUndefined();
  });

  it('the penalty box is shared: a second cursor tries the failed server last', async () => {
    const { locator } = setup({ seed: 3 });
    const one = locator.cursor(URI);
    const failed = await one.next();
    one.report(failed!, { type: 'transport-error', error: new Error('ECONNREFUSED') });
    const two = locator.cursor(URI);
    const order: string[] = [];
    for (let a = await two.next(); a; a = await two.next()) {
      order.push(`${a.target.address}${a.penalized ? ' (penalized)' : ''}`);
      two.report(a, { type: 'timeout' });
    }
    expect(order).toHaveLength(3);
    expect(order[2]).toBe(`${failed!.target.address} (penalized)`);
  });

  it('the penalty expires by itself: after 60 s the server is back in its place', async () => {
    const { locator, clock } = setup();
    locator.penaltyBox.markFailed({ transport: 'udp', address: '198.51.100.50', port: 5060 });
    const resolution = await locator.resolve(URI);
    const first = resolution.targets[0]!;
    locator.penaltyBox.markFailed(first);
    expect((await locator.cursor(URI).next())!.target.address).not.toBe(first.address);
    clock.advance(60_000);
    expect((await locator.cursor(URI).next())!.target.address).toBe(first.address);
  });

  it('a Call-ID pinned by a success is tried first by the next cursor of that dialog', async () => {
    const { locator } = setup();
    const invite = locator.cursor(URI, { callId: 'call-1' });
    const first = await invite.next();
    invite.report(first!, { type: 'response', status: 503 });
    const second = await invite.next();
    invite.report(second!, { type: 'response', status: 200 });
    const bye = await locator.cursor(URI, { callId: 'call-1' }).next();
    expect(bye).toMatchObject({ pinned: true, target: second!.target });
    const otherCall = await locator.cursor(URI, { callId: 'call-2' }).next();
    expect(otherCall!.pinned).toBe(false);
  });

  it('a Call-ID learned from the far side pins a server the resolution lists', async () => {
    const { locator } = setup();
    const [, second] = (await locator.resolve(URI)).targets;
    locator.dialogs.learnIncoming('call-9', { transport: 'udp', address: second!.address, port: second!.port });
    const attempt = await locator.cursor(URI, { callId: 'call-9' }).next();
    expect(attempt).toMatchObject({ pinned: true, target: second });
  });

  it('a pin the resolution does not list is never used: the walk starts at the first target', async () => {
    const { locator } = setup();
    const [first] = (await locator.resolve(URI)).targets;
    locator.dialogs.learnIncoming('call-9', { transport: 'udp', address: '192.0.2.200', port: 5080 });
    const cursor = locator.cursor(URI, { callId: 'call-9' });
    const attempt = await cursor.next();
    expect(attempt).toMatchObject({ pinned: false, target: first });
    // Only the one resolution: the pin is checked against the cursor's own list.
    expect(cursor.resolutions).toBe(1);
    cursor.report(attempt!, { type: 'response', status: 200 });
    // The success pins the dialog to the server that answered.
    expect(locator.dialogs.lookup('call-9')).toMatchObject({ address: first!.address, learned: 'outgoing' });
  });

  it('a pin on an IP-literal URI is used only when it is that address', async () => {
    const { locator } = setup();
    locator.dialogs.learnIncoming('call-7', { transport: 'udp', address: '192.0.2.200', port: 5080 });
    const other = await locator.cursor('sip:bob@192.0.2.1:5060', { callId: 'call-7' }).next();
    expect(other).toMatchObject({ pinned: false, target: { address: '192.0.2.1', port: 5060 } });
    const same = await locator.cursor('sip:bob@192.0.2.200:5080', { callId: 'call-7' }).next();
    expect(same).toMatchObject({ pinned: true, target: { address: '192.0.2.200', port: 5080 } });
  });

  it('a pinned destination in the penalty box is not tried first', async () => {
    const { locator } = setup();
    const [first, second] = (await locator.resolve(URI)).targets;
    locator.dialogs.learnIncoming('call-9', second!);
    const attempt = await locator.cursor(URI, { callId: 'call-9' }).next();
    expect(attempt).toMatchObject({ pinned: true, target: second });
    locator.penaltyBox.markFailed(second!);
    expect(await locator.cursor(URI, { callId: 'call-9' }).next()).toMatchObject({ pinned: false, target: first });
  });

  it('a 1xx keeps the try current; its final response decides', async () => {
    const { locator } = setup();
    const cursor = locator.cursor(URI);
    const attempt = await cursor.next();
    expect(cursor.report(attempt!, { type: 'response', status: 180 })).toBe('provisional');
    expect(cursor.state).toBe('provisional');
    expect(cursor.report(attempt!, { type: 'response', status: 503, retryAfter: 30 })).toBe('failover');
    expect(locator.penaltyBox.get(attempt!.target)).toMatchObject({
      reason: 'retry-after',
      detail: '503 Service Unavailable, Retry-After 30 s',
    });
    expect((await cursor.next())!.index).toBe(1);
  });

  it('the size rule applies per try', async () => {
    const { locator } = setup();
    const cursor = locator.cursor(URI);
    const small = await cursor.next({ messageSize: 800 });
    expect(small!.target.transport).toBe('udp');
    cursor.report(small!, { type: 'transport-error' });
    const large = await cursor.next({ messageSize: 4000 });
    expect(large).toMatchObject({ switched: true, target: { transport: 'tcp' } });
    cursor.report(large!, { type: 'transport-error' });
    expect(locator.penaltyBox.isPenalized(large!.target)).toBe(true);
    expect(locator.penaltyBox.isPenalized(large!.resolved)).toBe(false);
  });
});

describe('FailoverCursor.run: the per-target timer (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('503, then silence for 6 s, then 200: three tries, the silent one aborted by its timer', async () => {
    const { locator } = setup();
    const signals: AbortSignal[] = [];
    const script: (TryOutcome | 'silent')[] = [
      { type: 'response', status: 503, retryAfter: 20 },
      'silent',
      { type: 'response', status: 200 },
    ];
    const send = (attempt: SipAttempt, signal: AbortSignal): Promise<TryOutcome> => {
      signals.push(signal);
      const step = script[attempt.index]!;
      return step === 'silent' ? new Promise(() => {}) : Promise.resolve(step);
    };
    const running = locator.cursor(URI).run(send);
    await vi.advanceTimersByTimeAsync(5_999);
    expect(signals).toHaveLength(2);
    expect(signals[1]!.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const { attempt, outcome } = await running;
    expect(attempt.index).toBe(2);
    expect(outcome).toEqual({ type: 'response', status: 200 });
    expect(signals[1]!.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a send that throws is a transport error; when all fail, TargetsExhaustedError', async () => {
    const { locator } = setup();
    const running = locator.cursor(URI).run(async () => {
      throw new Error('ECONNREFUSED');
    });
    await expect(running).rejects.toBeInstanceOf(TargetsExhaustedError);
    await expect(running).rejects.toMatchObject({ code: 'SIP_ERR_TARGETS_EXHAUSTED', tries: 3 });
    expect(locator.penaltyBox.size).toBe(3);
  });

  it('a 1xx ends run(): the server is alive', async () => {
    const { locator } = setup();
    const result = await locator.cursor(URI).run(async () => ({ type: 'response', status: 100 }));
    expect(result.outcome).toEqual({ type: 'response', status: 100 });
  });

  it('cancelling run() rejects with AbortError and aborts the try in flight', async () => {
    const { locator } = setup();
    const controller = new AbortController();
    let trySignal: AbortSignal | undefined;
    const running = locator.cursor(URI).run(
      (_attempt, signal) => {
        trySignal = signal;
        return new Promise(() => {});
      },
      { signal: controller.signal },
    );
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(AbortError);
    expect(trySignal!.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the per-target timer is an option', async () => {
    const { locator } = setup({ targetTimeoutMs: 2_000 });
    const running = locator.cursor(URI).run(() => new Promise(() => {}));
    const rejection = expect(running).rejects.toBeInstanceOf(TargetsExhaustedError);
    await vi.advanceTimersByTimeAsync(6_000);
    await rejection;
  });
});

describe('FailoverCursor: off-nominal', () => {
  it('next() before the current try is reported is a StateError', async () => {
    const cursor = setup().locator.cursor(URI);
    await cursor.next();
    await expect(cursor.next()).rejects.toBeInstanceOf(StateError);
  });

  it('two next() at once is a StateError, not two tries', async () => {
    const cursor = setup().locator.cursor(URI);
    const first = cursor.next();
    await expect(cursor.next()).rejects.toThrow('next() is already running for this cursor');
    expect((await first)!.index).toBe(0);
  });

  it('reporting a try twice, or a try that is not current, is a StateError', async () => {
    const cursor = setup().locator.cursor(URI);
    const attempt = await cursor.next();
    cursor.report(attempt!, { type: 'response', status: 503 });
    expect(() => cursor.report(attempt!, { type: 'response', status: 503 })).toThrow(StateError);
  });

  it.each([
    [{ type: 'response', status: 99 }, 'SIP status 99 is outside 100..699'],
    [{ type: 'response', status: 700 }, 'SIP status 700 is outside 100..699'],
    [{ type: 'reply' }, 'unknown outcome {"type":"reply"}: response, transport-error or timeout'],
  ])('outcome %j is refused', async (outcome, message) => {
    const cursor = setup().locator.cursor(URI);
    const attempt = await cursor.next();
    expect(() => cursor.report(attempt!, outcome as TryOutcome)).toThrow(new InvalidArgumentError(message));
  });

  it('a bad Retry-After is refused', async () => {
    const cursor = setup().locator.cursor(URI);
    const attempt = await cursor.next();
    expect(() => cursor.report(attempt!, { type: 'response', status: 503, retryAfter: -3 })).toThrow(
      InvalidArgumentError,
    );
  });

  it('a resolution without targets rejects next() with its error', async () => {
    await expect(setup().locator.cursor('sip:bob@nx.cases.example').next()).rejects.toBeInstanceOf(NoTargetsError);
    const bogus = setup({ recording: { bogus: ['_sip._udp.biloxi.example SRV'] } });
    await expect(bogus.locator.cursor(URI).next()).rejects.toBeInstanceOf(BogusAnswerError);
  });

  it('a bad message size is refused', async () => {
    expect(() => setup().locator.cursor(URI, { messageSize: -1 })).toThrow(InvalidArgumentError);
    await expect(setup().locator.cursor(URI).next({ messageSize: Number.NaN })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });
});
