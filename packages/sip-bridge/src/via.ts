/**
 * Via header fields read per RFC 3261 section 25.1, for the messages `sip` 0.0.6 cannot read:
 * its Via regex cuts a sent-by host at the first colon, so `[2001:db8::1]:5070` becomes host
 * `[2001` with no port and no parameters (the branch is lost), and a second via-parm of the same
 * field is lost with it. When a Via field holds an IPv6 reference, every Via field of the
 * message is read again here, in order, into the shape `sip.parse` gives an IPv4 Via:
 * `{ version, protocol, host, port, params }`, the host kept with its brackets (as the bridge
 * writes its own, and as `sip.stringify` must write it back), the port a number or undefined,
 * parameter names lower-cased, a value as written (quotes kept) or null.
 *
 * One pass, each character read once; bounded by the guard's field limits and by the counts
 * below. What breaks the grammar is a typed refusal ('malformed-via'), never a guess.
 */
import { isIPv6 } from 'node:net';
import type { Rejection } from './message-guard.js';
import type { SipMessage, SipVia } from './sip-stack.js';

/** via-parms in one message, all Via fields together (RFC 3261 sets no bound; Max-Forwards is 70). */
export const MAX_VIAS = 128;
/** via-params of one via-parm. */
export const MAX_VIA_PARAMS = 64;
/** The longest IPv6 reference, brackets included: 8 groups of 4 digits and 7 colons, or a dotted tail. */
const MAX_IPV6_REFERENCE = 47;

const LF = 0x0a;
const OPEN = 0x5b; // '['

/**
 * Reads the message's Via fields again from its bytes when one holds an IPv6 reference (else
 * leaves `sip`'s reading alone). A refusal means the message must not be handed on.
 */
export function repairVias(message: SipMessage, bytes: Uint8Array): Rejection | undefined {
  const open = bytes.indexOf(OPEN);
  if (open < 0) return undefined;
  const end = headerEnd(bytes);
  if (open >= end) return undefined;
  const section = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('latin1');
  const fields = viaFields(section);
  if (!fields.some((field) => field.includes('['))) return undefined;
  const vias: SipVia[] = [];
  for (const field of fields) {
    const refused = parseVia(field, vias);
    if (refused !== undefined) return { reason: 'malformed-via', detail: refused };
  }
  message.headers.via = vias;
  return undefined;
}

/** Offset of the empty line's CRLF (the guard made sure there is one), or the length. */
function headerEnd(bytes: Uint8Array): number {
  for (let i = bytes.indexOf(LF); i >= 0 && i + 2 < bytes.length; i = bytes.indexOf(LF, i + 1)) {
    if (bytes[i + 1] === 0x0d && bytes[i + 2] === LF) return i + 1;
  }
  return bytes.length;
}

/**
 * The values of the Via fields (`Via`, compact `v`, named as `sip` names a field: `unescape`d
 * and lower-cased), folds kept as whitespace, in order. The start line is skipped.
 */
function viaFields(section: string): string[] {
  const fields: string[] = [];
  let start = section.indexOf('\r\n');
  if (start < 0) return fields;
  start += 2;
  while (start < section.length) {
    // A line ends at a CRLF not followed by SP or HT (a fold).
    let end = section.indexOf('\r\n', start);
    while (end >= 0 && (section[end + 2] === ' ' || section[end + 2] === '\t')) end = section.indexOf('\r\n', end + 2);
    if (end < 0) end = section.length;
    // Searched within the line only, so a line costs its own length.
    const colon = start + section.substring(start, end).indexOf(':');
    if (colon > start && colon - start <= 120) {
      const name = unescape(section.slice(start, colon).trimEnd()).toLowerCase();
      if (name === 'via' || name === 'v') fields.push(section.slice(colon + 1, end));
    }
    start = end + 2;
  }
  return fields;
}

/** tchar of RFC 3261 25.1's token: alphanum and - . ! % * _ + ` ' ~ */
function isTokenChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x2e ||
    code === 0x21 ||
    code === 0x25 ||
    code === 0x2a ||
    code === 0x5f ||
    code === 0x2b ||
    code === 0x60 ||
    code === 0x27 ||
    code === 0x7e
  );
}

/** A hostname or IPv4address: alphanum, "-" and ".". */
function isHostChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x2e
  );
}

/** A reader over one field value; every method moves forward only. */
class Cursor {
  i = 0;
  constructor(readonly s: string) {}

  get done(): boolean {
    return this.i >= this.s.length;
  }

  peek(): string | undefined {
    return this.s[this.i];
  }

