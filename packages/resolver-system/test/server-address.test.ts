import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core/plugin';
import { InvalidServerAddressError } from '../src/errors.js';
import { formatServerAddress, isFromServer, parseServerAddress } from '../src/server-address.js';

describe('parseServerAddress, nominal', () => {
  it('takes an IPv4 address alone, with port 53', () => {
    expect(parseServerAddress('192.0.2.53')).toEqual({ address: '192.0.2.53', port: 53, family: 4 });
  });

  it('takes IPv4:PORT', () => {
    expect(parseServerAddress('127.0.0.1:5300')).toEqual({ address: '127.0.0.1', port: 5300, family: 4 });
  });

  it('takes a bare IPv6 address, with port 53, in RFC 5952 form', () => {
    expect(parseServerAddress('2001:DB8:0:0:0:0:0:53')).toEqual({ address: '2001:db8::53', port: 53, family: 6 });
    expect(parseServerAddress('::1')).toEqual({ address: '::1', port: 53, family: 6 });
  });

  it('takes [IPv6]:PORT and [IPv6]', () => {
    expect(parseServerAddress('[::1]:5353')).toEqual({ address: '::1', port: 5353, family: 6 });
    expect(parseServerAddress('[2001:db8::1]')).toEqual({ address: '2001:db8::1', port: 53, family: 6 });
  });

  it('keeps an IPv6 zone and trims blanks', () => {
    expect(parseServerAddress(' fe80::1%lo ')).toEqual({ address: 'fe80::1%lo', port: 53, family: 6 });
  });

  it('formats addresses for messages', () => {
    expect(formatServerAddress(parseServerAddress('127.0.0.1:5300'))).toBe('127.0.0.1:5300');
    expect(formatServerAddress(parseServerAddress('::1'))).toBe('[::1]:53');
  });

  it('matches a datagram source by canonical address and exact port', () => {
    const server = parseServerAddress('[2001:db8::1]:5300');
    expect(isFromServer(server, '2001:db8::1', 5300)).toBe(true);
    expect(isFromServer(server, '2001:0db8:0:0::1', 5300)).toBe(true);
    expect(isFromServer(server, '2001:db8::1', 5301)).toBe(false);
    expect(isFromServer(server, '2001:db8::2', 5300)).toBe(false);
    const v4 = parseServerAddress('127.0.0.1:5300');
    expect(isFromServer(v4, '127.0.0.2', 5300)).toBe(false);
    expect(isFromServer(v4, 'not an address', 5300)).toBe(false);
  });
});

describe('parseServerAddress, off-nominal', () => {
  const refused: [string, RegExp][] = [
    ['', /empty/],
    ['   ', /empty/],
    ['ns1.example', /not an IP address/],
    ['ns1.example:53', /not an IP address/],
    ['127.0.0.1:', /port "" is not a number/],
    ['127.0.0.1:0', /port 0 is not 1\.\.65535/],
    ['127.0.0.1:65536', /port 65536/],
    ['127.0.0.1:53x', /not a number/],
    ['127.0.0.1:-1', /not a number/],
    ['[::1', /no matching "\]"/],
    ['[::1]53', /expected ":PORT"/],
    ['[127.0.0.1]:53', /brackets must hold an IPv6 address/],
    ['256.1.1.1', /not an IP address/],
    ['127.0.0.1@5300', /not an IP address/],
  ];
  it.each(refused)('refuses %j', (text, message) => {
    let error: unknown;
    try {
      parseServerAddress(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidServerAddressError);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidServerAddressError).code).toBe('DNS_ERR_INVALID_SERVER_ADDRESS');
    expect((error as InvalidServerAddressError).input).toBe(text);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses what is not a string', () => {
    expect(() => parseServerAddress(53 as unknown as string)).toThrow(InvalidServerAddressError);
  });
});
