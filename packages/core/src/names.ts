/**
 * Domain names as wire labels (RFC 1035 section 3.1). Names travel through the API as
 * presentation strings without the trailing dot ("sip1.biloxi.example", "." for the root);
 * they are compared label by label, ASCII case-insensitively (RFC 4343), never as dotted
 * strings, because a label may itself contain a dot ("a\.b.example" has two labels).
 */
import { InvalidQueryError } from './errors.js';
import { quoteText } from './untrusted-text.js';

/** Labels of a name, root excluded: "a.example" -> [a, example]. */
export type Labels = readonly Uint8Array[];

export const MAX_LABEL_LENGTH = 63;
/** Wire length of a name, length octets and the root label included. */
export const MAX_NAME_LENGTH = 255;

const BACKSLASH = 0x5c;
const DOT = 0x2e;
/** A name that needs no escape: labels of 1..63 letters, digits, '-' or '_', an optional final dot. */
const PLAIN_NAME = /^[A-Za-z0-9_-]{1,63}(?:\.[A-Za-z0-9_-]{1,63})*\.?$/;

/**
 * Parses a presentation-format name: `\.`, `\\` and `\DDD` escapes, an optional trailing dot,
 * "." or "" for the root. Throws InvalidQueryError for an empty or over-long label or name.
 */
export function parseName(text: string): Labels {
  if (text === '.' || text === '') return [];
  // Letters, digits, '-' and '_' only (almost every name): no escapes to read, one label per dot.
  if (text.length <= 254 && PLAIN_NAME.test(text)) {
    const parts = text.endsWith('.') ? text.slice(0, -1).split('.') : text.split('.');
    if (parts.reduce((n, p) => n + p.length + 1, 1) <= MAX_NAME_LENGTH) return asciiLabels(parts);
  }
  const labels: Uint8Array[] = [];
  let label: number[] = [];
  let wireLength = 1;
  const bytes = Buffer.from(text, 'utf8');
  const endLabel = (): void => {
    if (label.length === 0) throw new InvalidQueryError(`empty label in name ${quoteText(text)}`);
    if (label.length > MAX_LABEL_LENGTH) {
      throw new InvalidQueryError(`label longer than ${MAX_LABEL_LENGTH} octets in name ${quoteText(text)}`);
    }
    wireLength += label.length + 1;
    labels.push(Uint8Array.from(label));
    label = [];
  };
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === BACKSLASH) {
      const next = bytes[i + 1];
      if (next === undefined) throw new InvalidQueryError(`name ${quoteText(text)} ends with a lone backslash`);
      if (isDigit(next)) {
        const d2 = bytes[i + 2];
        const d3 = bytes[i + 3];
        if (d2 === undefined || d3 === undefined || !isDigit(d2) || !isDigit(d3)) {
          throw new InvalidQueryError(`bad \\DDD escape in name ${quoteText(text)}`);
        }
        const value = (next - 48) * 100 + (d2 - 48) * 10 + (d3 - 48);
        if (value > 255) throw new InvalidQueryError(`\\DDD escape above 255 in name ${quoteText(text)}`);
        label.push(value);
        i += 3;
      } else {
        label.push(next);
        i += 1;
      }
    } else if (c === DOT) {
      endLabel();
      if (i === bytes.length - 1) break; // trailing dot: fully qualified
    } else {
      label.push(c);
    }
  }
  if (label.length > 0 || bytes[bytes.length - 1] !== DOT) endLabel();
  if (wireLength > MAX_NAME_LENGTH) {
    throw new InvalidQueryError(
      `name ${quoteText(text)} is ${wireLength} octets on the wire (at most ${MAX_NAME_LENGTH})`,
    );
  }
  return labels;
}

/**
 * True for a valid name that needs no escape (labels of letters, digits, '-' and '_', an
 * optional final dot, at most 255 octets on the wire): its labels are its dot-separated parts.
 */
