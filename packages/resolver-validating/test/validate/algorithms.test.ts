import { describe, expect, it } from 'vitest';
import { algorithmName, isSupportedAlgorithm, isSupportedDigest } from '../../src/validate/index.js';

describe('algorithm and digest support', () => {
  it('counts an algorithm supported only when this Node verifies its probe signature', () => {
    expect([5, 7, 8, 10, 13, 14, 15, 16].filter(isSupportedAlgorithm)).toEqual([5, 7, 8, 10, 13, 14, 15, 16]);
    expect([0, 1, 2, 3, 4, 6, 9, 11, 12, 17, 23, 252, 253, 254, 255].filter(isSupportedAlgorithm)).toEqual([]);
    expect(algorithmName(13)).toBe('ECDSAP256SHA256');
    expect(algorithmName(12)).toBe('algorithm 12');
  });

  it('computes DS digests 1, 2 and 4, not GOST (3) or unassigned ones', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 255].filter(isSupportedDigest)).toEqual([1, 2, 4]);
  });
});
