/**
 * The penalty store seam: the in-memory store's contract (expiry, the later end wins, clear
 * returns the entry, bounded), a store of the caller's own plugged into a locator (what a Redis
 * store of issue 19 does), and the skipped targets a cursor reports with their entries.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core';
import { PenaltyBox, destinationKey } from '../src/penalty-box.js';
import { MemoryPenaltyStore, type PenaltyEntry, type PenaltyStore } from '../src/penalty-store.js';
import { ManualClock, setup } from './support/fixtures.js';

const entry = (port: number, until: number, reason: PenaltyEntry['reason'] = 'manual'): PenaltyEntry => ({
  transport: 'udp',
  address: '192.0.2.1',
  port,
  until,
  reason,
  detail: reason,
});

describe('MemoryPenaltyStore', () => {
  it('get returns an entry until its end, then nothing', () => {
    const clock = new ManualClock(0);
    const store = new MemoryPenaltyStore({ clock });
    store.mark('a', entry(1, 100));
    expect(store.get('a')).toEqual(entry(1, 100));
    clock.advance(100);
    expect(store.get('a')).toBeUndefined();
    expect(store.entries()).toEqual([]);
  });

  it('mark keeps the later end: an earlier end leaves the entry (and its reason) as it was', () => {
    const store = new MemoryPenaltyStore({ clock: new ManualClock(0) });
    store.mark('a', entry(1, 300_000, 'retry-after'));
    expect(store.mark('a', entry(1, 60_000, 'timeout'))).toEqual(entry(1, 300_000, 'retry-after'));
    expect(store.mark('a', entry(1, 400_000, 'transport-error'))).toEqual(entry(1, 400_000, 'transport-error'));
  });

  it('clear returns the live entry it removed', () => {
    const store = new MemoryPenaltyStore({ clock: new ManualClock(0) });
    store.mark('a', entry(1, 10));
    expect(store.clear('a')).toEqual(entry(1, 10));
    expect(store.clear('a')).toBeUndefined();
  });

  it('is bounded: the entry ending first goes', () => {
    const store = new MemoryPenaltyStore({ clock: new ManualClock(0), maxEntries: 2 });
    store.mark('a', entry(1, 30));
    store.mark('b', entry(2, 10));
    store.mark('c', entry(3, 20));
    expect(store.entries().map((e) => e.port)).toEqual([1, 3]);
    expect(() => new MemoryPenaltyStore({ maxEntries: 0 })).toThrow(InvalidArgumentError);
  });
});

/** A store of the caller's own that logs every call: the box and the cursor use nothing else. */
class LoggingStore implements PenaltyStore {
  readonly log: string[] = [];
  readonly inner: MemoryPenaltyStore;
  constructor(clock: ManualClock) {
    this.inner = new MemoryPenaltyStore({ clock });
  }
  get(key: string): PenaltyEntry | undefined {
    const found = this.inner.get(key);
    if (found) this.log.push(`get ${key}`);
    return found;
  }
  mark(key: string, e: PenaltyEntry): PenaltyEntry {
    this.log.push(`mark ${key} ${e.reason} ${e.until}`);
    return this.inner.mark(key, e);
  }
  clear(key: string): PenaltyEntry | undefined {
    const cleared = this.inner.clear(key);
    this.log.push(`clear ${key} ${cleared ? 'hit' : 'miss'}`);
    return cleared;
  }
  entries(): readonly PenaltyEntry[] {
    return this.inner.entries();
  }
}

describe('a store of the caller’s own behind the locator', () => {
  it('marks, reads and clears go through it; an entry put there from outside is honoured', async () => {
    const clock = new ManualClock(0);
    const store = new LoggingStore(clock);
    const { locator } = setup({ clock, penaltyStore: store });
    expect(locator.penaltyBox.store).toBe(store);
    const [first, second, third] = (await locator.resolve('sip:bob@biloxi.example;transport=udp')).targets;
    // Another process marked the first server (what a Redis subscriber does).
    store.inner.mark(destinationKey(first!), { ...entry(0, 45_000, 'timeout'), ...first!, until: 45_000 });
    const cursor = locator.cursor('sip:bob@biloxi.example;transport=udp', { method: 'INVITE' });
    const attempt = await cursor.next();
    expect(attempt!.target).toEqual(second);
    expect(attempt!.skipped.map((e) => [destinationKey(e), e.reason, e.until])).toEqual([
      [destinationKey(first!), 'timeout', 45_000],
    ]);
    cursor.report(attempt!, { type: 'timeout' });
    const next = await cursor.next();
    expect(next!.target).toEqual(third);
    expect(next!.skipped).toEqual([]); // listed once per walk
    cursor.report(next!, { type: 'response', status: 200 });
    expect(store.log).toEqual([
      `get ${destinationKey(first!)}`,
      `mark ${destinationKey(second!)} timeout 60000`,
      `get ${destinationKey(first!)}`, // still boxed, still passed over (reported once)
      `clear ${destinationKey(third!)} miss`,
    ]);
  });

  it('a store without the four calls is refused', () => {
    expect(() => new PenaltyBox({ store: { get: () => undefined } as never })).toThrow(
      'a penalty store needs get, mark, clear and entries',
    );
  });
});

describe('inspection: list, add, remove', () => {
  it('an operator adds an entry, lists the box, removes it; a walk skips it, then uses it', async () => {
    const { locator, clock } = setup();
    const [first] = (await locator.resolve('sip:bob@biloxi.example;transport=udp')).targets;
    locator.penaltyBox.markFailed(first!, { durationMs: 120_000, detail: 'maintenance window' });
    expect(locator.penaltyBox.entries()).toEqual([
      {
        transport: 'udp',
        address: first!.address,
        port: first!.port,
        until: clock.now() + 120_000,
        reason: 'manual',
        detail: 'maintenance window',
      },
    ]);
    const skipping = await locator.cursor('sip:bob@biloxi.example;transport=udp').next();
    expect(skipping!.skipped.map((e) => e.detail)).toEqual(['maintenance window']);
    expect(locator.penaltyBox.clear(first!)).toBe(true);
    expect(locator.penaltyBox.entries()).toEqual([]);
    expect((await locator.cursor('sip:bob@biloxi.example;transport=udp').next())!.target).toEqual(first);
  });

  it('an unknown reason is refused', () => {
    const box = new PenaltyBox();
    expect(() =>
      box.markFailed({ transport: 'udp', address: '192.0.2.1', port: 5060 }, { reason: 'bored' as never }),
    ).toThrow('unknown penalty reason "bored"');
  });
});
