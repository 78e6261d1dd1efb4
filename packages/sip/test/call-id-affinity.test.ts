/** Call-ID affinity: learned both ways, refreshed by use, expiring after the persistence time. */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core';
import { CallIdAffinity } from '../src/call-id-affinity.js';
import { ManualClock } from './support/fixtures.js';

const sip1 = { transport: 'udp', address: '203.0.113.11', port: 5060, host: 'sip1.biloxi.example' } as const;

describe('CallIdAffinity: nominal', () => {
  it('a request we sent pins the Call-ID to the target that answered', () => {
    const affinity = new CallIdAffinity({ clock: new ManualClock(0) });
    expect(affinity.learnOutgoing('a84b4c76e66710@pc33.atlanta.example', sip1)).toBe(true);
    expect(affinity.lookup('a84b4c76e66710@pc33.atlanta.example')).toEqual({ ...sip1, learned: 'outgoing' });
  });

  it('a request from the far side pins its Call-ID to the address it came from; the newest learning wins', () => {
    const affinity = new CallIdAffinity({ clock: new ManualClock(0) });
    affinity.learnOutgoing('c1', sip1);
    affinity.learnIncoming('c1', { transport: 'tcp', address: '2001:DB8::7', port: 5060 });
    expect(affinity.lookup('c1')).toEqual({
      transport: 'tcp',
      address: '2001:db8::7',
      port: 5060,
      learned: 'incoming',
    });
  });

  it('expires 180 s after the last request of the dialog; each lookup refreshes it', () => {
    const clock = new ManualClock(0);
    const affinity = new CallIdAffinity({ clock });
    affinity.learnOutgoing('c1', sip1);
    clock.advance(179_000);
    expect(affinity.lookup('c1')).toBeDefined();
    clock.advance(179_000);
    expect(affinity.lookup('c1')).toBeDefined();
    clock.advance(180_000);
    expect(affinity.lookup('c1')).toBeUndefined();
  });

  it('forget() ends it', () => {
    const affinity = new CallIdAffinity();
    affinity.learnOutgoing('c1', sip1);
    expect(affinity.forget('c1')).toBe(true);
    expect(affinity.lookup('c1')).toBeUndefined();
    expect(affinity.size).toBe(0);
  });
});

describe('CallIdAffinity: off-nominal', () => {
  it('an over-long Call-ID gets no affinity (as IPVS refuses it)', () => {
    const affinity = new CallIdAffinity();
    const long = 'x'.repeat(256);
    expect(affinity.learnOutgoing(long, sip1)).toBe(false);
    expect(affinity.lookup(long)).toBeUndefined();
    expect(affinity.forget(long)).toBe(false);
    expect(affinity.learnOutgoing('x'.repeat(255), sip1)).toBe(true);
  });

  it('refuses an empty Call-ID and a destination that is not an address', () => {
    const affinity = new CallIdAffinity();
    expect(() => affinity.lookup('')).toThrow(new InvalidArgumentError('a Call-ID must be a non-empty string'));
    expect(() =>
      affinity.learnIncoming('c1', { transport: 'udp', address: 'pc33.atlanta.example', port: 5060 }),
    ).toThrow('"pc33.atlanta.example" is not an IP address');
  });
});