export function isPlainName(text: string): boolean {
  // On the wire: a length octet per label and the root octet; the dots and the final dot
  // stand in for all but two of them.
  return text.length <= 254 && PLAIN_NAME.test(text) && text.length + (text.endsWith('.') ? 1 : 2) <= MAX_NAME_LENGTH;
}

/** Presentation form of labels, without the trailing dot; "." for the root. */
export function formatName(labels: Labels): string {
  nameText.start();
  for (const label of labels) nameText.label(label, 0, label.length);
  return nameText.end();
}

/**
 * A name as formatName() writes it (no final dot, escapes normalized): a plain name is that
 * already, and is returned as it is.
 */
export function presentationForm(name: string): string {
  if (isPlainName(name)) return name.length > 1 && name.endsWith('.') ? name.slice(0, -1) : name;
  return formatName(parseName(name));
}

/**
 * Writes a name's presentation form label by label into one scratch buffer reused for every
 * name: a name read from a packet becomes one string, with no view or string per label. Names
 * are written one at a time (start, labels, end), synchronously.
 */
class NameTextWriter {
  /** A 255-octet name takes at most 1,020 characters (\DDD per octet); longer Labels grow it. */
  #chars = Buffer.allocUnsafeSlow(1024);
  #length = 0;
  #labels = 0;

  start(): void {
    this.#length = 0;
    this.#labels = 0;
  }

