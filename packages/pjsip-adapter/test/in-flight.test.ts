/** The tracker settles a call only once every question asked inside it has settled. */
import { describe, expect, it } from 'vitest';
import { DnsCore } from '@dnscore/core';
import { InFlightTracker } from '../src/in-flight.js';
import { gated } from './support/gated-plugin.js';

const ZONE = '$ORIGIN t.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\nslow IN A 192.0.2.1\nfast IN A 192.0.2.2\n';

describe('InFlightTracker: nominal', () => {
  it('waits for a question the work did not wait for', async () => {
    const plugin = gated(ZONE);
    const tracker = new InFlightTracker(new DnsCore([plugin]));
    plugin.hold('slow.t.example A');
    let settled = false;
    const call = tracker.track(async () => {
      void tracker.resolve('slow.t.example', 'A').catch(() => {}); // started, not awaited
      return (await tracker.resolve('fast.t.example', 'A')).records.length;
    });
    void call.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(tracker.inFlight).toBe(1);
    plugin.release('slow.t.example A');
    expect(await call).toBe(1);
    expect(plugin.pending).toBe(0);
    expect(tracker.inFlight).toBe(0);
  });

  it('keeps calls apart: one call does not wait for another call’s questions', async () => {
    const plugin = gated(ZONE);
    const tracker = new InFlightTracker(new DnsCore([plugin]));
    plugin.hold('slow.t.example A');
    const slow = tracker.track(() => tracker.resolve('slow.t.example', 'A'));
    const fast = await tracker.track(() => tracker.resolve('fast.t.example', 'A'));
    expect(fast.records[0]!.data).toBe('192.0.2.2');
    expect(tracker.inFlight).toBe(1);
    plugin.release('slow.t.example A');
    expect((await slow).records[0]!.data).toBe('192.0.2.1');
  });
});

describe('InFlightTracker: off-nominal', () => {
  it('rejects like the work, after its questions settled', async () => {
    const plugin = gated(ZONE);
    const tracker = new InFlightTracker(new DnsCore([plugin]));
    plugin.hold('slow.t.example A');
    const call = tracker.track(async () => {
      void tracker.resolve('slow.t.example', 'A');
      throw new Error('gave up early');
    });
    let settled = false;
    call.catch(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    plugin.release('slow.t.example A');
    await expect(call).rejects.toThrow('gave up early');
  });

  it('a question that fails counts as settled', async () => {
    const tracker = new InFlightTracker(new DnsCore([gated(ZONE)]));
    await expect(tracker.track(() => tracker.resolve('elsewhere.example', 'A'))).rejects.toMatchObject({
      code: expect.any(String),
    });
    expect(tracker.inFlight).toBe(0);
  });
});
