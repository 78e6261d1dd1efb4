import { describe, expect, it } from 'vitest';
import { InvalidQueryError, className, parseClass, parseRcode, parseType, rcodeName, typeName } from '@dnscore/core';

describe('rr-types: nominal', () => {
  it('reads types by mnemonic in any case, by number and in the RFC 3597 form', () => {
    expect(parseType('SRV')).toBe(33);
    expect(parseType('naptr')).toBe(35);
    expect(parseType(28)).toBe(28);
    expect(parseType('TYPE65')).toBe(65);
    expect(parseType('65535')).toBe(65535);
    expect(parseType(0)).toBe(0);
  });

  it('names unknown types and classes as RFC 3597 does', () => {
    expect(typeName(33)).toBe('SRV');
    expect(typeName(65280)).toBe('TYPE65280');
    expect(className(1)).toBe('IN');
    expect(className(999)).toBe('CLASS999');
  });

  it('reads classes and rcodes', () => {
    expect(parseClass('IN')).toBe(1);
    expect(parseClass('ch')).toBe(3);
    expect(parseClass('CLASS42')).toBe(42);
    expect(parseRcode('nxdomain')).toBe(3);
    expect(rcodeName(5)).toBe('REFUSED');
  });
});

describe('rr-types: off-nominal', () => {
  it.each([[-1], [65536], [1.5], [Number.NaN]])('refuses type %s', (type) => {
    expect(() => parseType(type)).toThrow(InvalidQueryError);
  });

  it.each([['BOGUS'], ['TYPE'], ['UNKNOWN_5'], ['TYPE70000']])('refuses type "%s"', (type) => {
    expect(() => parseType(type)).toThrow(InvalidQueryError);
  });

  it.each([[-1], [65536], ['XX']])('refuses class %s', (rrclass) => {
    expect(() => parseClass(rrclass)).toThrow(InvalidQueryError);
  });

  it('refuses an unknown rcode name', () => {
    expect(() => parseRcode('NOPE')).toThrow(InvalidQueryError);
  });
});
