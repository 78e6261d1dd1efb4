import { describe, expect, it } from 'vitest';
import {
  MAX_DETAIL_LENGTH,
  MAX_WIRE_LENGTH,
  decodeMessage,
  decodeValue,
  encodeMessage,
  encodeValue,
  isDestinationKey,
  remainingMs,
} from '../src/wire.js';

describe('wire shapes', () => {
  it('round-trips a mark and a clear', () => {
    const value = { reason: 'retry-after', detail: '503 Service Unavailable, Retry-After 30 s' } as const;
    const mark = { type: 'mark', node: 'abc', key: 'tls 2001:db8::1 5061', ms: 30_000, value } as const;
    expect(decodeMessage(encodeMessage(mark))).toEqual(mark);
    const clear = { type: 'clear', node: 'abc', key: 'udp 192.0.2.1 5060' } as const;
    expect(decodeMessage(encodeMessage(clear))).toEqual(clear);
    expect(decodeValue(encodeValue(value))).toEqual(value);
  });

  it('cuts a long detail when encoding, and refuses one when decoding', () => {
    const long = 'x'.repeat(MAX_DETAIL_LENGTH + 10);
    expect(decodeValue(encodeValue({ reason: 'manual', detail: long }))).toEqual({
      reason: 'manual',
      detail: 'x'.repeat(MAX_DETAIL_LENGTH),
    });
    expect(decodeValue(JSON.stringify({ r: 'manual', d: long }))).toBeUndefined();
  });

  it('cuts a detail full of quotes, backslashes or control characters until its mark fits a message', () => {
    const key = 'tls 2001:db8:ffff:ffff:ffff:ffff:ffff:ffff 65535';
    for (const [char, kept] of [
      ['"', 190],
      ['\\', 190],
      ['\u0001', 108],
      ['\n', 254],
      ['ü', 256],
    ] as const) {
      const value = { reason: 'service-unavailable', detail: char.repeat(300) } as const;
      const mark = { type: 'mark', node: 'f'.repeat(16), key, ms: 999_999_999_999_999, value } as const;
      const text = encodeMessage(mark);
      expect(text.length, JSON.stringify(char)).toBeLessThanOrEqual(MAX_WIRE_LENGTH);
      expect(decodeMessage(text), JSON.stringify(char)).toEqual({
        ...mark,
        value: { ...value, detail: char.repeat(kept) },
      });
      expect(decodeValue(encodeValue(value))).toEqual({ ...value, detail: char.repeat(kept) });
    }
  });

  it('accepts only canonical destination keys', () => {
    expect(isDestinationKey('udp 192.0.2.1 5060')).toBe(true);
    expect(isDestinationKey('tcp 2001:db8::1 5060')).toBe(true);
    for (const key of [
      'UDP 192.0.2.1 5060',
      'udp 192.0.2.01 5060',
      'udp 2001:DB8::1 5060',
      'udp 2001:db8:0::1 5060',
      'udp 192.0.2.1 0',
      'udp 192.0.2.1 65536',
      'udp 192.0.2.1 05060',
      'udp 192.0.2.1  5060',
      'sctp 192.0.2.1 5060',
      'udp host.example 5060',
      'udp 192.0.2.1 5060 x',
      '',
    ])
      expect(isDestinationKey(key), key).toBe(false);
  });

  it('takes remaining times as positive safe integers only', () => {
    expect(remainingMs(1)).toBe(1);
    expect(remainingMs('30000')).toBe(30_000);
    for (const bad of [0, -1, -2, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, '1e3', '-5', '', null, {}])
      expect(remainingMs(bad), String(bad)).toBeUndefined();
  });

  it('drops messages of the wrong shape', () => {
    const good = encodeValue({ reason: 'timeout', detail: 'x' });
    for (const text of [
      undefined,
      42,
      'null',
      '[]',
      '"m"',
      '{',
      JSON.stringify({ t: 'm', n: 'a', k: 'udp 192.0.2.1 5060', ms: 0, v: good }),
      JSON.stringify({ t: 'm', n: 'a', k: 'udp 192.0.2.1 5060', ms: 10, v: '{}' }),
      JSON.stringify({ t: 'm', n: 'a', k: 'udp 192.0.2.1 5060', ms: 10 }),
      JSON.stringify({ t: 'c', n: 'a'.repeat(65), k: 'udp 192.0.2.1 5060' }),
      JSON.stringify({ t: 'c', k: 'udp 192.0.2.1 5060' }),
      JSON.stringify({ t: 'z', n: 'a', k: 'udp 192.0.2.1 5060' }),
      JSON.stringify({ t: 'c', n: 'a', k: 'udp 192.0.2.1 5060', pad: 'x'.repeat(2000) }),
    ])
      expect(decodeMessage(text), String(text).slice(0, 60)).toBeUndefined();
  });
});
