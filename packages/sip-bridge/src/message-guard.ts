/**
 * The checks a SIP message's bytes pass before the `sip` 0.0.6 parser sees them. That parser's
 * regular expressions are quadratic in the length of a whitespace run (`\s*` tried at every
 * position of the run), and its `applyRegex` searches the rest of a header value each time a
 * list element ends, so its cost grows with the square of a line. The guard bounds what makes it
 * slow, reading each byte once: the message and header-section size, the header count, the
 * length of a header line (folds included) and of a whitespace run, and it refuses bare CR or LF
 * in the header section (RFC 3261 section 7 frames lines with CRLF only). It also reads the
 * Content-Length as `sip` will, so a stream can be framed by it (RFC 3261 section 18.3).
 * It never changes a byte: a message that passes is handed to `sip` as it came.
 */
import { InvalidArgumentError } from '@dnscore/core';
import {
  DEFAULT_MAX_HEADER_BYTES,
  DEFAULT_MAX_HEADERS,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_PARSED_FIELD_BYTES,
  DEFAULT_PARSED_FIELD_BUDGET,
  DEFAULT_MAX_WHITESPACE_RUN,
} from './defaults.js';

/** Bounds on one SIP message. */
export interface MessageLimits {
  /** Whole message, header section and body (default 65,535: the largest UDP payload). */
  readonly maxMessageBytes?: number;
  /** Start line, header fields and the empty line (default 8,192). */
  readonly maxHeaderBytes?: number;
  /** Header fields, a folded field counting once (default 128). */
  readonly maxHeaders?: number;
  /** One start line or header field, folds included (default 4,096). */
  readonly maxLineBytes?: number;
  /**
   * One header field that `sip` parses into parts (Via, To, From, Contact, Route, Record-Route,
   * Path, CSeq, Refer-To, and the authentication fields), folds included (default 1,024).
   */
  readonly maxParsedFieldBytes?: number;
  /**
   * The sum, over those fields, of the square of each one's length in bytes (default 2^21: two
   * 1 KiB fields, or 32 of 256 bytes). What `sip` spends on them grows as that square.
   */
  readonly parsedFieldBudget?: number;
  /** Consecutive whitespace bytes, as `sip`'s `\s` reads them (default 16). */
  readonly maxWhitespaceRun?: number;
}

export type ResolvedLimits = Required<MessageLimits>;

/** Why a message or a connection was refused before parsing. */
export type RejectReason =
  | 'message-too-large'
  | 'headers-too-large'
  | 'too-many-headers'
  | 'line-too-long'
  | 'parsed-field-budget'
  | 'whitespace-run'
  | 'bare-line-break'
  | 'malformed-header'
  | 'content-length'
  | 'connection-limit'
  | 'message-timeout'
  /** A Via field `sip` cannot read (an IPv6 reference) that breaks RFC 3261 25.1 (via.ts). */
  | 'malformed-via';

export interface Rejection {
  readonly reason: RejectReason;
  /** For people: the limit and what was seen. */
  readonly detail: string;
}

export function resolveLimits(limits: MessageLimits = {}): ResolvedLimits {
  const resolved: ResolvedLimits = {
    maxMessageBytes: limits.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    maxHeaderBytes: limits.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
    maxHeaders: limits.maxHeaders ?? DEFAULT_MAX_HEADERS,
    maxLineBytes: limits.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    maxParsedFieldBytes: limits.maxParsedFieldBytes ?? DEFAULT_MAX_PARSED_FIELD_BYTES,
    parsedFieldBudget: limits.parsedFieldBudget ?? DEFAULT_PARSED_FIELD_BUDGET,
    maxWhitespaceRun: limits.maxWhitespaceRun ?? DEFAULT_MAX_WHITESPACE_RUN,
  };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  }
  return resolved;
}

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HT = 0x09;
const COLON = 0x3a;

/** The bytes JavaScript's `\s` matches in a latin1 ("binary") string, which is how `sip` reads messages. */
function isSpace(byte: number): boolean {
  return (byte >= 0x09 && byte <= 0x0d) || byte === SP || byte === 0xa0;
}

/**
 * The fields `sip` parses into parts with regular expressions that search the rest of the value
 * (its `parsers` table, and the compact forms that map to it); every other field is kept as text.
 */
