import { describe, expect, it } from 'vitest';
import { compileEre, groupCount } from '../../src/records/ere.js';

describe('compileEre: nominal', () => {
  it('compiles ordinary EREs like JavaScript does', () => {
    expect(compileEre('^\\+1([0-9]{3})(.*)$').exec('+15551234')?.slice(1)).toEqual(['555', '1234']);
    expect(compileEre('a|b').test('b')).toBe(true);
  });

  it('treats a backslash inside brackets as a literal', () => {
    expect(compileEre('[\\]').test('\\')).toBe(true);
    expect(compileEre('[\\]').test('a')).toBe(false);
  });

  it('takes a leading "]" in brackets as a literal, and POSIX classes', () => {
    expect(compileEre('[]a]').test(']')).toBe(true);
    expect(compileEre('^[[:alpha:]]+$').test('abcXYZ')).toBe(true);
    expect(compileEre('^[^[:space:]]$').test(' ')).toBe(false);
  });

  it('honours ignore-case', () => {
    expect(compileEre('^sip$', true).test('SIP')).toBe(true);
  });

  it('counts groups', () => {
    expect(groupCount(compileEre('(.)(.)(a|(b))'))).toBe(4);
  });
});

describe('compileEre: off-nominal', () => {
  it.each([
    ['(', SyntaxError],
    ['[abc', SyntaxError],
    ['a\\', SyntaxError],
    ['\\d', SyntaxError],
    ['(?:a)', SyntaxError],
    ['[[:nope:]]', SyntaxError],
    ['[[=a=]]', SyntaxError],
  ])('refuses %s', (pattern, type) => {
    expect(() => compileEre(pattern)).toThrow(type);
  });
});