  /** One label, bytes[start..end), escaped as RFC 1035 section 5.1 writes it. */
  label(bytes: Uint8Array, start: number, end: number): void {
    if (this.#length + 1 + 4 * (end - start) > this.#chars.length) this.#grow(this.#length + 1 + 4 * (end - start));
    const chars = this.#chars;
    let n = this.#length;
    if (this.#labels++ > 0) chars[n++] = DOT;
    for (let i = start; i < end; i++) {
      const c = bytes[i]!;
      if (isPlainByte(c)) chars[n++] = c;
      else if (c <= 0x20 || c >= 0x7f) {
        chars[n++] = BACKSLASH;
        chars[n++] = 0x30 + Math.floor(c / 100);
        chars[n++] = 0x30 + (Math.floor(c / 10) % 10);
        chars[n++] = 0x30 + (c % 10);
      } else {
        chars[n++] = BACKSLASH;
        chars[n++] = c;
      }
    }
    this.#length = n;
  }

  /** The name written since start(); "." for the root. */
  end(): string {
    return this.#labels === 0 ? '.' : this.#chars.toString('latin1', 0, this.#length);
  }

  #grow(need: number): void {
    const chars = Buffer.allocUnsafeSlow(Math.max(need, 2 * this.#chars.length));
    chars.set(this.#chars.subarray(0, this.#length));
    this.#chars = chars;
  }
}

export const nameText = new NameTextWriter();

/**
 * A key that is equal for names that are equal: lowercase ASCII, escapes normalized,
 * no trailing dot. Plain names (no backslash) take a fast path.
 */
export function nameKey(name: string): string {
  if (!name.includes('\\')) {
    const lower = toLowerAscii(name);
    return lower.length > 1 && lower.endsWith('.') ? lower.slice(0, -1) : lower === '' ? '.' : lower;
  }
  return formatName(parseName(name).map(lowerLabel));
}

/** True when both names have the same wire labels, ignoring ASCII case. */
export function nameEquals(a: string, b: string): boolean {
  return nameKey(a) === nameKey(b);
}

/** True when `child` is `parent` or a name below it. */
export function isSubdomain(child: string, parent: string): boolean {
  const c = parseName(child);
  const p = parseName(parent);
  if (p.length > c.length) return false;
  const offset = c.length - p.length;
  return p.every((label, i) => labelEquals(label, c[offset + i]!));
}

/** True when two names have the same labels, ignoring ASCII case (RFC 4343): the one name comparison. */
export function labelsEqual(a: Labels, b: Labels): boolean {
  return a.length === b.length && a.every((label, i) => labelEquals(label, b[i]!));
}

/** True when two labels are equal, ignoring ASCII case. */
export function labelEquals(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (lowerByte(a[i]!) !== lowerByte(b[i]!)) return false;
  }
  return true;
}

/**
 * True when two names in presentation form as formatName() writes them (a DnsQuery's name, a
 * parsed record's owner) are the same name, ignoring ASCII case: that form is one string per
 * name and never escapes a letter, so no labels are made to compare them.
 */
export function sameNameText(a: string, b: string): boolean {
  return a === b || (a.length === b.length && endsWithName(a, b));
}

/**
 * True when `name` is `ancestor` or below it, both as formatName() writes them: `ancestor`
 * ends `name` (ignoring ASCII case) right after a dot that is not escaped.
 */
export function isAtOrBelowText(name: string, ancestor: string): boolean {
  if (ancestor === '.') return true;
  if (name === '.' || ancestor.length > name.length || !endsWithName(name, ancestor)) return false;
  const boundary = name.length - ancestor.length - 1;
  if (boundary < 0) return true;
  if (name.charCodeAt(boundary) !== DOT) return false;
  let backslashes = 0;
  for (let i = boundary - 1; i >= 0 && name.charCodeAt(i) === BACKSLASH; i--) backslashes++;
  return backslashes % 2 === 0;
}

/** True when `text` ends with `suffix`, ignoring ASCII case. */
function endsWithName(text: string, suffix: string): boolean {
  const offset = text.length - suffix.length;
  for (let i = 0; i < suffix.length; i++) {
    const a = text.charCodeAt(offset + i);
    const b = suffix.charCodeAt(i);
    if (a !== b && lowerByte(a) !== lowerByte(b)) return false;
  }
  return true;
}

/**
 * Where the label after the one starting at `start` starts in a name as formatName() writes it,
 * or -1 when that label is the last: the next dot that is not escaped (\. or \DDD).
 */
export function nextLabelText(name: string, start: number): number {
  for (let i = start; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === BACKSLASH) i += isDigit(name.charCodeAt(i + 1)) ? 3 : 1;
    else if (c === DOT) return i + 1;
  }
  return -1;
}

/** Wire length of a name: each label with its length octet, plus the root octet. */
export function wireLength(labels: Labels): number {
  return labels.reduce((sum, label) => sum + label.length + 1, 1);
}

/** A name in wire form, uncompressed: each label after its length octet, then the root's 0. */
export function wireName(labels: Labels): Uint8Array {
  const out = new Uint8Array(wireLength(labels));
  let offset = 0;
  for (const label of labels) {
    out[offset] = label.length;
    out.set(label, offset + 1);
    offset += 1 + label.length;
  }
  return out; // the last octet stays 0: the root label
}

function lowerLabel(label: Uint8Array): Uint8Array {
  return label.map(lowerByte);
}

function lowerByte(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

function toLowerAscii(text: string): string {
  // toLowerCase() would also fold non-ASCII letters, which RFC 4343 leaves alone.
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** Labels of plain ASCII parts, views of one buffer: a name held by a waiting question stays small. */
function asciiLabels(parts: readonly string[]): Uint8Array[] {
  let total = 0;
  for (const part of parts) total += part.length;
  const bytes = new Uint8Array(total);
  const labels: Uint8Array[] = [];
  let offset = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) bytes[offset + i] = part.charCodeAt(i);
    labels.push(bytes.subarray(offset, offset + part.length));
    offset += part.length;
  }
  return labels;
}

/** A byte formatLabel writes as itself: printable ASCII other than . \\ " ( ) ; @ $. */
function isPlainByte(c: number): boolean {
  return (
    c > 0x20 &&
    c < 0x7f &&
    c !== DOT &&
    c !== BACKSLASH &&
    c !== 0x22 &&
    c !== 0x28 &&
    c !== 0x29 &&
    c !== 0x3b &&
    c !== 0x40 &&
    c !== 0x24
  );
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
