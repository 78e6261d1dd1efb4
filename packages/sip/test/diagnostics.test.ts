/**
 * The SIP diagnostics channels: the `dnscore:sip:locate` trace, failover, penalty box and
 * Call-ID affinity events, with their exact payloads and order.
 */
import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { CHANNELS, sipLocateChannel, type SipLocateTraceContext } from '@dnscore/core/diagnostics';
import * as sip from '@dnscore/sip';
import { DnsCore, ZoneResolver, seededRandom, withCache } from '@dnscore/core';
import { ALL_ZONES, lines, setup } from './support/fixtures.js';

const URI = 'sip:bob@biloxi.example;transport=udp';
const SIP2 = { transport: 'udp', address: '203.0.113.12', port: 5060, host: 'sip2.biloxi.example' };
const SIP1 = { transport: 'udp', address: '203.0.113.11', port: 5060, host: 'sip1.biloxi.example' };
const BACKUP = { transport: 'udp', address: '198.51.100.50', port: 5060, host: 'backup.biloxi.example' };
const where = ({ transport, address, port }: { transport: string; address: string; port: number }) => ({
  transport,
  address,
  port,
});

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function listen(names: readonly string[]): [string, unknown][] {
  const seen: [string, unknown][] = [];
  const listener = (message: unknown, name: string | symbol) => void seen.push([String(name), message]);
  for (const name of names) diagnostics.subscribe(name, listener);
  stops.push(() => {
    for (const name of names) diagnostics.unsubscribe(name, listener);
  });
  return seen;
}

describe('dnscore:sip:locate', () => {
  it('traces a location from the URI to the rule, targets and rounds', async () => {
    const { locator } = setup();
    const seen: [string, string, SipLocateTraceContext['result']][] = [];
    const handlers = {
      start: (ctx: SipLocateTraceContext) => seen.push(['start', ctx.uri, ctx.result]),
      end: () => {},
      asyncStart: () => {},
      asyncEnd: (ctx: SipLocateTraceContext) => seen.push(['asyncEnd', ctx.uri, ctx.result]),
      error: (ctx: SipLocateTraceContext) => seen.push(['error', ctx.uri, ctx.result]),
    };
    sipLocateChannel.subscribe(handlers);
    stops.push(() => sipLocateChannel.unsubscribe(handlers));
    const resolution = await locator.resolve(URI);
    expect(seen.map(([event, uri]) => [event, uri])).toEqual([
      ['start', URI],
      ['asyncEnd', URI],
    ]);
    const result = seen[1]![2]!;
    expect(result).toBe(resolution);
    expect([result.rule, lines(resolution.targets), result.roundTrips, result.queries, result.error]).toEqual([
      'transport-param',
      [
        'udp 203.0.113.11:5060 sip1.biloxi.example',
        'udp 203.0.113.12:5060 sip2.biloxi.example',
        'udp 198.51.100.50:5060 backup.biloxi.example',
      ],
      1,
      3,
      undefined,
    ]);
  });

  it('ends with an error for a URI that cannot be located, and the resolution names it', async () => {
    const { locator } = setup();
    const results: SipLocateTraceContext['result'][] = [];
    const handlers = {
      start: () => {},
      end: () => {},
      asyncStart: () => {},
      asyncEnd: (ctx: SipLocateTraceContext) => void results.push(ctx.result),
      error: () => {},
    };
    sipLocateChannel.subscribe(handlers);
    stops.push(() => sipLocateChannel.unsubscribe(handlers));
    const resolution = await locator.resolve('sip:alice@nowhere.biloxi.example');
    expect(results).toEqual([resolution]);
    expect(results[0]!.targets).toEqual([]);
    expect(results[0]!.error?.name).toBe('NoTargetsError');
  });
});

describe('failover, penalty box and affinity events', () => {
  it('says where each failed try went next, why, and how long the walk has taken', async () => {
    const { locator, clock } = setup();
    const seen = listen([CHANNELS.failover, CHANNELS.penalty, CHANNELS.affinity]);
    const cursor = locator.cursor(URI, { callId: 'call-7@atlanta.example' });
    const first = await cursor.next();
    clock.advance(250);
    cursor.report(first!, { type: 'response', status: 503, retryAfter: 30 });
    const second = await cursor.next();
    clock.advance(6000);
    cursor.report(second!, { type: 'timeout' });
    const third = await cursor.next();
    clock.advance(40);
    cursor.report(third!, { type: 'response', status: 200 });
    const start = 1_700_000_000_000;
    expect(seen).toEqual([
      [
        CHANNELS.penalty,
        {
          event: 'enter',
          entry: {
            ...where(SIP1),
            until: start + 250 + 30_000,
            reason: 'retry-after',
            detail: '503 Service Unavailable, Retry-After 30 s',
          },
          reason: 'retry-after',
        },
      ],
      [
        CHANNELS.failover,
        { uri: URI, from: SIP1, to: SIP2, reason: '503 Service Unavailable', index: 0, elapsedMs: 250 },
      ],
      // A timeout of a request without a method boxes nothing (the failover policy's choice).
      [CHANNELS.failover, { uri: URI, from: SIP2, to: BACKUP, reason: 'no response', index: 1, elapsedMs: 6250 }],
      [CHANNELS.affinity, { callId: 'call-7@atlanta.example', destination: BACKUP, learned: 'outgoing' }],
    ]);
  });

  it('says when the last target failed (to: undefined), and when a boxed server answered', async () => {
    const { locator, clock } = setup();
    const cursor = locator.cursor(URI);
    for (let a = await cursor.next(); a; a = await cursor.next()) {
      if (a.index === 2) {
        clock.advance(10);
        const seen = listen([CHANNELS.failover]);
        cursor.report(a, { type: 'transport-error', error: new Error('ECONNREFUSED') });
        expect(await cursor.next()).toBeUndefined();
        expect(seen).toEqual([
          [
            CHANNELS.failover,
            { uri: URI, from: BACKUP, to: undefined, reason: 'transport error', index: 2, elapsedMs: 10 },
          ],
        ]);
        break;
      }
      cursor.report(a, { type: 'response', status: 503, retryAfter: 60 });
    }
    const seen = listen([CHANNELS.penalty]);
    const again = locator.cursor(URI);
    const boxed = await again.next();
    expect(boxed!.penalized).toBe(true);
    again.report(boxed!, { type: 'response', status: 180 });
    again.report(boxed!, { type: 'response', status: 200 });
    expect(seen).toEqual([
      [
        CHANNELS.penalty,
        {
          event: 'leave',
          entry: {
            ...where(boxed!.target),
            until: 1_700_000_000_000 + 60_000,
            reason: 'retry-after',
            detail: '503 Service Unavailable, Retry-After 60 s',
          },
          reason: 'cleared',
        },
      ],
    ]);
  });
});

