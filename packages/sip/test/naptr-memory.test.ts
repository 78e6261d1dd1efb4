/**
 * NAPTR memory (issue 14): when every target of the NAPTR a request followed failed, the walk
 * goes on with the next NAPTR of the same order (RFC 3403 section 4.1), never one of a higher
 * order, never a non-SIPS service for a sips: URI, never a transport the client lacks; in mode
 * 'ttl' the NAPTR is remembered until its TTL ends. Manual clock, hand-reported outcomes.
 */
import { describe, expect, it, vi } from 'vitest';
import { DnsCore, InvalidArgumentError, ZoneResolver, seededRandom, withCache } from '@dnscore/core';
import { TransactionTimeoutError } from '../src/errors.js';
import type { FailoverCursor, SipAttempt } from '../src/failover-cursor.js';
import { SipLocator, type SipLocatorOptions } from '../src/locator.js';
import { NaptrMemory } from '../src/naptr-memory.js';
import type { TryOutcome } from '../src/try-outcome.js';
import { renderStepThrough } from '../src/step-through.js';
import { ManualClock } from './support/fixtures.js';
import { recording } from './support/recording-plugin.js';

/**
 * Order 10: TLS, then TCP, then UDP; order 20: another UDP server that must never be reached.
 * `sec`: two SIPS NAPTRs and a UDP one of the same order. NAPTR TTL 600 s, the rest 3600 s.
 */
const ZONE = `$ORIGIN mem.test.
$TTL 3600
@ IN SOA ns hostmaster 1 3600 600 86400 300
@ 600 IN NAPTR 10 10 "s" "SIPS+D2T" "" _sips._tcp
@ 600 IN NAPTR 10 20 "s" "SIP+D2T" "" _sip._tcp
@ 600 IN NAPTR 10 30 "s" "SIP+D2U" "" _sip._udp
@ 600 IN NAPTR 20 10 "s" "SIP+D2U" "" _sip._udp.later
_sips._tcp IN SRV 10 0 5061 tls1
_sips._tcp IN SRV 20 0 5061 tls2
_sip._tcp IN SRV 10 0 5060 tcp1
_sip._udp IN SRV 10 0 5060 udp1
_sip._udp.later IN SRV 10 0 5060 later1
tls1 IN A 192.0.2.61
tls2 IN A 192.0.2.62
tcp1 IN A 192.0.2.51
udp1 IN A 192.0.2.50
later1 IN A 192.0.2.99
sec 600 IN NAPTR 10 10 "s" "SIPS+D2T" "" _sips._tcp.sec
sec 600 IN NAPTR 10 20 "s" "SIP+D2U" "" _sip._udp.sec
sec 600 IN NAPTR 10 30 "s" "SIPS+D2T" "" _sips._tcp.alt.sec
_sips._tcp.sec IN SRV 10 0 5061 tls1
_sips._tcp.alt.sec IN SRV 10 0 5061 tls3
_sip._udp.sec IN SRV 10 0 5060 udp1
tls3 IN A 192.0.2.63
`;

const TLS = '10 10 "s" "SIPS+D2T" "" _sips._tcp.mem.test.';
const TCP = '10 20 "s" "SIP+D2T" "" _sip._tcp.mem.test.';
const UDP = '10 30 "s" "SIP+D2U" "" _sip._udp.mem.test.';
const REFUSED: TryOutcome = { type: 'transport-error', error: new Error('connect ECONNREFUSED') };
const T0 = 1_700_000_000_000;

function locator(options: SipLocatorOptions & { readonly bogus?: readonly string[] } = {}) {
  const { bogus, ...rest } = options;
  const clock = new ManualClock(T0);
  const plugin = recording(new ZoneResolver({ zones: [{ text: ZONE }] }), bogus ? { bogus } : {});
  const core = new DnsCore([plugin], { random: seededRandom(1) });
  return { clock, locator: new SipLocator(core, { ipv6: false, clock, ...rest }) };
}

