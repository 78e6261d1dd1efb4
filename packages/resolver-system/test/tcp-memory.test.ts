import { describe, expect, it } from 'vitest';
import { TcpMemory } from '../src/tcp-memory.js';

function clock(start = 1_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe('TcpMemory, nominal', () => {
  it('remembers a question for its lifetime', () => {
    const time = clock();
    const memory = new TcpMemory(time, 1000, 10);
    memory.remember('big/1/1');
    expect(memory.has('big/1/1')).toBe(true);
    time.t += 999;
    expect(memory.has('big/1/1')).toBe(true);
    time.t += 1;
    expect(memory.has('big/1/1')).toBe(false);
    expect(memory.count).toBe(0);
  });

  it('forgets the least recently used question first', () => {
    const memory = new TcpMemory(clock(), 1000, 2);
    memory.remember('a');
    memory.remember('b');
    expect(memory.has('a')).toBe(true); // a is now the most recent
    memory.remember('c');
    expect(memory.has('b')).toBe(false);
    expect(memory.has('a')).toBe(true);
    expect(memory.has('c')).toBe(true);
    expect(memory.count).toBe(2);
  });
});

describe('TcpMemory, off-nominal', () => {
  it('remembers nothing with a size or lifetime of 0', () => {
    const none = new TcpMemory(clock(), 0, 10);
    none.remember('a');
    expect(none.has('a')).toBe(false);
    const empty = new TcpMemory(clock(), 1000, 0);
    empty.remember('a');
    expect(empty.has('a')).toBe(false);
  });

  it('answers false for a question never seen', () => {
    expect(new TcpMemory(clock(), 1000, 10).has('never')).toBe(false);
  });
});
