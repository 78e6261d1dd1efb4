/**
 * Tokenizer for master files (RFC 1035 section 5.1): entries end at a newline outside
 * parentheses, ";" starts a comment, quoted strings keep their spaces, a backslash escapes the
 * next character or starts a \DDD byte. Tokens keep their escapes; the parser interprets them
 * as a name or a character-string.
 */
import { ZoneFileError } from '../errors.js';

export interface Token {
  /** The token's text, escapes kept, quotes removed. */
  readonly text: string;
  readonly quoted: boolean;
  readonly line: number;
  /** Column (1-based, in characters) where the token starts: its opening quote when quoted. */
  readonly column: number;
}

/** What is wrong with one token: the parser names its line and column. */
export class TokenError extends SyntaxError {
  constructor(
    readonly token: Token,
    reason: string,
  ) {
    super(reason);
  }
}

export interface Entry {
  /** Line where the entry starts. */
  readonly line: number;
  /** The entry starts with white space: the owner is the previous one. */
  readonly blankOwner: boolean;
  readonly tokens: readonly Token[];
}

export function* entries(text: string, file: string): Generator<Entry> {
  let line = 1;
  let lineStart = 0;
  let i = 0;
  const length = text.length;
  const fail = (reason: string): never => {
    throw new ZoneFileError(file, line, reason);
  };

  while (i < length) {
    const startLine = line;
    const blankOwner = text[i] === ' ' || text[i] === '\t';
    const tokens: Token[] = [];
    let depth = 0;
    let openedAt = 0;
    for (;;) {
      if (i >= length) {
        if (depth > 0) throw new ZoneFileError(file, openedAt, 'a "(" is never closed');
        break;
      }
      const c = text[i]!;
      if (c === '\n') {
        line++;
        i++;
        lineStart = i;
        if (depth === 0) break;
      } else if (c === ' ' || c === '\t' || c === '\r') {
        i++;
      } else if (c === ';') {
        while (i < length && text[i] !== '\n') i++;
      } else if (c === '(') {
        if (depth > 0) fail('nested "("');
        depth++;
        openedAt = line;
        i++;
      } else if (c === ')') {
        if (depth === 0) fail('")" without "("');
        depth--;
        i++;
      } else if (c === '"') {
        const column = i - lineStart + 1;
        const start = ++i;
        const tokenLine = line;
        while (i < length && text[i] !== '"') {
          if (text[i] === '\\') i++;
          else if (text[i] === '\n') fail('a quoted string runs past the end of its line');
          if (text[i] === '\n') {
            line++; // an escaped newline is data, but still a new line
            lineStart = i + 1;
          }
          i++;
        }
        if (i >= length) fail('a quoted string is never closed');
        tokens.push({ text: text.slice(start, i), quoted: true, line: tokenLine, column });
        i++;
      } else {
        const start = i;
        const tokenLine = line;
        const column = i - lineStart + 1;
        while (i < length && !' \t\r\n;()"'.includes(text[i]!)) {
          if (text[i] === '\\') i++;
          if (text[i] === '\n') {
            line++;
            lineStart = i + 1;
          }
          i++;
        }
        tokens.push({ text: text.slice(start, Math.min(i, length)), quoted: false, line: tokenLine, column });
      }
    }
    if (tokens.length > 0) yield { line: startLine, blankOwner, tokens };
  }
}

/**
 * The bytes a token stands for, after \X and \DDD escapes (a character-string's content).
 * Throws SyntaxError for a bad escape.
 */
export function unescapeBytes(token: string): Uint8Array {
  const raw = Buffer.from(token, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== 0x5c) {
      out.push(c);
      continue;
    }
    const a = raw[i + 1];
    if (a === undefined) throw new SyntaxError('ends with a lone backslash');
    if (a >= 0x30 && a <= 0x39) {
      const digits = raw.subarray(i + 1, i + 4).toString('latin1');
      if (!/^\d{3}$/.test(digits) || Number(digits) > 255) throw new SyntaxError(`bad \\DDD escape "\\${digits}"`);
      out.push(Number(digits));
      i += 3;
    } else {
      out.push(a);
      i += 1;
    }
  }
  return Uint8Array.from(out);
}
