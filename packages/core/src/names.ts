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
  if (labels.length === 0) return '.';
  return labels.map(formatLabel).join('.');
}

function formatLabel(label: Uint8Array): string {
  // Almost every label needs no escape: one string, not one per character.
  if (label.every(isPlainByte)) return String.fromCharCode.apply(null, label as unknown as number[]);
  let out = '';
  for (const c of label) {
    if (
      c === DOT ||
      c === BACKSLASH ||
      c === 0x22 ||
      c === 0x28 ||
      c === 0x29 ||
      c === 0x3b ||
      c === 0x40 ||
      c === 0x24
    ) {
      out += `\\${String.fromCharCode(c)}`;
    } else if (c <= 0x20 || c >= 0x7f) {
      out += `\\${String(c).padStart(3, '0')}`;
    } else {
      out += String.fromCharCode(c);
    }
  }
  return out;
}

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