/** Walks a cursor, answering each try with `outcome(address)`; returns "transport address" of each try. */
async function walk(cursor: FailoverCursor, outcome: (address: string) => TryOutcome): Promise<string[]> {
  const seen: string[] = [];
  for (let a = await cursor.next(); a; a = await cursor.next()) {
    seen.push(`${a.target.transport} ${a.target.address}`);
    if (cursor.report(a, outcome(a.target.address)) === 'success') break;
  }
  return seen;
}

const attempts = (cursor: FailoverCursor): SipAttempt[] => cursor.tries.map((t) => t.attempt);

describe('NAPTR memory, mode request (the default): the next NAPTR of the same order', () => {
  it('every server refuses: TLS, then TCP, then UDP of order 10; never the order-20 server', async () => {
    const { locator: l } = locator();
    expect(l.naptrMemoryMode).toBe('request');
    const cursor = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(cursor, () => REFUSED)).toEqual([
      'tls 192.0.2.61',
      'tls 192.0.2.62',
      'tcp 192.0.2.51',
      'udp 192.0.2.50',
    ]);
    expect(cursor.state).toBe('exhausted');
    const naptrs = attempts(cursor).map((a) => a.skippedNaptrs);
    expect(naptrs[0]).toEqual([]);
    expect(naptrs[1]).toEqual([]);
    expect(naptrs[2]).toEqual([
      {
        owner: 'mem.test',
        record: TLS,
        transport: 'tls',
        reason: 'failed',
        detail: 'every target failed: tls 192.0.2.61:5061 (transport error), tls 192.0.2.62:5061 (transport error)',
      },
    ]);
    expect(naptrs[3]).toEqual([
      {
        owner: 'mem.test',
        record: TCP,
        transport: 'tcp',
        reason: 'failed',
        detail: 'every target failed: tcp 192.0.2.51:5060 (transport error)',
      },
    ]);
    // Nothing is remembered across requests in this mode.
    expect(l.naptrMemory.entries()).toEqual([]);
  });

  it('a later request passes a NAPTR whose targets are boxed, and tries it again when the box empties', async () => {
    const { locator: l, clock } = locator();
    await walk(l.cursor('sip:bob@mem.test', { method: 'INVITE' }), (a) => (a.startsWith('192.0.2.6') ? REFUSED : ok));
    const second = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(second, () => ok)).toEqual(['tcp 192.0.2.51']);
    const first = attempts(second)[0]!;
    expect(first.penalized).toBe(false);
    // The boxed TLS targets were passed over too, each with its penalty entry.
    expect(first.skipped.map((e) => `${e.transport} ${e.address} ${e.reason}`)).toEqual([
      'tls 192.0.2.61 transport-error',
      'tls 192.0.2.62 transport-error',
    ]);
    expect(first.skippedNaptrs.map((s) => [s.record, s.reason, s.until])).toEqual([[TLS, 'failed', undefined]]);
    expect(first.skippedNaptrs[0]!.detail).toBe(
      'every target failed: tls 192.0.2.61:5061 (in the penalty box: transport error: connect ECONNREFUSED), ' +
        'tls 192.0.2.62:5061 (in the penalty box: transport error: connect ECONNREFUSED)',
    );
    clock.advance(60_000); // the box lets the TLS servers out
    expect(await walk(l.cursor('sip:bob@mem.test', { method: 'INVITE' }), () => ok)).toEqual(['tls 192.0.2.61']);
  });

  it('the boxed targets of the NAPTRs left are still tried, last, when the next NAPTR fails too', async () => {
    const { locator: l } = locator();
    await walk(l.cursor('sip:bob@mem.test', { method: 'INVITE' }), (a) => (a.startsWith('192.0.2.6') ? REFUSED : ok));
    // TLS servers boxed; TCP and UDP fail now: the boxed TLS servers come last, never dropped.
    const second = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(second, () => REFUSED)).toEqual([
      'tcp 192.0.2.51',
      'udp 192.0.2.50',
      'tls 192.0.2.61',
      'tls 192.0.2.62',
    ]);
    expect(attempts(second).map((a) => a.penalized)).toEqual([false, false, true, true]);
    expect(second.state).toBe('exhausted');
  });

  it('every server of the order in the penalty box: each is tried, boxed, in NAPTR order', async () => {
    const { locator: l } = locator();
    await walk(l.cursor('sip:bob@mem.test', { method: 'INVITE' }), () => REFUSED);
    const second = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(second, () => REFUSED)).toEqual([
      'tls 192.0.2.61',
      'tls 192.0.2.62',
      'tcp 192.0.2.51',
      'udp 192.0.2.50',
    ]);
    expect(attempts(second).map((a) => a.penalized)).toEqual([true, true, true, true]);
    // A boxed server that answers ends the walk there.
    const third = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(third, (a) => (a === '192.0.2.51' ? ok : REFUSED))).toEqual([
      'tls 192.0.2.61',
      'tls 192.0.2.62',
      'tcp 192.0.2.51',
    ]);
  });

  it('a sips: URI walks to the other SIPS NAPTR of the order, never to SIP+D2U between them', async () => {
    const { locator: l } = locator();
    const cursor = l.cursor('sips:bob@sec.mem.test');
    expect(await walk(cursor, () => REFUSED)).toEqual(['tls 192.0.2.61', 'tls 192.0.2.63']);
    expect(cursor.state).toBe('exhausted');
    expect(cursor.resolution!.naptr!.candidates.map((c) => c.record)).toEqual([
      '10 10 "s" "SIPS+D2T" "" _sips._tcp.sec.mem.test.',
      '10 30 "s" "SIPS+D2T" "" _sips._tcp.alt.sec.mem.test.',
    ]);
  });

  it('a client without TCP goes from TLS to UDP, never to the TCP NAPTR', async () => {
    const { locator: l } = locator({ transports: ['udp', 'tls'] });
    const cursor = l.cursor('sip:bob@mem.test');
    expect(await walk(cursor, () => REFUSED)).toEqual(['tls 192.0.2.61', 'tls 192.0.2.62', 'udp 192.0.2.50']);
  });

  it('a URI with transport= has no NAPTR to walk: TCP only', async () => {
    const { locator: l } = locator();
    const cursor = l.cursor('sip:bob@mem.test;transport=tcp');
    expect(await walk(cursor, () => REFUSED)).toEqual(['tcp 192.0.2.51']);
    expect(cursor.resolution!.rule).toBe('transport-param');
    expect(cursor.resolution!.naptr).toBeUndefined();
  });

  it('a bogus SRV answer behind the next NAPTR ends the walk there: never a target from it', async () => {
    const { locator: l } = locator({ bogus: ['_sip._tcp.mem.test SRV'] });
    const first = await l.resolve('sip:bob@mem.test');
    expect(first.targets.map((t) => t.address)).toEqual(['192.0.2.61', '192.0.2.62']);
    const cursor = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(cursor, () => REFUSED)).toEqual(['tls 192.0.2.61', 'tls 192.0.2.62']);
    expect(cursor.state).toBe('exhausted');
    // The walk keeps the resolution it had; the one that failed validation is not used.
    expect(cursor.resolution!.naptr!.chosen.record).toBe(TLS);
    expect(cursor.resolutions).toBe(2);
  });

  it("mode 'off' keeps the walk on the NAPTR its resolution chose", async () => {
    const { locator: l } = locator({ naptrMemory: 'off' });
    const cursor = l.cursor('sip:bob@mem.test');
    expect(await walk(cursor, () => REFUSED)).toEqual(['tls 192.0.2.61', 'tls 192.0.2.62']);
    expect(cursor.state).toBe('exhausted');
  });

  it('refuses an unknown mode', () => {
    const core = new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] })]);
    expect(() => new SipLocator(core, { naptrMemory: 'always' as 'ttl' })).toThrow(InvalidArgumentError);
    expect(() => new SipLocator(core, { naptrMemory: 'always' as 'ttl' })).toThrow(
      `naptrMemory must be 'off', 'request' or 'ttl', not "always"`,
    );
  });
});

