/** ExpiringMap: lifetime from last use, size bound, options. */
import { describe, expect, it } from 'vitest';
import { ExpiringMap } from '../src/expiring-map.js';
import { ManualClock } from './support/fixtures.js';

describe('ExpiringMap: nominal', () => {
  it('a value lives for its lifetime after the last use; touch() is a use, peek() is not', () => {
    const clock = new ManualClock(0);
    const map = new ExpiringMap<string>(clock, 1000, 10, 'test');
    map.set('a', 'x');
    clock.advance(900);
    expect(map.touch('a')).toBe('x');
    clock.advance(900);
    expect(map.peek('a')).toBe('x');
    clock.advance(100);
    expect(map.peek('a')).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('drops the least recently used beyond its size', () => {
    const map = new ExpiringMap<number>(new ManualClock(0), 1000, 2, 'test');
    map.set('a', 1);
    map.set('b', 2);
    map.touch('a');
    map.set('c', 3);
    expect([map.peek('a'), map.peek('b'), map.peek('c')]).toEqual([1, undefined, 3]);
    expect(map.delete('a')).toBe(true);
    expect(map.size).toBe(1);
  });
});

describe('ExpiringMap: off-nominal', () => {
  it('refuses a lifetime or size that is not positive', () => {
    expect(() => new ExpiringMap(new ManualClock(), 0, 1, 'thing')).toThrow(
      'thing lifetime must be a positive number of ms',
    );
    expect(() => new ExpiringMap(new ManualClock(), 1, 0, 'thing')).toThrow(
      'thing maxEntries must be a positive integer',
    );
  });
});
