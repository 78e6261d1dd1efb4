/**
 * NAPTR records (RFC 3403): parsing, the validation rules a record must pass to be kept,
 * and the order in which a client considers them.
 */
import type { WireReader } from '../wire/reader.js';
import { compileEre, groupCount } from './ere.js';
import { RdataError } from './rdata-error.js';
import type { NaptrData, TypedRecord } from './types.js';
import { quoteText } from '../untrusted-text.js';

const utf8 = new TextDecoder('utf-8');
const MAX_SERVICE_SEGMENT = 32;

export function decodeNaptr(reader: WireReader): NaptrData {
  const data: NaptrData = {
    order: reader.u16('NAPTR order'),
    preference: reader.u16('NAPTR preference'),
    flags: utf8.decode(reader.characterString('NAPTR flags')),
    services: utf8.decode(reader.characterString('NAPTR services')),
    regexp: utf8.decode(reader.characterString('NAPTR regexp')),
    replacement: reader.nameText('NAPTR replacement'),
  };
  validateNaptr(data);
  return data;
}

/** Throws RdataError naming the rule when the record must be dropped. */
export function validateNaptr(data: NaptrData): void {
  validateFlags(data.flags);
  validateServices(data.services);
  if (data.regexp !== '') {
    parseNaptrRegexp(data.regexp);
    // RFC 3403 section 4.1: the regexp and replacement fields are mutually exclusive.
    if (data.replacement !== '.') {
      throw new RdataError('naptr-regexp-and-replacement', 'NAPTR has both a regexp and a replacement');
    }
  }
}

/**
 * Flags (RFC 3404 section 4.3): alphanumeric characters, and at most one of the terminal or
 * protocol flags S, A, U, P in any case. Unknown alphanumeric flags are allowed.
 */
export function validateFlags(flags: string): void {
  let known = '';
  for (const c of flags) {
    if (!/^[A-Za-z0-9]$/.test(c))
      throw new RdataError('naptr-flags', `NAPTR flags ${quoteText(flags)} hold ${quoteText(c)}, not alphanumeric`);
    if (/^[sSaAuUpP]$/.test(c)) {
      if (known)
        throw new RdataError(
          'naptr-flags',
          `NAPTR flags ${quoteText(flags)} combine ${quoteText(known)} and ${quoteText(c)}`,
        );
      known = c;
    }
  }
}

/** Services (RFC 3403 section 4.1): "+"-separated segments of 1 to 32 alphanumerics, each starting with a letter. */
export function validateServices(services: string): void {
  if (services === '') return;
  for (const segment of services.split('+')) {
    if (segment.length === 0)
      throw new RdataError('naptr-services', `NAPTR services ${quoteText(services)} have an empty segment`);
    if (segment.length > MAX_SERVICE_SEGMENT) {
      throw new RdataError(
        'naptr-services',
        `NAPTR services segment ${quoteText(segment)} is longer than ${MAX_SERVICE_SEGMENT} characters`,
      );
    }
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(segment)) {
      throw new RdataError(
        'naptr-services',
        `NAPTR services segment ${quoteText(segment)} must be a letter followed by letters and digits`,
      );
    }
  }
}

export interface NaptrRegexp {
  readonly delimiter: string;
  readonly pattern: RegExp;
  /** The replacement template; \1..\9 refer to the pattern's groups. */
  readonly replacement: string;
}

/**
 * Parses a substitution expression (RFC 3402 section 3.2): delim ERE delim repl delim flags.
 * The delimiter is not a digit 1-9, "\" or "i"; exactly three unescaped delimiters; flags
 * are empty or "i"; in the replacement a backslash starts a back-reference \1..\9 (each
 * naming a group of the pattern) or escapes the delimiter; the pattern must compile.
 */
export function parseNaptrRegexp(regexp: string): NaptrRegexp {
  const fail = (reason: string): never => {
    throw new RdataError('naptr-regexp', `NAPTR regexp ${quoteText(regexp)}: ${reason}`);
  };
  const chars = Array.from(regexp);
  const delimiter = chars[0]!;
  if (/^[1-9\\i]$/.test(delimiter)) fail(`${quoteText(delimiter)} cannot be the delimiter`);
  const parts: string[][] = [[]];
  for (let i = 1; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) {
      parts[parts.length - 1]!.push(c, chars[++i]!);
    } else if (c === delimiter) {
      parts.push([]);
    } else {
      parts[parts.length - 1]!.push(c);
    }
  }
  if (parts.length !== 3) fail(`has ${parts.length} unescaped delimiters, not 3`);
  const [ere, repl, flags] = parts as [string[], string[], string[]];
  if (flags.length > 0 && flags.join('') !== 'i') fail(`flags ${quoteText(flags.join(''))} are not empty or "i"`);

  let pattern: RegExp;
  try {
    pattern = compileEre(unescapeDelimiter(ere, delimiter), flags.length > 0);
  } catch (error) {
    return fail(`the pattern does not compile (${(error as Error).message})`);
  }
  const groups = groupCount(pattern);
  for (let i = 0; i < repl.length; i++) {
    if (repl[i] !== '\\') continue;
    const next = repl[++i];
    if (next === undefined) fail('the replacement ends with a lone backslash');
    else if (/^[1-9]$/.test(next)) {
      if (Number(next) > groups) fail(`back-reference \\${next} but the pattern has ${groups} group(s)`);
    } else if (next !== delimiter)
      fail(`"\\${next}" in the replacement is neither a back-reference \\1-\\9 nor an escaped delimiter`);
  }
  return { delimiter, pattern, replacement: repl.join('') };
}

/** "\!" in an ERE delimited by "!" means "!"; it stays escaped only where ERE needs it. */
function unescapeDelimiter(ere: string[], delimiter: string): string {
  const ereSpecial = /^[.[\]\\()*+?{}|^$]$/.test(delimiter);
  let out = '';
  for (let i = 0; i < ere.length; i++) {
    if (ere[i] === '\\' && ere[i + 1] === delimiter && !ereSpecial) {
      out += delimiter;
      i++;
    } else {
      out += ere[i]!;
    }
  }
  return out;
}

/** RFC 3403 order: order ascending, then preference ascending; ties keep their received order. */
export function orderNaptr<R extends { readonly data: NaptrData }>(records: readonly R[]): R[] {
  return [...records].sort((a, b) => a.data.order - b.data.order || a.data.preference - b.data.preference);
}

export type NaptrRecord = TypedRecord<'NAPTR'>;
