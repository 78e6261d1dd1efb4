/**
 * Names as this backend keeps them: wire labels, and a key per name (lower case, no trailing
 * dot, "." for the root) for maps. Zone cuts and anchors are compared label by label.
 */
import { formatName, nameKey, type Labels } from '@dnscore/core/plugin';

/** Keys already made, by labels array: zone, signer and owner labels are asked for again and again. */
const keys = new WeakMap<Labels, string>();
/** A label text core's formatName would escape: not printable ASCII, or one of . \\ " ( ) ; @ $. */
const ESCAPED = /[^\x21-\x7e]|[.\\"();@$]/;
const UPPER = /[A-Z]/;

/** The map key of a name: "biloxi.example", "." for the root (core's nameKey of its text). */
export function keyOf(labels: Labels): string {
  if (labels.length === 0) return '.';
  let key = keys.get(labels);
  if (key !== undefined) return key;
  // Each label's text made natively (byte loops in JavaScript cost most where code runs cold).
  key = '';
  for (let i = 0; i < labels.length; i++) {
    const text = String.fromCharCode.apply(null, labels[i] as unknown as number[]);
    if (ESCAPED.test(text)) {
      key = undefined;
      break;
    }
    key = i === 0 ? text : `${key}.${text}`;
  }
  key = key === undefined ? nameKey(formatName(labels)) : UPPER.test(key) ? nameKey(key) : key;
  keys.set(labels, key);
  return key;
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
