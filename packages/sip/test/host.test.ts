/** Hosts of SIP URIs: names, IPv4 and IPv6, and address normalization. */
import { describe, expect, it } from 'vitest';
import { formatHost, normalizeAddress, parseHost } from '../src/host.js';

describe('parseHost: nominal', () => {
  it.each([
    ['Biloxi.Example', { host: 'biloxi.example', kind: 'hostname' }],
    ['a-b.c1.example.', { host: 'a-b.c1.example', kind: 'hostname' }],
    ['localhost', { host: 'localhost', kind: 'hostname' }],
    ['192.0.2.1', { host: '192.0.2.1', kind: 'ipv4' }],
    ['0.0.0.0', { host: '0.0.0.0', kind: 'ipv4' }],
    ['[2001:DB8::0:1]', { host: '2001:db8::1', kind: 'ipv6' }],
    ['[::]', { host: '::', kind: 'ipv6' }],
  ])('%s', (text, host) => {
    expect(parseHost(text)).toEqual({ ok: true, host });
  });
});

describe('parseHost: off-nominal', () => {
  it.each([
    ['', 'the host is empty'],
    ['1.2.3.04', 'leading zero'],
    ['300.1.1.1', 'above 255'],
    ['::1', 'brackets'],
    ['[::1', 'no closing'],
    ['[::1%lo]', 'has a zone identifier, which a SIP URI'],
    ['exa mple', 'letters, digits and inner hyphens'],
  ])('%j: %s', (text, reason) => {
    const parsed = parseHost(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.reason).toContain(reason);
  });
});

describe('normalizeAddress and formatHost', () => {
  it('normalizes IPv4 and IPv6, with or without brackets', () => {
    expect(normalizeAddress('192.0.2.1')).toEqual({ address: '192.0.2.1', family: 4 });
    expect(normalizeAddress('[2001:0DB8::0001]')).toEqual({ address: '2001:db8::1', family: 6 });
    expect(normalizeAddress('2001:db8:0:0:1:0:0:1')).toEqual({ address: '2001:db8::1:0:0:1', family: 6 });
  });

  it('returns undefined for anything else', () => {
    for (const text of ['example.com', '1.2.3', '01.2.3.4', 'fe80::1%eth0', '', 7 as unknown as string])
      expect(normalizeAddress(text)).toBeUndefined();
  });

  it('brackets IPv6 only', () => {
    expect(formatHost({ host: '2001:db8::1', kind: 'ipv6' })).toBe('[2001:db8::1]');
    expect(formatHost({ host: '192.0.2.1', kind: 'ipv4' })).toBe('192.0.2.1');
  });
});
