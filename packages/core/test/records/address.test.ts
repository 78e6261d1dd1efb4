import { describe, expect, it } from 'vitest';
import { formatIpv6 } from '../../src/records/address.js';

const v6 = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/\s/g, ''), 'hex'));

describe('formatIpv6 (RFC 5952)', () => {
  it.each([
    ['20010db8000000000000000000000001', '2001:db8::1'],
    ['00000000000000000000000000000001', '::1'],
    ['00000000000000000000000000000000', '::'],
    ['20010db8000000010000000000000001', '2001:db8:0:1::1'], // the longest run of zeros is shortened
    ['20010db8000000000001000000000001', '2001:db8::1:0:0:1'], // ties: the first run
    ['20010db8000100010001000100010001', '2001:db8:1:1:1:1:1:1'],
    ['20010db8000000010001000100010001', '2001:db8:0:1:1:1:1:1'], // a single zero group stays
    ['00000000000000000000ffffc0000201', '::ffff:192.0.2.1'], // IPv4-mapped keeps the dotted quad
    ['20010DB8ABCD00000000000000000000', '2001:db8:abcd::'],
  ])('%s -> %s', (hex, text) => {
    expect(formatIpv6(v6(hex))).toBe(text);
  });
});