const ok: TryOutcome = { type: 'response', status: 200 };

describe("NAPTR memory, mode 'ttl': remembered until the NAPTR's TTL ends", () => {
  it('remembers the TLS NAPTR for its 600 s, past the 60 s of the penalty box', async () => {
    const { locator: l, clock } = locator({ naptrMemory: 'ttl' });
    const first = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(first, (a) => (a.startsWith('192.0.2.6') ? REFUSED : ok))).toEqual([
      'tls 192.0.2.61',
      'tls 192.0.2.62',
      'tcp 192.0.2.51',
    ]);
    expect(attempts(first)[2]!.skippedNaptrs.map((s) => [s.reason, s.until])).toEqual([['failed', T0 + 600_000]]);
    expect(l.naptrMemory.entries()).toEqual([
      {
        owner: 'mem.test',
        record: TLS,
        transport: 'tls',
        until: T0 + 600_000,
        detail: 'every target failed: tls 192.0.2.61:5061 (transport error), tls 192.0.2.62:5061 (transport error)',
      },
    ]);
    clock.advance(60_000); // the penalty box is empty again, the memory is not
    expect(l.penaltyBox.entries()).toEqual([]);
    const later = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(later, () => ok)).toEqual(['tcp 192.0.2.51']);
    expect(attempts(later)[0]!.skippedNaptrs.map((s) => [s.record, s.reason, s.until])).toEqual([
      [TLS, 'remembered', T0 + 600_000],
    ]);
    clock.advance(540_000 - 1);
    expect(await walk(l.cursor('sip:bob@mem.test'), () => ok)).toEqual(['tcp 192.0.2.51']);
    clock.advance(1); // the NAPTR's TTL has ended
    expect(l.naptrMemory.entries()).toEqual([]);
    const after = l.cursor('sip:bob@mem.test');
    expect(await walk(after, () => ok)).toEqual(['tls 192.0.2.61']);
    expect(attempts(after)[0]!.skippedNaptrs).toEqual([]);
  });

  it('a boxed server of a remembered NAPTR, reached after the others failed: its answer forgets it', async () => {
    const { locator: l } = locator({ naptrMemory: 'ttl' });
    const down = (a: string) => (a === '192.0.2.50' ? ok : REFUSED);
    await walk(l.cursor('sip:bob@mem.test', { method: 'INVITE' }), down);
    expect(l.naptrMemory.entries().map((e) => e.record)).toEqual([TLS, TCP]);
    // UDP fails now; the TLS and TCP servers are boxed: the walk goes back to TLS first, which answers.
    const second = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    expect(await walk(second, (a) => (a === '192.0.2.61' ? ok : REFUSED))).toEqual([
      'udp 192.0.2.50',
      'tls 192.0.2.61',
    ]);
    expect(attempts(second).map((a) => a.penalized)).toEqual([false, true]);
    expect(second.resolution!.naptr!.chosen.record).toBe(TLS);
    // TLS answered: forgotten; TCP stays remembered, and UDP (its server boxed now) joins it.
    expect(l.naptrMemory.entries().map((e) => e.record)).toEqual([TCP, UDP]);
  });

  it('remembers only when the penalty box holds every target: non-INVITE timeouts box nothing', async () => {
    const { locator: l } = locator({ naptrMemory: 'ttl' });
    const cursor = l.cursor('sip:bob@mem.test', { method: 'OPTIONS' });
    expect(await walk(cursor, (a) => (a.startsWith('192.0.2.6') ? { type: 'timeout' } : ok))).toEqual([
      'tls 192.0.2.61',
      'tls 192.0.2.62',
      'tcp 192.0.2.51',
    ]);
    expect(attempts(cursor)[2]!.skippedNaptrs[0]!.detail).toBe(
      'every target failed: tls 192.0.2.61:5061 (no response), tls 192.0.2.62:5061 (no response)',
    );
    expect(l.naptrMemory.size).toBe(0);
  });

  it('a remembered NAPTR is tried last, never dropped, and an answer from it forgets it', async () => {
    const { locator: l } = locator({ naptrMemory: 'ttl' });
    l.naptrMemory.remember({ owner: 'mem.test', record: TLS, transport: 'tls' }, T0 + 600_000, 'operator');
    const cursor = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
    // TCP and UDP refuse; the remembered TLS NAPTR comes back after them and answers.
    expect(await walk(cursor, (a) => (a === '192.0.2.61' ? ok : REFUSED))).toEqual([
      'tcp 192.0.2.51',
      'udp 192.0.2.50',
      'tls 192.0.2.61',
    ]);
    expect(cursor.state).toBe('succeeded');
    expect(attempts(cursor)[0]!.skippedNaptrs.map((s) => [s.record, s.reason, s.detail])).toEqual([
      [TLS, 'remembered', 'operator'],
    ]);
    // TLS answered: forgotten; TCP and UDP refused with every target boxed: remembered.
    expect(l.naptrMemory.entries().map((e) => [e.record, e.until])).toEqual([
      [TCP, T0 + 600_000],
      [UDP, T0 + 600_000],
    ]);
  });

  it('the step-through says why a NAPTR is passed over', async () => {
    const { locator: l } = locator({ naptrMemory: 'ttl' });
    l.naptrMemory.remember({ owner: 'mem.test', record: TLS, transport: 'tls' }, T0 + 600_000, 'operator');
    const r = await l.resolve('sip:bob@mem.test', { stepThrough: true });
    expect(r.targets.map((t) => t.address)).toEqual(['192.0.2.51']);
    const steps = r.steps.filter((s) => s.kind === 'naptr').map((s) => [s.record, s.outcome, s.reason]);
    expect(steps[0]).toEqual([
      TLS,
      'usable',
      'passed over, remembered as failed until its TTL ends (operator): next NAPTR of the same order ' +
        '(RFC 3403 section 4.1)',
    ]);
    expect(steps[1]![1]).toBe('chosen');
    expect(renderStepThrough(r)).toContain('passed over, remembered as failed');
  });
});

