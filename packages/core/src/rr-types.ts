/**
 * Numbers and mnemonics of RR types, classes and rcodes. dns-packet holds the IANA tables;
 * unknown values use the RFC 3597 forms TYPEnnn and CLASSnnn (dns-packet says UNKNOWN_nnn).
 */
import { createRequire } from 'node:module';
import { InvalidQueryError } from './errors.js';
import { quoteText } from './untrusted-text.js';

// dns-packet keeps its IANA tables in modules of their own, without type declarations.
const require = createRequire(import.meta.url);
const types = require('dns-packet/types.js') as { toString(n: number): string; toType(s: string): number };
const classes = require('dns-packet/classes.js') as { toString(n: number): string; toClass(s: string): number };
const rcodes = require('dns-packet/rcodes.js') as { toString(n: number): string; toRcode(s: string): number };

/** RR type numbers dnscore has typed views for. */
export const RRType = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  NAPTR: 35,
  DNAME: 39,
  OPT: 41,
  TLSA: 52,
  ANY: 255,
} as const;

export const RRClass = { IN: 1, CH: 3, HS: 4, NONE: 254, ANY: 255 } as const;

export const Rcode = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
} as const;

export function typeName(type: number): string {
  const name = types.toString(type);
  return name.startsWith('UNKNOWN_') ? `TYPE${type}` : name;
}

export function className(rrclass: number): string {
  const name = classes.toString(rrclass);
  return name.startsWith('UNKNOWN_') ? `CLASS${rrclass}` : name;
}

export function rcodeName(rcode: number): string {
  return rcodes.toString(rcode);
}

/** A type given as a number or a mnemonic ("SRV", "srv", "TYPE65"); must be 0..65535. */
export function parseType(type: number | string): number {
  return parseCode(type, 'type', 'TYPE', (s) => types.toType(s));
}

/** A class given as a number or a mnemonic ("IN", "CH", "CLASS3"); must be 0..65535. */
export function parseClass(rrclass: number | string): number {
  return parseCode(rrclass, 'class', 'CLASS', (s) => classes.toClass(s));
}

/** An rcode given as a number or a name ("NXDOMAIN"). */
export function parseRcode(rcode: number | string): number {
  if (typeof rcode === 'number') return rcode;
  const value = rcodes.toRcode(rcode);
  if (rcodes.toString(value) !== rcode.toUpperCase()) throw new InvalidQueryError(`unknown rcode ${quoteText(rcode)}`);
  return value;
}

function parseCode(value: number | string, what: string, prefix: string, lookup: (s: string) => number): number {
  let n: number;
  if (typeof value === 'number') {
    n = value;
  } else {
    const upper = value.trim().toUpperCase();
    if (/^\d+$/.test(upper)) n = Number(upper);
    else if (upper.startsWith(prefix) && /^\d+$/.test(upper.slice(prefix.length)))
      n = Number(upper.slice(prefix.length));
    else if (upper.startsWith('UNKNOWN_')) n = Number.NaN;
    else n = lookup(upper);
    if (!Number.isInteger(n) || (n === 0 && upper !== '0' && upper !== `${prefix}0`)) {
      throw new InvalidQueryError(`unknown ${what} ${quoteText(value)}`);
    }
  }
  if (!Number.isInteger(n) || n < 0 || n > 0xffff) {
    throw new InvalidQueryError(`${what} ${String(value)} is outside 0..65535`);
  }
  return n;
}
