import { describe, expect, it } from 'vitest';
import { InvalidQueryError, formatName, isSubdomain, makeQuery, nameEquals, nameKey, parseName } from '@dnscore/core';
import { wireLength } from '@dnscore/core/plugin';
import { labelsEqual } from '../src/names.js';

const text = (labels: readonly Uint8Array[]): string[] => labels.map((l) => Buffer.from(l).toString('latin1'));

describe('names: nominal', () => {
  it('parses labels with and without the trailing dot', () => {
    expect(text(parseName('sip1.biloxi.example'))).toEqual(['sip1', 'biloxi', 'example']);
    expect(text(parseName('sip1.biloxi.example.'))).toEqual(['sip1', 'biloxi', 'example']);
    expect(parseName('.')).toEqual([]);
  });

  it('keeps an escaped dot inside its label', () => {
    expect(text(parseName('a\\.b.example'))).toEqual(['a.b', 'example']);
    expect(formatName(parseName('a\\.b.example'))).toBe('a\\.b.example');
  });

  it('reads \\DDD escapes and writes non-printable bytes back as \\DDD', () => {
    const labels = parseName('a\\032b.example');
    expect(Array.from(labels[0]!)).toEqual([0x61, 0x20, 0x62]);
    expect(formatName(labels)).toBe('a\\032b.example');
  });

  it('compares names on their labels, ASCII case-insensitively (RFC 4343)', () => {
    expect(nameEquals('SIP1.Biloxi.Example.', 'sip1.biloxi.example')).toBe(true);
    expect(nameEquals('a\\.b.example', 'a.b.example')).toBe(false);
    expect(nameEquals('A\\.B.example', 'a\\.b.EXAMPLE')).toBe(true);
    expect(nameKey('Biloxi.Example.')).toBe('biloxi.example');
  });

  it('does not fold non-ASCII letters', () => {
    expect(nameEquals('Ä.example', 'ä.example')).toBe(false);
  });

  it('knows subdomains by labels, not by string suffix', () => {
    expect(isSubdomain('sip1.biloxi.example', 'biloxi.example')).toBe(true);
    expect(isSubdomain('biloxi.example', 'biloxi.example')).toBe(true);
    expect(isSubdomain('evilbiloxi.example', 'biloxi.example')).toBe(false);
    expect(isSubdomain('x.example', '.')).toBe(true);
  });

  it('accepts a 63-octet label and a 255-octet name', () => {
    const label63 = 'a'.repeat(63);
    expect(parseName(`${label63}.example`)[0]!.length).toBe(63);
    const name255 = `${[...Array(3)].map(() => label63).join('.')}.${'b'.repeat(61)}`;
    expect(wireLength(parseName(name255))).toBe(255);
  });
});

describe('formatName: one string per name', () => {
  it('writes labels longer than a name may be (Labels built by hand), escaped, in one piece', () => {
    // 300 octets of 0xff (\\255 each: 1,200 characters), then "a." 300 times (a\\. each: 900 more).
    const binary = new Uint8Array(300).fill(0xff);
    const dotted = new TextEncoder().encode('a.'.repeat(300));
    const text = formatName([binary, dotted, new TextEncoder().encode('example')]);
    expect(text).toBe(`${'\\255'.repeat(300)}.${'a\\.'.repeat(300)}.example`);
    // The next name starts afresh.
    expect(formatName([new TextEncoder().encode('x')])).toBe('x');
    expect(formatName([])).toBe('.');
  });
});

describe('labelsEqual: the one name comparison', () => {
  it('ignores ASCII case only, and compares every label', () => {
    const name = parseName('SIP1.Biloxi.Example');
    expect([
      labelsEqual(name, parseName('sip1.biloxi.example.')),
      labelsEqual(name, parseName('sip1.biloxi')),
      labelsEqual(name, parseName('sip2.biloxi.example')),
      labelsEqual(parseName('caf\\195\\169.example'), parseName('CAF\\195\\137.example')),
      labelsEqual(parseName('.'), parseName('.')),
    ]).toEqual([true, false, false, false, true]);
  });
});

describe('names: off-nominal', () => {
  it.each([
    ['a..example', /empty label/],
    ['.example', /empty label/],
    [`${'a'.repeat(64)}.example`, /longer than 63/],
    [[...Array(4)].map(() => 'a'.repeat(63)).join('.'), /octets on the wire/],
    ['bad\\', /lone backslash/],
    ['bad\\25', /DDD/],
    ['bad\\256', /above 255/],
  ])('refuses %s', (name, reason) => {
    expect(() => parseName(name)).toThrow(InvalidQueryError);
    expect(() => parseName(name)).toThrow(reason);
  });
});

describe('makeQuery: labels made when read', () => {
  it('gives a plain name its labels on each read, keeps none, and has only name, type and class as fields', () => {
    const query = makeQuery('SIP1.Biloxi.example.', 'SRV');
    expect([query.name, query.type, query.class]).toEqual(['SIP1.Biloxi.example', 33, 1]);
    expect(text(query.labels)).toEqual(['SIP1', 'Biloxi', 'example']);
    // Made anew, not kept: a long-waiting question is old in the heap, its answer's objects young.
    expect(query.labels).toEqual(query.labels);
    expect(query.labels).not.toBe(query.labels);
    expect(Object.isFrozen(query)).toBe(true);
    expect(JSON.parse(JSON.stringify(query))).toEqual({ name: 'SIP1.Biloxi.example', type: 33, class: 1 });
  });

  it('parses an escaped name at once, and refuses bad names as before', () => {
    expect(text(makeQuery('a\\.b.example', 'A').labels)).toEqual(['a.b', 'example']);
    expect(makeQuery('a\\.b.example', 'A').name).toBe('a\\.b.example');
    expect(makeQuery('.', 'NS').labels).toEqual([]);
    expect(() => makeQuery(`${'a'.repeat(64)}.example`, 'A')).toThrow(InvalidQueryError);
    expect(() => makeQuery('a..example', 'A')).toThrow(InvalidQueryError);
    expect(() => makeQuery(`${'abcdefghi.'.repeat(25)}abc`, 'A')).not.toThrow();
    expect(() => makeQuery(`${'abcdefghi.'.repeat(25)}abcd`, 'A')).toThrow(InvalidQueryError);
  });
});