describe('NAPTR memory within the transaction bound (fake timers)', () => {
  it('silent TLS servers eat the bound: the next NAPTR is not reached after it', async () => {
    vi.useFakeTimers();
    try {
      const core = new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] })], { random: seededRandom(1) });
      const l = new SipLocator(core, { ipv6: false, clock: { now: () => Date.now() }, transactionTimeoutMs: 10_000 });
      const cursor = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
      const running = cursor.run(() => new Promise<TryOutcome>(() => {}));
      const rejection = expect(running).rejects.toBeInstanceOf(TransactionTimeoutError);
      await vi.advanceTimersByTimeAsync(10_000);
      await rejection;
      expect(attempts(cursor).map((a) => `${a.target.address} ${a.timeoutMs}${a.capped ? ' capped' : ''}`)).toEqual([
        '192.0.2.61 6000',
        '192.0.2.62 4000 capped',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('with time left, the walk moves on to the next NAPTR after the silent ones', async () => {
    vi.useFakeTimers();
    try {
      const core = new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] })], { random: seededRandom(1) });
      const l = new SipLocator(core, { ipv6: false, clock: { now: () => Date.now() } });
      const cursor = l.cursor('sip:bob@mem.test', { method: 'INVITE' });
      const running = cursor.run(async (a) =>
        a.target.transport === 'tls' ? new Promise<TryOutcome>(() => {}) : { type: 'response', status: 200 },
      );
      await vi.advanceTimersByTimeAsync(12_000);
      const { attempt } = await running;
      expect(`${attempt.target.transport} ${attempt.target.address}`).toBe('tcp 192.0.2.51');
      expect(attempt.skippedNaptrs.map((n) => [n.record, n.reason, n.detail])).toEqual([
        [TLS, 'failed', 'every target failed: tls 192.0.2.61:5061 (no response), tls 192.0.2.62:5061 (no response)'],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('NaptrMemory: list, add, remove', () => {
  it('keeps the later end, forgets on demand, ends on its own, refuses nonsense', () => {
    const clock = new ManualClock(T0);
    const memory = new NaptrMemory({ clock });
    const ref = { owner: 'Mem.Test.', record: TLS, transport: 'tls' as const };
    memory.remember(ref, T0 + 1000, 'one');
    expect(memory.remember(ref, T0 + 500, 'two').detail).toBe('one');
    expect(memory.get({ owner: 'mem.test', record: TLS.toUpperCase() })?.until).toBe(T0 + 1000);
    expect(memory.remember(ref, T0 + 2000, 'three').detail).toBe('three');
    expect(memory.size).toBe(1);
    clock.advance(2000);
    expect(memory.get(ref)).toBeUndefined();
    memory.remember(ref, T0 + 5000);
    expect(memory.forget(ref)).toBe(true);
    expect(memory.forget(ref)).toBe(false);
    expect(() => memory.remember({ ...ref, transport: 'sctp' as 'tls' }, T0 + 5000)).toThrow(
      'unknown transport "sctp" (udp, tcp, tls)',
    );
    expect(() => memory.remember({ ...ref, owner: '' }, T0 + 5000)).toThrow(InvalidArgumentError);
    expect(() => memory.remember(ref, Number.NaN)).toThrow(InvalidArgumentError);
  });

  it('is bounded: beyond maxEntries the one ending first goes', () => {
    const memory = new NaptrMemory({ clock: new ManualClock(T0), maxEntries: 2 });
    for (const [i, until] of [3000, 1000, 2000].entries())
      memory.remember({ owner: `h${i}.test`, record: TLS, transport: 'tls' }, T0 + until);
    expect(memory.entries().map((e) => e.owner)).toEqual(['h2.test', 'h0.test']);
  });
});

describe('NAPTR memory and target plans', () => {
  function cached() {
    const clock = new ManualClock(T0);
    const zone = recording(new ZoneResolver({ zones: [{ text: ZONE }] }));
    const core = new DnsCore([withCache(zone, { clock })], { random: seededRandom(3) });
    const locator = new SipLocator(core, { ipv6: false, clock, naptrMemory: 'ttl' });
    return { clock, zone, locator };
  }

  it('a plan is reused only for the memory it was made with, and each variant is kept', async () => {
    const { clock, zone, locator: l } = cached();
    const uri = 'sip:bob@mem.test';
    const first = await l.resolve(uri);
    expect(first.targets.map((t) => t.transport)).toEqual(['tls', 'tls']);
    await l.resolve(uri); // every answer from the cache: the plan is made
    const asked = zone.asked.length;
    expect((await l.resolve(uri)).naptr!.passed).toEqual([]);
    expect(zone.asked.length).toBe(asked);

    l.naptrMemory.remember({ owner: 'mem.test', record: TLS, transport: 'tls' }, T0 + 10_000, 'test');
    const passed = await l.resolve(uri);
    expect(passed.targets.map((t) => `${t.transport} ${t.address}`)).toEqual(['tcp 192.0.2.51']);
    expect(passed.naptr!.chosen.record).toBe(TCP);
    expect(passed.naptr!.passed.map((s) => [s.record, s.reason, s.until])).toEqual([[TLS, 'remembered', T0 + 10_000]]);
    const again = await l.resolve(uri); // the variant's plan
    expect(again.targets.map((t) => t.address)).toEqual(['192.0.2.51']);
    expect(again.steps).toEqual([]);
    expect(again.naptr!.passed.map((s) => s.reason)).toEqual(['remembered']);

    // A request's own failure is another variant: TCP failed in this request, TLS is remembered.
    const both = await l.resolve(uri, { failedNaptrs: [{ ...again.naptr!.chosen, reason: 'failed', detail: 'x' }] });
    expect(both.targets.map((t) => t.address)).toEqual(['192.0.2.50']);
    expect(both.naptr!.passed.map((s) => [s.record, s.reason])).toEqual([
      [TLS, 'remembered'],
      [TCP, 'failed'],
    ]);

    clock.advance(10_000); // the memory ends: the first plan again, no question asked
    const plain = await l.resolve(uri);
    expect(plain.targets.map((t) => t.transport)).toEqual(['tls', 'tls']);
    expect(plain.naptr!.passed).toEqual([]);
    l.naptrMemory.remember({ owner: 'mem.test', record: TLS, transport: 'tls' }, T0 + 20_000, 'test');
    expect((await l.resolve(uri)).targets.map((t) => t.address)).toEqual(['192.0.2.51']);
    l.naptrMemory.forget({ owner: 'mem.test', record: TLS });
    expect((await l.resolve(uri)).targets.map((t) => t.transport)).toEqual(['tls', 'tls']);
    expect(zone.asked.length).toBe(asked);
  });
});
