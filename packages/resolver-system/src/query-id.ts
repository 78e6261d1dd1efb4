/**
 * Query IDs from a cryptographic source (RFC 5452 section 9.2): 16 unpredictable bits per
 * query. Bytes are drawn in blocks so 10,000 queries do not make 10,000 system calls.
 */
import { randomFillSync } from 'node:crypto';

const BLOCK = 4096;
const pool = Buffer.alloc(BLOCK);
let position = BLOCK;

export function randomQueryId(): number {
  if (position >= BLOCK) {
    randomFillSync(pool);
    position = 0;
  }
  const id = pool.readUInt16BE(position);
  position += 2;
  return id;
}
