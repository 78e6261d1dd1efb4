/**
 * IPv4 addresses in the numeric forms getaddrinfo takes besides the dotted quad (glibc's
 * inet_aton, exact since glibc 2.32): "127.1", "2130706433", "0x7f000001", "0177.0.0.1". Node's
 * dns.lookup hands such a name to getaddrinfo, which answers it as an address; asked of DNS
 * instead, it would leave the host as a query and come back ENOTFOUND.
 */

/**
 * The dotted quad of `text` when it is 1 to 4 parts separated by dots, each decimal, octal
 * (a leading 0) or hexadecimal (0x), the last part filling the bytes the others leave; else
 * undefined.
 */
export function numericIPv4(text: string): string | undefined {
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  let value = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = partValue(parts[i]!);
    const last = i === parts.length - 1;
    // Each part but the last is one byte; the last one fills the rest (all 4 bytes when alone).
    const max = last ? 2 ** (8 * (4 - i)) - 1 : 0xff;
    if (part === undefined || part > max) return undefined;
    value = last ? value * 2 ** (8 * (4 - i)) + part : value * 256 + part;
  }
  const byte = (shift: number): number => Math.floor(value / 2 ** shift) % 256;
  return `${byte(24)}.${byte(16)}.${byte(8)}.${byte(0)}`;
}

function partValue(part: string): number | undefined {
  if (/^0[xX][0-9a-fA-F]{1,8}$/.test(part)) return Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]{0,11}$/.test(part)) return Number.parseInt(part, 8);
  if (/^[1-9][0-9]{0,9}$/.test(part)) return Number(part);
  return undefined;
}