const PARSED_FIELDS = new Set([
  'via',
  'v',
  'to',
  't',
  'from',
  'f',
  'contact',
  'm',
  'route',
  'record-route',
  'path',
  'cseq',
  'refer-to',
  'www-authenticate',
  'proxy-authenticate',
  'authorization',
  'proxy-authorization',
  'authentication-info',
]);

type FieldKind = 'content-length' | 'parsed' | 'text';

/** What `sip` does with a field, named as it names it: `unescape`d, lower-cased, compact forms mapped. */
function fieldKind(raw: string): FieldKind {
  if (raw.length > 120) return 'text'; // the longest parsed name, 19 characters of up to 6 bytes (%uXXXX)
  const name = unescape(raw).toLowerCase();
  if (name === 'content-length' || name === 'l') return 'content-length';
  return PARSED_FIELDS.has(name) ? 'parsed' : 'text';
}

enum State {
  Leading,
  Line,
  /** After a CR inside the header section: only LF may follow. */
  Cr,
  /** After a line's CRLF: a fold (SP, HT), the empty line (CR) or the next field. */
  LineEnd,
  /** After the CR of the empty line. */
  LastCr,
  Done,
}

/**
 * Reads a header section a chunk at a time, each byte once. `push` returns the offset just past
 * the empty line when the section ends in that chunk, -1 when it needs more, -2 when the message
 * is refused (`rejection` says why).
 */
export class HeaderScanner {
  rejection: Rejection | undefined;
  /** Bytes of the header section read so far (the whole section once done). */
  bytes = 0;
  /** The Content-Length as `sip` reads it; undefined when the message has none. */
  contentLength: number | undefined;
  #state = State.Leading;
  #run = 0;
  #line = 0;
  #headers = 0;
  /** -1: on the start line; else the header field's name until its first colon, then null. */
  #name: number[] | null | -1 = -1;
  #parsed = false;
  #spent = 0;
  #value: number[] | undefined;

  constructor(private readonly limits: ResolvedLimits) {}

