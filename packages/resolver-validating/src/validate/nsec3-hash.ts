/**
 * NSEC3 hashed owner names (RFC 5155 section 5): IH(salt, x, 0) = H(x || salt),
 * IH(salt, x, k) = H(IH(salt, x, k-1) || salt), over the name in canonical wire form; owner
 * labels in base32hex without padding (RFC 4648 section 7).
 */
import { createHash } from 'node:crypto';
import type { Labels } from '@dnscore/core/plugin';
import { nameWire } from './canonical-name.js';

/** RFC 5155 section 11: hash algorithm 1 is SHA-1, the only one defined. */
export const NSEC3_SHA1 = 1;

/** The NSEC3 hash of `name` with SHA-1, `salt` and `iterations` extra rounds. */
export function nsec3Hash(name: Labels, salt: Uint8Array, iterations: number): Uint8Array {
  let digest = createHash('sha1').update(nameWire(name)).update(salt).digest();
  for (let i = 0; i < iterations; i++) digest = createHash('sha1').update(digest).update(salt).digest();
  return digest;
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuv';

/** base32hex without padding, lowercase (RFC 4648 section 7). */
export function base32hexEncode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The bytes of a base32hex label (either case, no padding); undefined when it is not one. */
export function base32hexDecode(label: Uint8Array): Uint8Array | undefined {
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const c of label) {
    let value: number;
    if (c >= 0x30 && c <= 0x39) value = c - 0x30;
    else if (c >= 0x61 && c <= 0x76) value = c - 0x61 + 10;
    else if (c >= 0x41 && c <= 0x56) value = c - 0x41 + 10;
    else return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  // Left-over bits must be zero padding of the last quantum (fewer than 5 bits of it).
  if (buffer !== 0) return undefined;
  return Uint8Array.from(out);
}
