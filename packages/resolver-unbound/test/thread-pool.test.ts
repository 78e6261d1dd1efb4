import { describe, expect, it } from 'vitest';
import { RECOMMENDED_UV_THREADPOOL_SIZE, defaultMaxInFlight, threadPoolSize } from '../src/index.js';

describe('threadPoolSize', () => {
  it('reads UV_THREADPOOL_SIZE as libuv does', () => {
    expect(threadPoolSize({})).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: '16' })).toBe(16);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: String(RECOMMENDED_UV_THREADPOOL_SIZE) })).toBe(16);
  });

  it('falls back to 4 for nonsense and clamps to 1024', () => {
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: '0' })).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: '-3' })).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: 'many' })).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: '5000' })).toBe(1024);
  });
});

describe('defaultMaxInFlight', () => {
  it('keeps one pool thread for fs and crypto, and allows at least one query', () => {
    expect(defaultMaxInFlight(4)).toBe(3);
    expect(defaultMaxInFlight(16)).toBe(15);
    expect(defaultMaxInFlight(2)).toBe(1);
    expect(defaultMaxInFlight(1)).toBe(1);
  });
});
