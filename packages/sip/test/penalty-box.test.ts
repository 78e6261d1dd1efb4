/** The penalty box: default and Retry-After times, the clamp, expiry by the clock, direct marks. */
import diagnostics from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core';
import { PenaltyBox, destinationKey, normalizeDestination } from '../src/penalty-box.js';
import { ManualClock } from './support/fixtures.js';

const sip1 = { transport: 'udp', address: '203.0.113.11', port: 5060 } as const;
let clock: ManualClock;
let box: PenaltyBox;
beforeEach(() => {
  clock = new ManualClock(0);
  box = new PenaltyBox({ clock });
});

describe('PenaltyBox: nominal', () => {
  it('a failed destination is in the box for 60 s by default, then leaves by itself', () => {
    expect(box.markFailed(sip1)).toEqual({ ...sip1, until: 60_000, reason: 'manual', detail: 'manual' });
    expect(box.isPenalized(sip1)).toBe(true);
    clock.advance(59_999);
    expect(box.isPenalized(sip1)).toBe(true);
    clock.advance(1);
    expect(box.isPenalized(sip1)).toBe(false);
    expect(box.size).toBe(0);
  });

  it('Retry-After sets the time, clamped to 300 s', () => {
    expect(box.markFailed(sip1, { retryAfter: 10 }).until).toBe(10_000);
    const other = { ...sip1, port: 5070 };
    expect(box.markFailed(other, { retryAfter: 86_400 }).until).toBe(300_000);
  });

  it('Retry-After 0 puts nothing in the box for long: the server said it is back', () => {
    box.markFailed(sip1, { retryAfter: 0 });
    expect(box.isPenalized(sip1)).toBe(false);
  });

  it('callers can mark a destination directly, for a given time, also clamped', () => {
    expect(box.markFailed(sip1, { durationMs: 5_000, detail: 'OPTIONS ping failed' })).toEqual({
      ...sip1,
      until: 5_000,
      reason: 'manual',
      detail: 'OPTIONS ping failed',
    });
    expect(box.markFailed({ ...sip1, port: 1 }, { durationMs: 10_000_000 }).until).toBe(300_000);
  });

  it('a second mark keeps the later end', () => {
    box.markFailed(sip1, { retryAfter: 200 });
    expect(box.markFailed(sip1, { retryAfter: 5 }).until).toBe(200_000);
  });

  it('destinations differ by transport, address and port; IPv6 is normalized', () => {
    box.markFailed({ transport: 'tcp', address: '2001:DB8:0::1', port: 5060 });
    expect(box.isPenalized({ transport: 'tcp', address: '2001:db8::1', port: 5060 })).toBe(true);
    expect(box.isPenalized({ transport: 'udp', address: '2001:db8::1', port: 5060 })).toBe(false);
    expect(box.isPenalized({ transport: 'tcp', address: '2001:db8::1', port: 5061 })).toBe(false);
    expect(destinationKey({ transport: 'tcp', address: '[2001:db8::1]', port: 5060 })).toBe('tcp 2001:db8::1 5060');
    expect(normalizeDestination({ transport: 'TLS' as 'tls', address: '192.0.2.1', port: 5061 })).toEqual({
      transport: 'tls',
      address: '192.0.2.1',
      port: 5061,
    });
  });

  it('clear() takes a destination out; entries() lists the box, ending first first', () => {
    box.markFailed(sip1, { retryAfter: 100 });
    box.markFailed({ ...sip1, port: 5070 }, { retryAfter: 50 });
    expect(box.entries().map((e) => e.port)).toEqual([5070, 5060]);
    expect(box.clear(sip1)).toBe(true);
    expect(box.clear(sip1)).toBe(false);
    box.clearAll();
    expect(box.size).toBe(0);
  });

  it('is bounded: beyond maxEntries the entry ending first goes', () => {
    const small = new PenaltyBox({ clock, maxEntries: 2 });
    small.markFailed({ ...sip1, port: 1 }, { retryAfter: 30 });
    small.markFailed({ ...sip1, port: 2 }, { retryAfter: 10 });
    small.markFailed({ ...sip1, port: 3 }, { retryAfter: 20 });
    expect(small.entries().map((e) => e.port)).toEqual([3, 1]);
  });

  it('publishes enter and leave on dnscore:sip:penalty', () => {
    const seen: unknown[] = [];
    const listener = (message: unknown): void => void seen.push(message);
    diagnostics.subscribe('dnscore:sip:penalty', listener);
    try {
      box.markFailed(sip1, { reason: 'service-unavailable', detail: '503' });
      box.clear(sip1);
    } finally {
      diagnostics.unsubscribe('dnscore:sip:penalty', listener);
    }
    const entry = { ...sip1, until: 60_000, reason: 'service-unavailable', detail: '503' };
    expect(seen).toEqual([
      { event: 'enter', entry, reason: 'service-unavailable' },
      { event: 'leave', entry, reason: 'cleared' },
    ]);
  });
});

describe('PenaltyBox: with fake timers and the system clock', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires as fake time passes, without any timer of its own', () => {
    const systemBox = new PenaltyBox();
    systemBox.markFailed(sip1);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(systemBox.isPenalized(sip1)).toBe(false);
  });
});

describe('PenaltyBox: off-nominal', () => {
  it.each([
    [{ retryAfter: -1 }, 'Retry-After must be a non-negative number of seconds, not -1'],
    [{ retryAfter: Number.NaN }, 'Retry-After must be a non-negative number of seconds, not NaN'],
    [{ durationMs: Number.POSITIVE_INFINITY }, 'a penalty duration must be a non-negative number of ms, not Infinity'],
  ])('mark options %j are refused', (options, message) => {
    expect(() => box.markFailed(sip1, options)).toThrow(new InvalidArgumentError(message));
  });

  it.each([
    [{ transport: 'sctp', address: '192.0.2.1', port: 5060 }, 'unknown transport "sctp" (udp, tcp, tls)'],
    [{ transport: 'udp', address: 'sip1.biloxi.example', port: 5060 }, '"sip1.biloxi.example" is not an IP address'],
    [{ transport: 'udp', address: '192.0.2.1', port: 0 }, 'port 0 is outside 1..65535'],
    [null, 'a destination needs transport, address and port'],
  ])('destination %j is refused', (destination, message) => {
    expect(() => box.markFailed(destination as never)).toThrow(new InvalidArgumentError(message));
  });

  it('options are checked', () => {
    expect(() => new PenaltyBox({ maxEntries: 0 })).toThrow('penalty box maxEntries must be a positive integer');
    expect(() => new PenaltyBox({ penaltyMs: -1 })).toThrow('penaltyMs must be a non-negative number');
  });
});
