import { describe, expect, it } from 'vitest';
import { InvalidQueryError } from '@dnscore/core/plugin';
import { isAbsolute, searchCandidates } from '../src/search.js';

const search = ['biloxi.example', 'atlanta.example'];

describe('searchCandidates, nominal', () => {
  it('tries a name with fewer dots than ndots under each domain first', () => {
    expect(searchCandidates('sip1', search, 1)).toEqual(['sip1.biloxi.example', 'sip1.atlanta.example', 'sip1']);
    expect(searchCandidates('pbx.lab', search, 2)).toEqual([
      'pbx.lab.biloxi.example',
      'pbx.lab.atlanta.example',
      'pbx.lab',
    ]);
  });

  it('tries a name with at least ndots dots as it is first', () => {
    expect(searchCandidates('pbx.lab', search, 1)).toEqual([
      'pbx.lab',
      'pbx.lab.biloxi.example',
      'pbx.lab.atlanta.example',
    ]);
    expect(searchCandidates('sip1', search, 0)).toEqual(['sip1', 'sip1.biloxi.example', 'sip1.atlanta.example']);
  });

  it('tries an absolute name alone, and any name alone without a search list', () => {
    expect(searchCandidates('sip1.', search, 1)).toEqual(['sip1']);
    expect(searchCandidates('sip1', [], 1)).toEqual(['sip1']);
    expect(searchCandidates('.', search, 1)).toEqual(['.']);
  });

  it('counts dots as label boundaries, not characters', () => {
    expect(searchCandidates('a\\.b', search, 1)).toEqual(['a\\.b.biloxi.example', 'a\\.b.atlanta.example', 'a\\.b']);
  });

  it('knows absolute names', () => {
    expect(isAbsolute('a.example.')).toBe(true);
    expect(isAbsolute('a\\\\.')).toBe(true);
    expect(isAbsolute('a\\.')).toBe(false);
    expect(isAbsolute('a.example')).toBe(false);
  });
});

describe('searchCandidates, off-nominal', () => {
  it('skips a candidate longer than 255 octets', () => {
    const long = Array.from({ length: 3 }, () => 'x'.repeat(63)).join('.'); // 193 octets
    const domain = `${'y'.repeat(60)}.example`;
    expect(searchCandidates(long, [domain, 'short.example'], 5)).toEqual([`${long}.short.example`, long]);
  });

  it('throws InvalidQueryError for a name that is not one', () => {
    expect(() => searchCandidates('a..b', search, 1)).toThrow(InvalidQueryError);
  });
});
