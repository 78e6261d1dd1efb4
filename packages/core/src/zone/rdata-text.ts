/**
 * RDATA in presentation format, per type, into the shape dns-packet encodes. Each reader
 * throws SyntaxError with what is wrong; the parser adds the file and line.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { MAX_NAME_LENGTH, parseName, wireLength, type Labels } from '../names.js';
import { decodeRecord } from '../records/decode.js';
import { RRType, typeName } from '../rr-types.js';
import { TokenError, unescapeBytes, type Token } from './lexer.js';
import { DnsError } from '../errors.js';
import { quoteText } from '../untrusted-text.js';

export interface NameContext {
  /** Origin for relative names. */
  readonly origin: Labels;
}

/** The tokens of one record's RDATA, read in order. */
export class RdataTokens {
  #index = 0;
  constructor(
    private readonly tokens: readonly Token[],
    private readonly context: NameContext,
    private readonly type: string,
  ) {}

  next(what: string): Token {
    const token = this.tokens[this.#index++];
    if (!token) throw new SyntaxError(`${this.type} record is missing its ${what}`);
    return token;
  }

  get done(): boolean {
    return this.#index >= this.tokens.length;
  }

  rest(): Token[] {
    const rest = this.tokens.slice(this.#index);
    this.#index = this.tokens.length;
    return [...rest];
  }

  end(): void {
    if (!this.done)
      throw new SyntaxError(`${this.type} record has unexpected data ${quoteText(this.tokens[this.#index]!.text)}`);
  }

  integer(what: string, max: number): number {
    const text = this.next(what).text;
    if (!/^\d+$/.test(text) || Number(text) > max)
      throw new SyntaxError(`${this.type} ${what} ${quoteText(text)} is not a number 0..${max}`);
    return Number(text);
  }

  u8(what: string): number {
    return this.integer(what, 0xff);
  }

  u16(what: string): number {
    return this.integer(what, 0xffff);
  }

  u32(what: string): number {
    return this.integer(what, 0xffffffff);
  }

  /** A TTL-like duration: seconds, or BIND units (1h30m). */
  duration(what: string): number {
    const text = this.next(what).text;
    const value = parseDuration(text);
    if (value === undefined) throw new SyntaxError(`${this.type} ${what} ${quoteText(text)} is not a duration`);
    return value;
  }

  name(what: string): string {
    return nameAt(this.next(what), this.context.origin);
  }

  /** A <character-string>'s octets, \DDD escapes included (a TXT string may hold any octet). */
  characterString(what: string): Buffer {
    const bytes = Buffer.from(unescapeBytes(this.next(what).text));
    if (bytes.length > 255) throw new SyntaxError(`${this.type} ${what} is ${bytes.length} bytes, at most 255`);
    return bytes;
  }

  /**
   * A <character-string> as text, for the encoder that takes strings (NAPTR's fields): octets
   * that are not UTF-8 would come out changed, so they are refused, as packetName refuses them.
   */
  characterText(what: string): string {
    const bytes = this.characterString(what);
    const text = bytes.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(bytes)) {
      throw new SyntaxError(`${this.type} ${what} holds octets that are not UTF-8, which this server cannot encode`);
    }
    return text;
  }
}

/** Seconds from "3600", "1h", "1w2d3h4m5s"; undefined when not a duration or over 2^31-1. */
export function parseDuration(text: string): number | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n <= 0x7fffffff ? n : undefined;
  }
  if (!/^(\d+[wdhms])+$/i.test(text)) return undefined;
  const unit: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };
  let total = 0;
  for (const [, n, u] of text.toLowerCase().matchAll(/(\d+)([wdhms])/g)) total += Number(n) * unit[u!]!;
  return total <= 0x7fffffff ? total : undefined;
}

/** The dns-packet form of the name `token` holds; what is wrong with it is a TokenError (line and column). */
export function nameAt(token: Token, origin: Labels): string {
  return packetName(labelsAt(token, origin));
}

/** The labels of the name `token` holds, relative to `origin`; what is wrong with it is a TokenError. */
export function labelsAt(token: Token, origin: Labels): Labels {
  try {
    return absoluteName(token.text, origin);
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof DnsError) throw new TokenError(token, error.message);
    throw error;
  }
}

/** A name from a zone file: "@" is the origin; a name without the trailing dot is relative. */
export function absoluteName(text: string, origin: Labels): Labels {
  if (text === '@') return origin;
  const labels = parseName(text);
  const absolute = isAbsolute(text) ? labels : [...labels, ...origin];
  // parseName checked the name alone; the origin may make it too long.
  if (wireLength(absolute) > MAX_NAME_LENGTH)
    throw new SyntaxError(`${quoteText(text)} is longer than ${MAX_NAME_LENGTH} octets with the origin`);
  return absolute;
}

/** A name ends with an unescaped dot: an odd number of backslashes before it escapes it. */
function isAbsolute(text: string): boolean {
  if (!text.endsWith('.')) return false;
  const backslashes = /\\*$/.exec(text.slice(0, -1))![0].length;
  return backslashes % 2 === 0;
}

/**
 * The form dns-packet encodes: labels joined by dots. dns-packet cannot encode a label that
 * holds a dot or a backslash, or bytes that are not UTF-8, so such names are refused here.
 */