/** A destination as the penalty box takes it. */
const udp = (d: { address: string; port: number }) => ({ transport: 'udp' as const, address: d.address, port: d.port });

describe('penalty box: leaving on its own', () => {
  it('says an entry expired at the first read after its end, with the reason it was in, once', async () => {
    const { locator, clock } = setup();
    const seen = listen([CHANNELS.penalty]);
    const box = locator.penaltyBox;
    box.markFailed(udp(SIP1), { retryAfter: 30, reason: 'retry-after', detail: '503, Retry-After 30 s' });
    box.markFailed(udp(SIP2), { durationMs: 90_000, reason: 'timeout' });
    const entry1 = { ...where(SIP1), until: 1_700_000_000_000 + 30_000, reason: 'retry-after' };
    clock.advance(30_000);
    // Nothing reads the box: nothing is said yet (no timer).
    expect(seen.map(([, m]) => (m as { event: string }).event)).toEqual(['enter', 'enter']);
    // Ordering targets reads the box: the expiry is said then.
    const cursor = locator.cursor(URI);
    const first = await cursor.next();
    expect(where(first!.target)).toEqual(where(SIP1));
    expect(seen.slice(2)).toEqual([
      [CHANNELS.penalty, { event: 'leave', entry: { ...entry1, detail: '503, Retry-After 30 s' }, reason: 'expired' }],
    ]);
    expect(box.isPenalized(udp(SIP1))).toBe(false);
    expect(seen).toHaveLength(3);
    clock.advance(60_000);
    expect(box.entries()).toEqual([]);
    expect(seen.slice(3)).toEqual([
      [
        CHANNELS.penalty,
        {
          event: 'leave',
          entry: { ...where(SIP2), until: 1_700_000_000_000 + 90_000, reason: 'timeout', detail: 'timeout' },
          reason: 'expired',
        },
      ],
    ]);
  });

  it('says an entry pushed out of a full box (evicted), and each entry clearAll() takes out', () => {
    const { PenaltyBox } = sip;
    let now = 1_000;
    const box = new PenaltyBox({ maxEntries: 1, clock: { now: () => now } });
    const seen = listen([CHANNELS.penalty]);
    box.markFailed(udp(SIP1), { durationMs: 5_000, reason: 'timeout' });
    box.markFailed(udp(SIP2), { durationMs: 9_000, reason: 'transport-error' });
    now += 1;
    box.markFailed(udp(BACKUP), { durationMs: 9_000, reason: 'manual' });
    box.clearAll();
    expect(seen.map(([, m]) => [(m as { event: string }).event, (m as { reason: string }).reason])).toEqual([
      ['enter', 'timeout'],
      ['leave', 'evicted'],
      ['enter', 'transport-error'],
      ['leave', 'evicted'],
      ['enter', 'manual'],
      ['leave', 'cleared'],
    ]);
    expect((seen[1]![1] as { entry: { address: string } }).entry.address).toBe(SIP1.address);
  });
});

describe('dnscore:sip:locate from a target plan', () => {
  it('traces a location answered from its target plan too, marked planned', async () => {
    const core = new DnsCore([withCache(new ZoneResolver({ files: ALL_ZONES }))], { random: seededRandom(1) });
    const locator = new sip.SipLocator(core);
    const seen: [string, boolean | undefined, number | undefined][] = [];
    const handlers = {
      start: () => {},
      end: () => {},
      asyncStart: () => {},
      asyncEnd: (ctx: SipLocateTraceContext) => void seen.push([ctx.uri, ctx.planned, ctx.result?.targets.length]),
      error: () => {},
    };
    sipLocateChannel.subscribe(handlers);
    stops.push(() => sipLocateChannel.unsubscribe(handlers));
    // The first asks the backend (its cache stores the answers: the plan is made), the next use it.
    await locator.resolve(URI);
    await locator.resolve(URI);
    const again = await locator.resolve(URI);
    expect(again.targets).toHaveLength(3);
    expect(seen).toEqual([
      [URI, undefined, 3],
      [URI, true, 3],
      [URI, true, 3],
    ]);
  });
});
