/** Transports, default ports, SRV owners and NAPTR services. */
import { describe, expect, it } from 'vitest';
import { SIP_SERVICES, defaultPort, isSipTransport, serviceTransport, srvName } from '../src/transport.js';

describe('transport helpers: nominal', () => {
  it('default ports: 5061 for TLS, 5060 otherwise', () => {
    expect([defaultPort('udp'), defaultPort('tcp'), defaultPort('tls')]).toEqual([5060, 5060, 5061]);
  });

  it('SRV owners of RFC 3263 section 4.2', () => {
    expect(['udp', 'tcp', 'tls'].map((t) => srvName(t as 'udp', 'biloxi.example'))).toEqual([
      '_sip._udp.biloxi.example',
      '_sip._tcp.biloxi.example',
      '_sips._tcp.biloxi.example',
    ]);
  });

  it('NAPTR services map to transports case-insensitively', () => {
    expect(SIP_SERVICES.map(serviceTransport)).toEqual(['tls', 'tcp', 'udp']);
    expect(serviceTransport('sips+d2t')).toBe('tls');
  });
});

describe('transport helpers: off-nominal', () => {
  it('other services and transports are not ours', () => {
    for (const service of ['SIP+D2S', 'SIPS+D2U', 'SIP+D2W', 'E2U+sip', '', 'SIP+D2U+D2T'])
      expect(serviceTransport(service)).toBeUndefined();
    for (const value of ['sctp', 'UDP', '', undefined, 1]) expect(isSipTransport(value)).toBe(false);
  });
});