export function packetName(labels: Labels): string {
  if (labels.length === 0) return '.';
  return labels
    .map((label) => {
      const text = Buffer.from(label).toString('utf8');
      if (text.includes('.') || text.includes('\\') || !Buffer.from(text, 'utf8').equals(label)) {
        throw new SyntaxError(
          `the label ${quoteText(text)} holds a dot, a backslash or non-UTF-8 bytes, which this server cannot encode`,
        );
      }
      return text;
    })
    .join('.');
}

/** Reads the RDATA of `type` into dns-packet's shape. */
export function readRdata(type: number, tokens: readonly Token[], context: NameContext): unknown {
  const reader = new RdataTokens(tokens, context, typeName(type));
  if (tokens[0]?.text === '\\#' && !tokens[0].quoted) return readGeneric(type, reader);
  const read = readers.get(type);
  if (!read) {
    throw new SyntaxError(
      `type ${typeName(type)} is not supported in zone files; write it in the RFC 3597 form \\# LENGTH HEX`,
    );
  }
  const data = read(reader);
  reader.end();
  return data;
}

/** CAA (RFC 8659): read from its presentation form, kept as RDATA octets (the core has no typed view). */
const CAA = 257;

const readers = new Map<number, (t: RdataTokens) => unknown>([
  [RRType.A, (t) => address(t.next('address').text, 4)],
  [RRType.AAAA, (t) => address(t.next('address').text, 6)],
  [RRType.CNAME, (t) => t.name('target')],
  [RRType.NS, (t) => t.name('name server')],
  [RRType.PTR, (t) => t.name('target')],
  // Held and served as asked; names below it are not synthesized (the zone resolver has no DNAME synthesis).
  [RRType.DNAME, (t) => t.name('target')],
  [RRType.MX, (t) => ({ preference: t.u16('preference'), exchange: t.name('exchange') })],
  [
    RRType.SRV,
    (t) => ({ priority: t.u16('priority'), weight: t.u16('weight'), port: t.u16('port'), target: t.name('target') }),
  ],
  [
    RRType.NAPTR,
    (t) => ({
      order: t.u16('order'),
      preference: t.u16('preference'),
      flags: t.characterText('flags'),
      services: t.characterText('services'),
      regexp: t.characterText('regexp'),
      replacement: t.name('replacement'),
    }),
  ],
  [
    RRType.TXT,
    (t) => {
      const strings = [t.characterString('text')];
      while (!t.done) strings.push(t.characterString('text'));
      return strings;
    },
  ],
  [
    RRType.SOA,
    (t) => ({
      mname: t.name('MNAME'),
      rname: t.name('RNAME'),
      serial: t.u32('serial'),
      refresh: t.duration('refresh'),
      retry: t.duration('retry'),
      expire: t.duration('expire'),
      minimum: t.duration('minimum'),
    }),
  ],
  [
    CAA,
    (t) => {
      const flags = t.u8('flags');
      const tag = t.next('tag').text;
      // RFC 8659 section 4.1: a tag is letters and digits only.
      if (!/^[A-Za-z0-9]{1,255}$/.test(tag))
        throw new SyntaxError(`CAA tag ${quoteText(tag)} is not letters and digits`);
      // The value is the rest of the RDATA, not a <character-string>: it may pass 255 octets.
      const value = unescapeBytes(t.next('value').text);
      return Buffer.concat([Buffer.from([flags, tag.length]), Buffer.from(tag, 'ascii'), value]);
    },
  ],
  [
    RRType.TLSA,
    (t) => ({
      usage: t.u8('usage'),
      selector: t.u8('selector'),
      matchingType: t.u8('matching type'),
      certificate: hex(
        t
          .rest()
          .map((x) => x.text)
          .join(''),
        'certificate association data',
      ),
    }),
  ],
]);

function address(text: string, family: 4 | 6): string {
  if (family === 4 ? !isIPv4(text) : !isIPv6(text) || text.includes('%')) {
    throw new SyntaxError(`${quoteText(text)} is not an IPv${family} address`);
  }
  return text;
}

function hex(text: string, what: string): Buffer {
  if (text.length === 0 || text.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(text)) {
    throw new SyntaxError(`${what} ${quoteText(text)} is not an even number of hex digits`);
  }
  return Buffer.from(text, 'hex');
}

/** RFC 3597: \# LENGTH HEX... ; a type with a typed view is decoded into it. */
function readGeneric(type: number, tokens: RdataTokens): unknown {
  tokens.next('\\#');
  const length = tokens.u16('RDATA length');
  const rest = tokens
    .rest()
    .map((t) => t.text)
    .join('');
  const data = length === 0 && rest === '' ? Buffer.alloc(0) : hex(rest, 'RDATA');
  if (data.length !== length) throw new SyntaxError(`\\# says ${length} bytes of RDATA, the hex holds ${data.length}`);
  if (!readers.has(type)) return data;
  try {
    const record = decodeRecord(data, {
      name: '.',
      labels: [],
      type,
      class: 1,
      ttl: 0,
      rdataOffset: 0,
      rdlength: data.length,
    });
    if (type === RRType.TXT) return characterStrings(data);
    return record.data;
  } catch (error) {
    throw new SyntaxError(`the \\# RDATA is not a valid ${typeName(type)}: ${(error as Error).message}`);
  }
}

function characterStrings(data: Buffer): Buffer[] {
  const strings: Buffer[] = [];
  for (let i = 0; i < data.length; i += data[i]! + 1) strings.push(data.subarray(i + 1, i + 1 + data[i]!));
  return strings;
}
