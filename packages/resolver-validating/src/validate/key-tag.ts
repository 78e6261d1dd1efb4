/** The key tag of a DNSKEY (RFC 4034 appendix B), algorithm 1 (RSA/MD5) by its own rule (B.1). */

/** The key tag of a DNSKEY's RDATA. */
export function keyTag(dnskeyRdata: Uint8Array): number {
  if (dnskeyRdata.length >= 4 && dnskeyRdata[3] === 1) {
    // B.1: the most significant 16 bits of the least significant 24 bits of the modulus.
    const n = dnskeyRdata.length;
    return n > 4 ? (dnskeyRdata[n - 3]! << 8) | dnskeyRdata[n - 2]! : 0;
  }
  let sum = 0;
  for (let i = 0; i < dnskeyRdata.length; i++) sum += i & 1 ? dnskeyRdata[i]! : dnskeyRdata[i]! << 8;
  sum += (sum >>> 16) & 0xffff;
  return sum & 0xffff;
}
