/** pjsip_host_info both ways: pjsip_get_dest_info() of a URI, and the URI the locator resolves for it. */
import { describe, expect, it } from 'vitest';
import { InvalidSipUriError, UnsupportedTransportError } from '@dnscore/sip';
import { InvalidHostInfoError } from '../src/errors.js';
import {
  checkHostInfo,
  flagOfType,
  hostInfoFromUri,
  locatorTarget,
  transportOfType,
  typeOfTarget,
} from '../src/host-info.js';
import { PjsipTransportFlag as Flag, PjsipTransportType as Type } from '../src/pjsip-types.js';

describe('hostInfoFromUri (pjsip_get_dest_info): nominal', () => {
  it('a sip: URI without transport is UNSPECIFIED with no flag, port 0 for none', () => {
    expect(hostInfoFromUri('sip:bob@biloxi.example')).toEqual({
      flag: 0,
      type: Type.UNSPECIFIED,
      addr: { host: 'biloxi.example', port: 0 },
    });
  });

  it('transport= sets the type and the flag follows it', () => {
    expect(hostInfoFromUri('sip:bob@biloxi.example:5070;transport=udp')).toEqual({
      flag: Flag.DATAGRAM,
      type: Type.UDP,
      addr: { host: 'biloxi.example', port: 5070 },
    });
    expect(hostInfoFromUri('sip:biloxi.example;transport=TCP')).toMatchObject({ flag: Flag.RELIABLE, type: Type.TCP });
    expect(hostInfoFromUri('sip:biloxi.example;transport=tls')).toMatchObject({
      flag: Flag.RELIABLE | Flag.SECURE,
      type: Type.TLS,
    });
  });

  it(
    'sips forces TLS, also with transport=tcp (pjproject#1319), and a sips Request-URI switches a sip Route to ' +
      'TLS',
    () => {
      expect(hostInfoFromUri('sips:bob@biloxi.example')).toEqual({
        flag: Flag.RELIABLE | Flag.SECURE,
        type: Type.TLS,
        addr: { host: 'biloxi.example', port: 0 },
      });
      expect(hostInfoFromUri('sips:biloxi.example;transport=tcp')).toMatchObject({ type: Type.TLS });
      expect(hostInfoFromUri('sip:proxy.example;lr', 'sips:bob@biloxi.example')).toMatchObject({
        type: Type.TLS,
        addr: { host: 'proxy.example' },
      });
    },
  );

  it('maddr replaces the host; an IPv6 host adds IPV6 to a known type only', () => {
    expect(hostInfoFromUri('sip:bob@biloxi.example;maddr=192.0.2.7')).toMatchObject({
      addr: { host: '192.0.2.7', port: 0 },
    });
    expect(hostInfoFromUri('sip:[2001:db8::1]:5062;transport=udp')).toEqual({
      flag: Flag.DATAGRAM,
      type: Type.UDP6,
      addr: { host: '2001:db8::1', port: 5062 },
    });
    expect(hostInfoFromUri('sips:[2001:db8::1]')).toMatchObject({ type: Type.TLS6 });
    expect(hostInfoFromUri('sip:[2001:db8::1]')).toMatchObject({ type: Type.UNSPECIFIED });
  });

  it('an unknown transport name is UNSPECIFIED, as in pjsip_transport_get_type_from_name', () => {
    expect(hostInfoFromUri('sip:biloxi.example;transport=ws')).toMatchObject({ type: Type.UNSPECIFIED, flag: 0 });
    expect(hostInfoFromUri('sip:biloxi.example;transport=sctp')).toMatchObject({
      type: Type.SCTP,
      flag: Flag.RELIABLE,
    });
  });
});

describe('hostInfoFromUri: off-nominal', () => {
  it('refuses what is not a SIP or SIPS URI', () => {
    expect(() => hostInfoFromUri('tel:+15551234')).toThrow(InvalidSipUriError);
    expect(() => hostInfoFromUri('sip:bad host')).toThrow(InvalidSipUriError);
  });
});

