import { describe, expect, it } from 'vitest';
import { ZoneFileError } from '@dnscore/core';
import { entries, unescapeBytes } from '../../src/zone/lexer.js';

const all = (text: string) =>
  [...entries(text, 'f.zone')].map((e) => [
    e.line,
    e.blankOwner,
    e.tokens.map((t) => (t.quoted ? `"${t.text}"` : t.text)),
  ]);

describe('lexer: nominal', () => {
  it('splits entries at newlines outside parentheses, with the starting line', () => {
    expect(all('a 1 A x\n\n( b\n c ) d\n  e f ; comment\n')).toEqual([
      [1, false, ['a', '1', 'A', 'x']],
      [3, false, ['b', 'c', 'd']],
      [5, true, ['e', 'f']],
    ]);
  });

  it('keeps quoted strings whole, escapes and all', () => {
    expect(all('t TXT "a ; b" "c\\"d" e\\ f\n')).toEqual([[1, false, ['t', 'TXT', '"a ; b"', '"c\\"d"', 'e\\ f']]]);
  });

  it('counts an escaped newline, in a quoted string or not, as a line', () => {
    expect(all('a TXT "x\\\ny"\nb TXT x\\\ny\nc A 192.0.2.1\n')).toEqual([
      [1, false, ['a', 'TXT', '"x\\\ny"']],
      [3, false, ['b', 'TXT', 'x\\\ny']],
      [5, false, ['c', 'A', '192.0.2.1']],
    ]);
  });

  it('unescapes \\X and \\DDD', () => {
    expect(Array.from(unescapeBytes('a\\"b\\065\\\\'))).toEqual([0x61, 0x22, 0x62, 0x41, 0x5c]);
  });
});

describe('lexer: off-nominal', () => {
  it.each([
    ['( a\n b\n', 1, /never closed/],
    ['a )\n', 1, /without "\("/],
    ['a ( b ( c ) )\n', 1, /nested/],
    ['a "b\n', 1, /past the end of its line/],
    ['a\nb "c', 2, /never closed/],
  ])('%j', (text, line, reason) => {
    try {
      all(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ZoneFileError);
      expect((error as ZoneFileError).line).toBe(line);
      expect((error as ZoneFileError).reason).toMatch(reason);
    }
  });

  it.each(['a\\', 'a\\25', 'a\\999'])('refuses the escape in %j', (token) => {
    expect(() => unescapeBytes(token)).toThrow(SyntaxError);
  });
});
