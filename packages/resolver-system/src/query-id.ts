/**
 * Query IDs from a cryptographic source (RFC 5452 section 9.2): 16 unpredictable bits per
 * query, and 0x20's case bits from the same source. Bytes are drawn in blocks so 10,000
 * queries do not make 10,000 system calls (nor a buffer each).
 */
import { randomFillSync } from 'node:crypto';

const BLOCK = 4096;
const pool = Buffer.alloc(BLOCK);
let position = BLOCK;

export function randomQueryId(): number {
  if (position + 2 > BLOCK) refill();
  const id = pool.readUInt16BE(position);
  position += 2;
  return id;
}

/** 8 unpredictable bits. */
export function randomByte(): number {
  if (position >= BLOCK) refill();
  return pool[position++]!;
}

function refill(): void {
  randomFillSync(pool);
  position = 0;
}