describe('locatorTarget: nominal', () => {
  const info = (type: number, flag: number, host: string, port = 0) => ({ type, flag, addr: { host, port } });
  const uri = (type: number, flag: number, host: string, port = 0) => locatorTarget(info(type, flag, host, port));

  it('a type with its flag came from the URI: TLS is a sips: URI, UDP and TCP set transport=', () => {
    expect(uri(Type.TLS, Flag.RELIABLE | Flag.SECURE, 'biloxi.example')).toEqual({ uri: 'sips:biloxi.example' });
    expect(uri(Type.UNSPECIFIED, Flag.SECURE, 'biloxi.example', 5061)).toEqual({ uri: 'sips:biloxi.example:5061' });
    expect(uri(Type.UDP, Flag.DATAGRAM, 'biloxi.example')).toEqual({ uri: 'sip:biloxi.example;transport=udp' });
    expect(uri(Type.TCP6, Flag.RELIABLE, '2001:db8::1', 5060)).toEqual({
      uri: 'sip:[2001:db8::1]:5060;transport=tcp',
    });
  });

  it('a type with flag 0 (a transport selector) or UNSPECIFIED with RELIABLE: the URI without transport=', () => {
    expect(uri(Type.TCP, 0, 'biloxi.example')).toEqual({ uri: 'sip:biloxi.example', only: 'tcp' });
    expect(uri(Type.TLS, 0, 'biloxi.example')).toEqual({ uri: 'sip:biloxi.example', only: 'tls' });
    expect(uri(Type.UDP6, 0, '2001:db8::1', 5060)).toEqual({ uri: 'sip:[2001:db8::1]:5060', only: 'udp' });
    expect(uri(Type.UNSPECIFIED, Flag.RELIABLE, 'biloxi.example')).toEqual({ uri: 'sip:biloxi.example', only: 'tcp' });
    expect(uri(Type.UNSPECIFIED, 0, 'biloxi.example')).toEqual({ uri: 'sip:biloxi.example' });
  });

  it('SECURE with a type without it (UDP, TCP) is TLS, as pjsip_get_dest_info makes it: never UDP for sips:', () => {
    expect(uri(Type.UDP, Flag.SECURE | Flag.RELIABLE, 'biloxi.example')).toEqual({ uri: 'sips:biloxi.example' });
    expect(uri(Type.UDP6, Flag.SECURE, '2001:db8::1', 5061)).toEqual({ uri: 'sips:[2001:db8::1]:5061' });
    expect(uri(Type.TCP, Flag.SECURE | Flag.RELIABLE, 'biloxi.example')).toEqual({ uri: 'sips:biloxi.example' });
    expect(locatorTarget(hostInfoFromUri('sips:bob@biloxi.example;transport=udp'))).toEqual({
      uri: 'sips:biloxi.example',
    });
  });

  it('round-trips pjsip_get_dest_info for the common URIs', () => {
    expect(locatorTarget(hostInfoFromUri('sips:bob@biloxi.example'))).toEqual({ uri: 'sips:biloxi.example' });
    expect(locatorTarget(hostInfoFromUri('sip:bob@biloxi.example:5080;transport=udp'))).toEqual({
      uri: 'sip:biloxi.example:5080;transport=udp',
    });
    expect(locatorTarget(hostInfoFromUri('sip:bob@biloxi.example'))).toEqual({ uri: 'sip:biloxi.example' });
  });
});

describe('locatorTarget and checkHostInfo: off-nominal', () => {
  it('refuses transports dnscore does not resolve for with UnsupportedTransportError', () => {
    expect(() =>
      locatorTarget({ type: Type.SCTP, flag: Flag.RELIABLE, addr: { host: 'biloxi.example', port: 0 } }),
    ).toThrow(UnsupportedTransportError);
    expect(() =>
      locatorTarget({ type: Type.DTLS, flag: Flag.SECURE | Flag.DATAGRAM, addr: { host: 'biloxi.example', port: 0 } }),
    ).toThrow(UnsupportedTransportError);
  });

  it('refuses a host outside the grammar', () => {
    expect(() => locatorTarget({ type: 0, flag: 0, addr: { host: 'bad_host!', port: 0 } })).toThrow(
      InvalidHostInfoError,
    );
  });

  it('checkHostInfo names what is wrong', () => {
    expect(() => checkHostInfo(null)).toThrow(/flag, type and addr/);
    expect(() => checkHostInfo({ flag: 8, type: 0, addr: { host: 'a.example', port: 0 } })).toThrow(/flag 8/);
    expect(() => checkHostInfo({ flag: 0, type: -1, addr: { host: 'a.example', port: 0 } })).toThrow(/type -1/);
    expect(() => checkHostInfo({ flag: 0, type: 0, addr: { host: '', port: 0 } })).toThrow(/addr.host is empty/);
    expect(() => checkHostInfo({ flag: 0, type: 0, addr: { host: 'a.example', port: 70000 } })).toThrow(/0\.\.65535/);
    expect(() => checkHostInfo({ flag: 0, type: 0, addr: { host: 'a.example', port: 1.5 } })).toThrow(
      InvalidHostInfoError,
    );
  });
});

describe('type helpers', () => {
  it('flagOfType follows pjsip_transport_get_flag_from_type', () => {
    expect([Type.UNSPECIFIED, Type.UDP, Type.TCP, Type.TLS, Type.UDP6, Type.TLS6].map(flagOfType)).toEqual([
      0,
      Flag.DATAGRAM,
      Flag.RELIABLE,
      Flag.RELIABLE | Flag.SECURE,
      Flag.DATAGRAM,
      Flag.RELIABLE | Flag.SECURE,
    ]);
  });

  it('transportOfType and typeOfTarget', () => {
    expect([Type.UNSPECIFIED, Type.UDP, Type.TCP6, Type.TLS, Type.SCTP].map(transportOfType)).toEqual([
      undefined,
      'udp',
      'tcp',
      'tls',
      null,
    ]);
    expect(typeOfTarget({ transport: 'tls', family: 4 })).toBe(Type.TLS);
    expect(typeOfTarget({ transport: 'udp', family: 6 })).toBe(Type.UDP6);
    expect(typeOfTarget({ transport: 'tcp', family: 6 })).toBe(Type.TCP6);
  });
});
