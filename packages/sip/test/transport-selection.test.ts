/** The rules the URI alone decides: transport parameter, IP literal, explicit port. */
import { describe, expect, it } from 'vitest';
import { AddressFamilyError, SipsWithoutTlsError, UnsupportedTransportError } from '../src/errors.js';
import type { ClientCapabilities } from '../src/resolution.js';
import { defaultTransport, fixedTransport } from '../src/transport-selection.js';
import type { SipTransport } from '../src/transport.js';
import { parseSipUri } from '../src/uri.js';

function client(transports: SipTransport[] = ['udp', 'tcp', 'tls'], ipv4 = true, ipv6 = true): ClientCapabilities {
  return { transports: new Set(transports), ipv4, ipv6, preferIpv6: true, dnssec: 'off', sipsDnssec: 'off' };
}

describe('fixedTransport: nominal', () => {
  it.each([
    ['sip:bob@biloxi.example;transport=tcp', 'transport-param', 'tcp'],
    ['sips:bob@biloxi.example;transport=tcp', 'transport-param', 'tls'],
    ['sip:192.0.2.1', 'ip-literal', 'udp'],
    ['sips:192.0.2.1', 'ip-literal', 'tls'],
    ['sip:192.0.2.1:5070;transport=tcp', 'transport-param', 'tcp'],
    ['sip:bob@biloxi.example:5070', 'port', 'udp'],
    ['sips:bob@biloxi.example:5071', 'port', 'tls'],
    ['sip:bob@biloxi.example;maddr=192.0.2.9', 'ip-literal', 'udp'],
  ])('%s -> rule %s, %s', (uri, rule, transport) => {
    expect(fixedTransport(parseSipUri(uri), client())).toMatchObject({ rule, transport });
  });

  it('no rule of the URI applies: DNS decides', () => {
    expect(fixedTransport(parseSipUri('sip:bob@biloxi.example'), client())).toBeUndefined();
    expect(fixedTransport(parseSipUri('sips:bob@biloxi.example;lr'), client())).toBeUndefined();
  });

  it('the reason cites the RFC', () => {
    expect(fixedTransport(parseSipUri('sip:192.0.2.1'), client())?.reason).toBe(
      'the TARGET is an IP address: UDP for a SIP URI (RFC 3263 section 4.1)',
    );
  });
});

describe('defaultTransport', () => {
  it('UDP for SIP, then TCP, then TLS when missing or not offered; TLS for SIPS', () => {
    expect(defaultTransport('sip', client())).toBe('udp');
    expect(defaultTransport('sip', client(['tcp', 'tls']))).toBe('tcp');
    expect(defaultTransport('sip', client(['tls']))).toBe('tls');
    expect(defaultTransport('sip', client(), new Set(['udp']))).toBe('tcp');
    expect(defaultTransport('sips', client())).toBe('tls');
  });
});

describe('fixedTransport: off-nominal', () => {
  it('SIPS without TLS', () => {
    expect(() => fixedTransport(parseSipUri('sips:192.0.2.1'), client(['udp', 'tcp']))).toThrow(SipsWithoutTlsError);
  });

  it('an IP literal of a family that is off', () => {
    expect(() => fixedTransport(parseSipUri('sip:[2001:db8::1]'), client(undefined, true, false))).toThrow(
      new AddressFamilyError('the TARGET 2001:db8::1 is an IPv6 address but IPv6 is off'),
    );
    expect(() => fixedTransport(parseSipUri('sip:192.0.2.1'), client(undefined, false, true))).toThrow(
      AddressFamilyError,
    );
  });

  it('a transport parameter the client cannot use', () => {
    let error: unknown;
    try {
      fixedTransport(parseSipUri('sip:h.example;transport=sctp'), client());
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UnsupportedTransportError);
    expect(error).toMatchObject({ code: 'SIP_ERR_UNSUPPORTED_TRANSPORT', transport: 'sctp' });
  });
});
