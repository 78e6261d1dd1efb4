/**
 * Reading a master file's text: a regular file only (a FIFO, a device or a directory is refused,
 * never waited on or read without end), within a byte limit, and UTF-8 without a bad byte (a
 * lenient decoder would turn each into U+FFFD and serve that in place of the byte).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { ZoneFileError } from '../errors.js';

/** A file-system error with a short reason in `code` (ENOENT, EISDIR, "not a regular file"...). */
function refusal(code: string): Error {
  return Object.assign(new Error(code), { code });
}

/**
 * The octets of a regular file, refused (not read) when larger than `maxBytes`.
 * `followLinks: false` refuses a symbolic link (an $INCLUDE, whose path is resolved first).
 */
export function readRegularFile(path: string, maxBytes: number, followLinks = true): Buffer {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just after.
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (followLinks ? 0 : constants.O_NOFOLLOW);
  const fd = openSync(path, flags);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refusal('not a regular file');
    if (stat.size > maxBytes) throw refusal('over the byte limit');
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a master file's octets; a leading byte order mark is dropped. Octets that are not
 * UTF-8 are a ZoneFileError naming the line and the column (in octets): \DDD writes any octet.
 */
export function decodeZoneText(bytes: Uint8Array, file: string): string {
  try {
    return strict.decode(bytes);
  } catch {
    const at = firstBadOctet(bytes);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < at; i++) {
      if (bytes[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    throw new ZoneFileError(
      file,
      line,
      `column ${at - lineStart + 1}: octets that are not UTF-8 (write such an octet as \\DDD)`,
    );
  }
}

/** Offset of the first octet that does not start or continue a valid UTF-8 sequence (RFC 3629 section 4). */
function firstBadOctet(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    // Continuation count and the range of the second octet (no overlong forms, no surrogates, <= U+10FFFF).
    let n: number;
    let low = 0x80;
    let high = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) low = 0xa0;
      if (c === 0xed) high = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) low = 0x90;
      if (c === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= n; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += n + 1;
  }
  return bytes.length;
}
