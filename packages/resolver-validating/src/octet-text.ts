/**
 * Bytes as a string of the same length, one character per octet (latin1): a map key that
 * holds the bytes exactly. Made natively, without a Buffer object per call.
 */

/** Octets per String.fromCharCode call: well below the engine's limit on arguments. */
const CHUNK = 8192;

export function octetText(bytes: Uint8Array): string {
  if (bytes.length <= CHUNK) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  let text = '';
  for (let start = 0; start < bytes.length; start += CHUNK) {
    text += String.fromCharCode.apply(null, bytes.subarray(start, start + CHUNK) as unknown as number[]);
  }
  return text;
}
