/**
 * Canonical names (RFC 4034 section 6.1-6.2): wire labels lowercased (ASCII only, RFC 4343),
 * ordered label by label from the rightmost, each label as an octet string.
 */
import { type Labels, parseName, wireName } from '@dnscore/core/plugin';

/** ASCII lowercase of one octet; other octets stay as they are. */
export function lowerOctet(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** A label in canonical (lowercase) form. */
export function lowerLabel(label: Uint8Array): Uint8Array {
  return label.map(lowerOctet);
}

/** The labels of a presentation name, lowercased. */
export function canonicalLabels(name: string): Labels {
  return parseName(name).map(lowerLabel);
}

/** Compares two labels as canonical octet strings: <0, 0 or >0. */
export function compareLabels(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    // Equal octets (the usual case) need no lowercasing: fewer calls where this code runs cold.
    if (x === y) continue;
    const d = lowerOctet(x) - lowerOctet(y);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * The canonical DNS name order of RFC 4034 section 6.1: <0 when `a` sorts before `b`.
 * Labels are compared from the root down; a name sorts before the names below it.
 */
export function compareNames(a: Labels, b: Labels): number {
  const n = Math.min(a.length, b.length);
  for (let i = 1; i <= n; i++) {
    const d = compareLabels(a[a.length - i]!, b[b.length - i]!);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** True when both names are equal ignoring ASCII case. */
export function namesEqual(a: Labels, b: Labels): boolean {
  return a.length === b.length && compareNames(a, b) === 0;
}

/** True when `child` is `parent` or below it. */
export function isAtOrBelow(child: Labels, parent: Labels): boolean {
  if (parent.length > child.length) return false;
  const offset = child.length - parent.length;
  for (let i = 0; i < parent.length; i++) {
    if (compareLabels(child[offset + i]!, parent[i]!) !== 0) return false;
  }
  return true;
}

/** True when `child` is strictly below `parent`. */
export function isBelow(child: Labels, parent: Labels): boolean {
  return child.length > parent.length && isAtOrBelow(child, parent);
}

/** The rightmost `count` labels of `name` (its ancestor with that many labels). */
export function ancestor(name: Labels, count: number): Labels {
  return name.slice(name.length - count);
}

/** The number of labels the two names share from the right. */
export function commonLabelCount(a: Labels, b: Labels): number {
  let n = 0;
  while (n < a.length && n < b.length && compareLabels(a[a.length - 1 - n]!, b[b.length - 1 - n]!) === 0) n++;
  return n;
}

const ASTERISK = 0x2a;

/** True when the first label is "*" (RFC 4592). */
export function isWildcard(name: Labels): boolean {
  const first = name[0];
  return first !== undefined && first.length === 1 && first[0] === ASTERISK;
}

/** "*." prepended to `name`. */
export function wildcardOf(name: Labels): Labels {
  return [Uint8Array.of(ASTERISK), ...name];
}

/** The wire form of a name, lowercased when `lower` (canonical form). */
export function nameWire(labels: Labels, lower = true): Uint8Array {
  const out = wireName(labels);
  // Length octets are below 64, never capitals: the whole form is lowered as one.
  if (lower) for (let i = 0; i < out.length; i++) out[i] = lowerOctet(out[i]!);
  return out;
}
