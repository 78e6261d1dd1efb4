/**
 * Names as this backend keeps them: wire labels, and a key per name (lower case, no trailing
 * dot, "." for the root) for maps. Zone cuts and anchors are compared label by label.
 */
import { formatName, nameKey, type Labels } from '@dnscore/core/plugin';

/** The map key of a name: "biloxi.example", "." for the root (core's nameKey of its text). */
export function keyOf(labels: Labels): string {
  if (labels.length === 0) return '.';
  // Labels of bytes written as themselves (almost all): the text lowercased in one go, where
  // formatting the name and then lowercasing it would make three strings.
  const codes: number[] = [];
  for (const label of labels) {
    if (codes.length > 0) codes.push(DOT);
    for (let i = 0; i < label.length; i++) {
      const c = label[i]!;
      if (!isPlainByte(c)) return nameKey(formatName(labels));
      codes.push(lower(c));
    }
  }
  return String.fromCharCode.apply(null, codes);
}

const DOT = 0x2e;

/** A byte core's formatName writes as itself: printable ASCII other than . \\ " ( ) ; @ $. */
function isPlainByte(c: number): boolean {
  return (
    c > 0x20 &&
    c < 0x7f &&
    c !== DOT &&
    c !== 0x5c &&
    c !== 0x22 &&
    c !== 0x28 &&
    c !== 0x29 &&
    c !== 0x3b &&
    c !== 0x40 &&
    c !== 0x24
  );
}

/** "biloxi.example." (the root is "."): how names appear in messages to the user. */
export function fqdn(labels: Labels): string {
  return labels.length === 0 ? '.' : `${formatName(labels)}.`;
}

/** The name one label up; the root's parent is the root. */
export function parentOf(labels: Labels): Labels {
  return labels.slice(1);
}

/** True when `name` is `zone` or below it (labels compared ignoring ASCII case). */
export function isAtOrBelow(name: Labels, zone: Labels): boolean {
  if (zone.length > name.length) return false;
  const offset = name.length - zone.length;
  for (let i = 0; i < zone.length; i++) {
    const a = zone[i]!;
    const b = name[offset + i]!;
    if (a.length !== b.length) return false;
    for (let j = 0; j < a.length; j++) if (lower(a[j]!) !== lower(b[j]!)) return false;
  }
  return true;
}

function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
}