  /** LWS and SWS (folds already joined by CRLF + SP/HT): skips SP, HT, CR, LF; how many. */
  space(): number {
    const from = this.i;
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
      this.i++;
    }
    return this.i - from;
  }

  run(accept: (code: number) => boolean): string {
    const from = this.i;
    while (this.i < this.s.length && accept(this.s.charCodeAt(this.i))) this.i++;
    return this.s.slice(from, this.i);
  }

  /** A separator wrapped in SWS (SLASH, COLON, SEMI, EQUAL, COMMA): true and past it when it is next. */
  separator(char: string): boolean {
    const from = this.i;
    this.space();
    if (this.s[this.i] === char) {
      this.i++;
      this.space();
      return true;
    }
    this.i = from;
    return false;
  }

  /** "[" IPv6address "]", brackets kept; undefined when it is not one. */
  ipv6Reference(): string | undefined {
    const close = this.s.indexOf(']', this.i);
    if (close < 0 || close - this.i + 1 > MAX_IPV6_REFERENCE) return undefined;
    const reference = this.s.slice(this.i, close + 1);
    if (!isIPv6(reference.slice(1, -1))) return undefined;
    this.i = close + 1;
    return reference;
  }

  /** A quoted-string, quotes kept; undefined when it does not end. */
  quoted(): string | undefined {
    const from = this.i;
    for (this.i++; this.i < this.s.length; this.i++) {
      const c = this.s[this.i];
      if (c === '\\') this.i++;
      else if (c === '"') {
        this.i++;
        return this.s.slice(from, this.i);
      }
    }
    this.i = from;
    return undefined;
  }
}

/** A gen-value as written, or the IPv6address of `received` (colons, no brackets); undefined when none. */
function paramValue(cursor: Cursor): string | undefined {
  if (cursor.peek() === '"') return cursor.quoted();
  if (cursor.peek() === '[') return cursor.ipv6Reference();
  const value = cursor.run((code) => isTokenChar(code) || code === 0x3a);
  return value === '' ? undefined : value;
}

/** Quotes untrusted text for a refusal's detail: printable ASCII only, at most 40 characters. */
function shown(text: string): string {
  const cut = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  return JSON.stringify(cut.replace(/[^\x20-\x7e]/g, '?'));
}

/**
 * Appends the via-parms of one Via field value to `into`; the reason when the value breaks
 * RFC 3261 25.1 or the bounds above.
 */
export function parseVia(value: string, into: SipVia[]): string | undefined {
  const cursor = new Cursor(value);
  cursor.space();
  do {
    if (into.length >= MAX_VIAS) return `more than ${MAX_VIAS} Via entries`;
    const at = cursor.i;
    const name = cursor.run(isTokenChar);
    if (name.toUpperCase() !== 'SIP' || !cursor.separator('/'))
      return `a Via does not start with SIP/: ${shown(value.slice(at))}`;
    const version = cursor.run(isTokenChar);
    if (!/^\d+\.\d+$/.test(version) || !cursor.separator('/'))
      return `a Via has no SIP version: ${shown(value.slice(at))}`;
    const protocol = cursor.run(isTokenChar);
    if (protocol === '' || cursor.space() === 0) return `a Via has no transport: ${shown(value.slice(at))}`;
    const host = cursor.peek() === '[' ? cursor.ipv6Reference() : cursor.run(isHostChar) || undefined;
    if (host === undefined)
      return `a Via's sent-by host is not a host name, IPv4 address or IPv6 reference: ${shown(value.slice(at))}`;
    let port: number | undefined;
    if (cursor.separator(':')) {
      const digits = cursor.run((code) => code >= 0x30 && code <= 0x39);
      port = digits.length > 0 && digits.length <= 5 ? Number(digits) : Number.NaN;
      if (!(port <= 65535)) return `a Via's sent-by port is not a port: ${shown(value.slice(at))}`;
    }
    const params: Record<string, string | null> = {};
    let count = 0;
    while (cursor.separator(';')) {
      if (++count > MAX_VIA_PARAMS) return `a Via has more than ${MAX_VIA_PARAMS} parameters`;
      const param = cursor.run(isTokenChar);
      if (param === '') return `a Via parameter has no name: ${shown(value.slice(cursor.i))}`;
      let paramValueText: string | null = null;
      if (cursor.separator('=')) {
        const read = paramValue(cursor);
        if (read === undefined) return `the Via parameter ${shown(param)} has no valid value`;
        paramValueText = read;
      }
      // Defined, not assigned: a parameter named __proto__ stays a parameter.
      Object.defineProperty(params, param.toLowerCase(), {
        value: paramValueText,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    into.push({ version, protocol, host, port, params });
  } while (cursor.separator(','));
  cursor.space();
  if (!cursor.done) return `unexpected text in a Via: ${shown(value.slice(cursor.i))}`;
  return undefined;
}