  push(chunk: Uint8Array, from = 0): number {
    if (this.#state === State.Done) return from;
    if (this.rejection) return -2;
    const { maxHeaderBytes, maxLineBytes, maxWhitespaceRun } = this.limits;
    for (let i = from; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (++this.bytes > maxHeaderBytes)
        return this.#refuse('headers-too-large', `the header section is over ${maxHeaderBytes} bytes`);
      if (isSpace(byte)) {
        if (++this.#run > maxWhitespaceRun)
          return this.#refuse('whitespace-run', `a whitespace run is over ${maxWhitespaceRun} bytes`);
      } else this.#run = 0;
      switch (this.#state) {
        case State.Leading:
          // `sip` skips any whitespace before the start line (RFC 3261 section 7.5: CRLFs).
          if (isSpace(byte)) continue;
          this.#state = State.Line;
          break;
        case State.Cr:
          if (byte !== LF) return this.#refuse('bare-line-break', 'a CR not followed by LF in the header section');
          this.#state = State.LineEnd;
          continue;
        case State.LineEnd:
          if (byte === SP || byte === HT) {
            this.#state = State.Line; // a fold: the same field goes on
            break;
          }
          {
            const ended = this.#endLine();
            if (ended === -2) return -2;
          }
          if (byte === CR) {
            this.#state = State.LastCr;
            continue;
          }
          this.#state = State.Line;
          this.#line = 0;
          this.#name = [];
          this.#value = undefined;
          this.#parsed = false;
          break;
        case State.LastCr:
          if (byte !== LF) return this.#refuse('bare-line-break', 'a CR not followed by LF in the header section');
          this.#state = State.Done;
          return i + 1;
        default:
          break;
      }
      // State.Line
      if (byte === CR) {
        this.#state = State.Cr;
        continue;
      }
      if (byte === LF) return this.#refuse('bare-line-break', 'an LF without CR in the header section');
      if (++this.#line > maxLineBytes)
        return this.#refuse('line-too-long', `a start line or header field is over ${maxLineBytes} bytes`);
      if (this.#parsed && this.#line > this.limits.maxParsedFieldBytes) {
        const limit = this.limits.maxParsedFieldBytes;
        return this.#refuse('line-too-long', `a header field that sip parses into parts is over ${limit} bytes`);
      }
      if (Array.isArray(this.#name)) {
        if (byte === COLON) {
          const raw = String.fromCharCode(...trimEnd(this.#name));
          if (/\s/.test(raw)) return this.#refuse('malformed-header', 'a header name holds whitespace');
          const kind = fieldKind(raw);
          if (kind === 'content-length') {
            if (this.contentLength !== undefined || this.#value)
              return this.#refuse('content-length', 'more than one Content-Length');
            this.#value = [];
          }
          this.#parsed = kind === 'parsed';
          this.#name = null;
        } else if (this.#name.length <= maxLineBytes) this.#name.push(byte);
      } else if (this.#value && this.#value.length < 32) this.#value.push(byte);
      else if (this.#value) return this.#refuse('content-length', 'a Content-Length value over 32 bytes');
    }
    return -1;
  }

  /** A start line or header field has ended (its CRLF was not a fold). */
  #endLine(): number {
    if (this.#name === -1) return 0; // the start line
    if (this.#parsed) {
      this.#spent += this.#line * this.#line;
      const budget = this.limits.parsedFieldBudget;
      if (this.#spent > budget) {
        return this.#refuse(
          'parsed-field-budget',
          `the fields sip parses into parts are over ${budget} (the sum of their lengths squared)`,
        );
      }
    }
    if (Array.isArray(this.#name)) return this.#refuse('malformed-header', 'a header field without a colon');
    if (++this.#headers > this.limits.maxHeaders)
      return this.#refuse('too-many-headers', `more than ${this.limits.maxHeaders} header fields`);
    if (this.#value) {
      // `sip` reads the value with `+value`; only digits (and whitespace) mean the same to both.
      const text = String.fromCharCode(...this.#value).trim();
      if (!/^[0-9]{1,10}$/.test(text))
        return this.#refuse('content-length', 'a Content-Length that is not a decimal number');
      this.contentLength = Number(text);
      this.#value = undefined;
    }
    return 0;
  }

  #refuse(reason: RejectReason, detail: string): -2 {
    this.rejection = { reason, detail };
    return -2;
  }
}

function trimEnd(bytes: number[]): number[] {
  let end = bytes.length;
  while (end > 0 && isSpace(bytes[end - 1]!)) end--;
  return end === bytes.length ? bytes : bytes.slice(0, end);
}

/** Where a datagram's header section and message end, or why it is refused. */
export type DatagramCheck =
  | {
      readonly ok: true;
      readonly headerBytes: number;
      readonly contentLength: number | undefined;
      /** The message: the header section and the Content-Length body; bytes after it are discarded. */
      readonly messageBytes: number;
    }
  | {
      readonly ok: false;
      readonly rejection: Rejection;
      /** Set when the header section passed: a request (but ACK) can be answered `status` from it. */
      readonly headerBytes?: number;
      readonly status?: 400 | 513;
    };

/**
 * Checks one datagram (RFC 3261 section 18.3: a message-oriented transport carries one message;
 * its body is the Content-Length bytes after the header section, any bytes after them are
 * discarded, and without Content-Length it ends with the datagram). A datagram over
 * `maxMessageBytes` whose header section passes is refused with `headerBytes` and status 513
 * (section 21.5.14); one that ends before its Content-Length body is an error, refused with
 * status 400 (a request SHOULD get 400, a response MUST be discarded).
 */
export function checkDatagram(datagram: Uint8Array, limits: ResolvedLimits): DatagramCheck {
  const scanner = new HeaderScanner(limits);
  const end = scanner.push(datagram);
  if (end === -2) return { ok: false, rejection: scanner.rejection! };
  if (end === -1) {
    return {
      ok: false,
      rejection: { reason: 'malformed-header', detail: 'the header section does not end (no empty line)' },
    };
  }
  if (datagram.length > limits.maxMessageBytes) {
    return {
      ok: false,
      headerBytes: end,
      status: 513,
      rejection: { reason: 'message-too-large', detail: `the message is over ${limits.maxMessageBytes} bytes` },
    };
  }
  const { contentLength } = scanner;
  if (contentLength === undefined) return { ok: true, headerBytes: end, contentLength, messageBytes: datagram.length };
  const missing = end + contentLength - datagram.length;
  if (missing > 0) {
    return {
      ok: false,
      headerBytes: end,
      status: 400,
      rejection: {
        reason: 'content-length',
        detail: `the datagram ends ${missing} bytes before the end of its Content-Length body`,
      },
    };
  }
  return { ok: true, headerBytes: end, contentLength, messageBytes: end + contentLength };
}
