/** Transaction affinity: by Via branch, for retransmissions, CANCEL and the ACK of a non-2xx. */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core';
import type { SipTarget } from '../src/resolution.js';
import { TransactionAffinity } from '../src/transaction-affinity.js';
import { ManualClock } from './support/fixtures.js';

const target: SipTarget = {
  transport: 'tls',
  host: 'sip1.biloxi.example',
  address: '203.0.113.11',
  family: 4,
  port: 5061,
  priority: 10,
  weight: 60,
  source: 'naptr',
  expires: 1e12,
  dnssec: 'insecure',
  links: [],
};

describe('TransactionAffinity: nominal', () => {
  it('a bound branch finds its target until released', () => {
    const affinity = new TransactionAffinity({ clock: new ManualClock(0) });
    affinity.bind('z9hG4bK776asdhds', target);
    expect(affinity.lookup('z9hG4bK776asdhds')).toBe(target);
    expect(affinity.lookup('z9hG4bKother')).toBeUndefined();
    expect(affinity.release('z9hG4bK776asdhds')).toBe(true);
    expect(affinity.lookup('z9hG4bK776asdhds')).toBeUndefined();
  });

  it('lives 212 s (Timer C + Timer D) after its last use', () => {
    const clock = new ManualClock(0);
    const affinity = new TransactionAffinity({ clock });
    affinity.bind('b1', target);
    clock.advance(200_000);
    expect(affinity.lookup('b1')).toBe(target); // a CANCEL after a long ringing phase
    clock.advance(211_999);
    expect(affinity.lookup('b1')).toBe(target);
    clock.advance(212_000);
    expect(affinity.lookup('b1')).toBeUndefined();
    expect(affinity.size).toBe(0);
  });
});

describe('TransactionAffinity: off-nominal', () => {
  it('refuses an empty or missing branch', () => {
    const affinity = new TransactionAffinity();
    expect(() => affinity.bind('', target)).toThrow(
      new InvalidArgumentError('a Via branch must be a non-empty string'),
    );
    expect(() => affinity.lookup(undefined as never)).toThrow(InvalidArgumentError);
  });
});
