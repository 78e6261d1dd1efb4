/** The 1300-byte rule of RFC 3261 section 18.1.1. */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core';
import { RequestTooLargeError } from '../src/errors.js';
import type { SipTarget } from '../src/resolution.js';
import { applySizeRule } from '../src/size-rule.js';

const udp: SipTarget = {
  transport: 'udp',
  host: 'sip1.biloxi.example',
  address: '203.0.113.11',
  family: 4,
  port: 5060,
  priority: 10,
  weight: 60,
  source: 'srv',
  expires: 1e12,
  dnssec: 'insecure',
  links: [],
};

describe('applySizeRule: nominal', () => {
  it('over 1300 bytes, UDP becomes TCP to the same address and port', () => {
    expect(applySizeRule(udp, 1301)).toEqual({ target: { ...udp, transport: 'tcp' }, switched: true });
  });

  it('1300 bytes and below stay on UDP; TCP and TLS targets are left alone', () => {
    expect(applySizeRule(udp, 1300)).toEqual({ target: udp, switched: false });
    const tls = { ...udp, transport: 'tls' as const, port: 5061 };
    expect(applySizeRule(tls, 60_000)).toEqual({ target: tls, switched: false });
  });

  it('the limit is configurable', () => {
    expect(applySizeRule(udp, 900, { maxUdpBytes: 800 }).switched).toBe(true);
  });
});

describe('applySizeRule: off-nominal', () => {
  it('without TCP the request cannot go: RequestTooLargeError', () => {
    let error: unknown;
    try {
      applySizeRule(udp, 2000, { transports: new Set(['udp', 'tls']) });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RequestTooLargeError);
    expect(error).toMatchObject({ code: 'SIP_ERR_REQUEST_TOO_LARGE', size: 2000, transport: 'udp' });
  });

  it('refuses a size that is not a non-negative integer', () => {
    expect(() => applySizeRule(udp, -1)).toThrow(
      new InvalidArgumentError('a request size must be a non-negative integer, not -1'),
    );
    expect(() => applySizeRule(udp, 1.5)).toThrow(InvalidArgumentError);
  });
});
