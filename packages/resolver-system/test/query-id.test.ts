import { describe, expect, it, vi } from 'vitest';

describe('randomQueryId, nominal', () => {
  it('gives 16-bit IDs spread over the whole range', async () => {
    const { randomQueryId } = await import('../src/query-id.js');
    const ids = Array.from({ length: 20_000 }, () => randomQueryId());
    expect(ids.every((id) => Number.isInteger(id) && id >= 0 && id <= 0xffff)).toBe(true);
    // 20,000 draws from 65,536 values: about 17,000 distinct when uniform; a counter or a
    // constant would give 20,000 or 1, a narrow range far fewer.
    const distinct = new Set(ids).size;
    expect(distinct).toBeGreaterThan(15_500);
    expect(distinct).toBeLessThan(19_500);
    expect(Math.max(...ids)).toBeGreaterThan(0xf000);
    expect(Math.min(...ids)).toBeLessThan(0x1000);
  });
});

describe('randomQueryId, off-nominal', () => {
  it('draws from node:crypto, not Math.random', async () => {
    vi.resetModules();
    const spy = vi.spyOn(Math, 'random');
    const { randomQueryId } = await import('../src/query-id.js');
    for (let i = 0; i < 5000; i++) randomQueryId();
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });
});
