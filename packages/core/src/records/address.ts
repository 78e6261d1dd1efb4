/** A (RFC 1035 section 3.4.1) and AAAA (RFC 3596) records. */
import type { WireReader } from '../wire/reader.js';

export function decodeA(reader: WireReader): string {
  // One read, one string: no copy of the four octets, no array to join (every A answer comes here).
  const v = reader.u32('IPv4 address');
  return `${v >>> 24}.${(v >>> 16) & 0xff}.${(v >>> 8) & 0xff}.${v & 0xff}`;
}

export function decodeAaaa(reader: WireReader): string {
  return formatIpv6(reader.bytes(16, 'IPv6 address'));
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run of zero groups as "::". */
export function formatIpv6(bytes: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  // RFC 5952 section 5: IPv4-mapped addresses keep the dotted quad.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
  }
  let bestStart = -1;
  let bestLength = 1; // a single zero group is not shortened (RFC 5952 section 4.2.2)
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
