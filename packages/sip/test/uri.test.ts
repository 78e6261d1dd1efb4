/** SIP and SIPS URIs: RFC 3261 sections 19.1 and 25.1, nominal and off-nominal. */
import { describe, expect, it } from 'vitest';
import { DnsError, InvalidArgumentError } from '@dnscore/core';
import { InvalidSipUriError } from '../src/errors.js';
import { formatSipUri, isSipToken, parseSipUri, uriTarget } from '../src/uri.js';

describe('parseSipUri: nominal', () => {
  it('reads every part of a full SIP URI', () => {
    const uri = parseSipUri(
      'sip:alice:secret@atlanta.example:5070;transport=tcp;maddr=192.0.2.1;ttl=15;lr;x-custom=a%20b?subject=project&p' +
        'riority=urgent',
    );
    expect(uri).toMatchObject({
      scheme: 'sip',
      user: 'alice',
      password: 'secret',
      host: 'atlanta.example',
      hostKind: 'hostname',
      port: 5070,
      transport: 'tcp',
      maddr: { host: '192.0.2.1', kind: 'ipv4' },
    });
    expect([...uri.params]).toEqual([
      ['transport', 'tcp'],
      ['maddr', '192.0.2.1'],
      ['ttl', '15'],
      ['lr', undefined],
      ['x-custom', 'a%20b'],
    ]);
    expect(uri.headers).toEqual([
      ['subject', 'project'],
      ['priority', 'urgent'],
    ]);
  });

  it('reads the shortest forms: sip:host and sips:host', () => {
    expect(parseSipUri('sip:biloxi.example')).toMatchObject({
      scheme: 'sip',
      user: undefined,
      host: 'biloxi.example',
      port: undefined,
      transport: undefined,
      maddr: undefined,
    });
    expect(parseSipUri('sips:biloxi.example').scheme).toBe('sips');
  });

  it('is case-insensitive in scheme, host, parameter names and transport; the user part keeps its case', () => {
    const uri = parseSipUri('SIPS:Bob@BiLoXi.Example;TRANSPORT=TCP;MAddr=Proxy.Example');
    expect(uri).toMatchObject({
      scheme: 'sips',
      user: 'Bob',
      host: 'biloxi.example',
      transport: 'tcp',
      maddr: { host: 'proxy.example', kind: 'hostname' },
    });
    expect([...uri.params.keys()]).toEqual(['transport', 'maddr']);
    expect(formatSipUri(uri)).toBe('sips:Bob@biloxi.example;transport=TCP;maddr=Proxy.Example');
  });

  it('reads IPv4 and bracketed IPv6 hosts, IPv6 in RFC 5952 form', () => {
    expect(parseSipUri('sip:192.0.2.4:5060')).toMatchObject({ host: '192.0.2.4', hostKind: 'ipv4', port: 5060 });
    expect(parseSipUri('sip:bob@[2001:DB8:0:0:0:0:0:1]:5061')).toMatchObject({
      host: '2001:db8::1',
      hostKind: 'ipv6',
      port: 5061,
    });
    expect(parseSipUri('sip:[::ffff:192.0.2.1]').host).toBe('::ffff:192.0.2.1');
    expect(formatSipUri(parseSipUri('sip:[2001:db8:0::1]:5070'))).toBe('sip:[2001:db8::1]:5070');
  });

  it('takes the user characters RFC 3261 allows, escapes and telephone numbers included', () => {
    expect(parseSipUri('sip:+1-212-555-1212;isub=1411@gateway.example;user=phone').user).toBe(
      '+1-212-555-1212;isub=1411',
    );
    expect(parseSipUri("sip:a%40b&=+$,?/-_.!~*'()@h.example").user).toBe("a%40b&=+$,?/-_.!~*'()");
  });

  it('drops the trailing dot of a fully qualified host', () => {
    expect(parseSipUri('sip:biloxi.example.').host).toBe('biloxi.example');
  });

  it('unescapes the transport parameter before reading it', () => {
    expect(parseSipUri('sip:h.example;transport=%55DP').transport).toBe('udp');
  });

  it('keeps unknown transports for the selection to refuse', () => {
    expect(parseSipUri('sip:h.example;transport=sctp').transport).toBe('sctp');
    expect(parseSipUri('sip:h.example;transport=ws').transport).toBe('ws');
  });

  it('maddr is the TARGET (RFC 3263 section 4); the host otherwise', () => {
    expect(uriTarget(parseSipUri('sip:bob@biloxi.example;maddr=[2001:db8::9]'))).toEqual({
      host: '2001:db8::9',
      kind: 'ipv6',
      from: 'maddr',
    });
    expect(uriTarget(parseSipUri('sip:bob@biloxi.example'))).toEqual({
      host: 'biloxi.example',
      kind: 'hostname',
      from: 'host',
    });
  });
});

describe('parseSipUri: off-nominal', () => {
  it.each([
    ['', 'does not start with "sip:" or "sips:"'],
    ['tel:+12125551212', 'the scheme "tel" is not sip or sips'],
    ['http://biloxi.example', 'the scheme "http" is not sip or sips'],
    ['biloxi.example', 'does not start with "sip:" or "sips:"'],
    ['<sip:bob@biloxi.example>', 'angle brackets'],
    [' sip:bob@biloxi.example', 'white space'],
    ['sip:', 'the host is empty'],
    ['sip:@biloxi.example', 'the user part before "@" is empty'],
    ['sip:a@b@biloxi.example', 'more than one "@"'],
    ['sip:bob smith@biloxi.example', 'the user part holds white space'],
    ['sip:bob%4@biloxi.example', '"%" not followed by two hex digits'],
    ['sip:bob:pa<ss@biloxi.example', 'the password holds "<"'],
    ['sip:bob@', 'the host is empty'],
    ['sip:bob@bi_loxi.example', 'host name "bi_loxi.example" has the label "bi_loxi"'],
    ['sip:bob@-biloxi.example', 'the label "-biloxi"'],
    ['sip:bob@biloxi-.example', 'the label "biloxi-"'],
    ['sip:bob@biloxi.123', 'the last label must start with a letter'],
    ['sip:bob@biloxi..example', 'an empty label'],
    [`sip:bob@${'a'.repeat(64)}.example`, 'label longer than 63'],
    [`sip:bob@${Array.from({ length: 50 }, () => 'abcde').join('.')}.example`, 'octets on the wire'],
    ['sip:bob@192.0.2.256', 'an octet above 255'],
    ['sip:bob@192.0.2', '"192.0.2" is not a valid IPv4 address'],
    ['sip:bob@192.0.2.1.5', '"192.0.2.1.5" is not a valid IPv4 address'],
    ['sip:bob@192.0.2.1x', 'the last label must start with a letter'],
    ['sip:bob@010.0.0.1', 'leading zero'],
    ['sip:bob@2001:db8::1', 'write it in brackets'],
    ['sip:bob@[2001:db8::1', 'no closing "]"'],
    ['sip:bob@[2001:db8::g]', 'not a valid IPv6 address'],
    [
      'sip:bob@[fe80::1%25eth0]',
      '"[fe80::1%25eth0]" has a zone identifier, which a SIP URI\'s IPv6 reference does not allow (RFC 3261 ' +
        'section 25.1)',
    ],
    ['sip:bob@[fe80::1%eth0]', 'has a zone identifier'],
    ['sip:bob@biloxi.example;maddr=[fe80::1%25eth0]', 'maddr: "[fe80::1%eth0]" has a zone identifier'],
    ['sip:bob@[192.0.2.1]', 'not a valid IPv6 address'],
    ['sip:bob@biloxi.example:', 'the port after ":" is empty'],
    ['sip:bob@biloxi.example:50a0', 'the port "50a0" is not a number'],
    ['sip:bob@biloxi.example:0', 'outside 1..65535'],
    ['sip:bob@biloxi.example:65536', 'outside 1..65535'],
    ['sip:bob@biloxi.example;', 'a parameter has no name'],
    ['sip:bob@biloxi.example;transport=', 'has "=" but no value'],
    ['sip:bob@biloxi.example;transport', 'the transport parameter needs a value'],
    ['sip:bob@biloxi.example;transport=udp;Transport=tcp', 'the parameter "transport" appears twice'],
    ['sip:bob@biloxi.example;transport=u<dp', 'holds "<"'],
    ['sip:bob@biloxi.example;maddr=bad_host', 'maddr: host name "bad_host"'],
    ['sip:bob@biloxi.example;maddr', 'the maddr parameter needs a value'],
    ['sip:bob@biloxi.example;ttl=256', 'the ttl parameter "256" is not 0..255'],
    ['sip:bob@biloxi.example;ttl=x', 'is not 0..255'],
    ['sip:bob@biloxi.example;maddr=192.0.2.1:5070', 'maddr "192.0.2.1:5070" has a port: maddr takes a host only'],
    ['sip:bob@biloxi.example;maddr=proxy.example:5070', 'maddr "proxy.example:5070" has a port'],
    ['sip:bob@biloxi.example;transport=%FF', 'not UTF-8'],
    ['sip:bob@biloxi.example?subject', 'the header "subject" is not name=value'],
    ['sip:bob@biloxi.example?a=b c', 'a header value holds white space'],
    ['sip:bob@biloxi.example/path', 'host name "biloxi.example/path"'],
    ['sip:bob@biloxi.example:5060x', 'the port "5060x" is not a number'],
  ])('%j is refused: %s', (text, reason) => {
    let error: unknown;
    try {
      parseSipUri(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidSipUriError);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toBeInstanceOf(DnsError);
    expect((error as InvalidSipUriError).code).toBe('SIP_ERR_INVALID_URI');
    expect((error as Error).message).toContain(reason);
  });

  it('says where the URI breaks', () => {
    const error = (() => {
      try {
        parseSipUri('sip:bob@biloxi.example:99999');
      } catch (caught) {
        return caught as InvalidSipUriError;
      }
    })();
    expect(error?.position).toBe(23);
    expect(error?.reason).toBe('the port 99999 is outside 1..65535');
    expect(error?.message).toBe(
      'invalid SIP URI "sip:bob@biloxi.example:99999": the port 99999 is outside 1..65535 (at offset 23)',
    );
  });

  it('the message shows a hostile URI escaped, cut as the uri field is', () => {
    const hostile = `sip:bob@biloxi\u001b[31m"\n${'x'.repeat(300)}.example`;
    const error = (() => {
      try {
        parseSipUri(hostile);
      } catch (caught) {
        return caught as InvalidSipUriError;
      }
    })();
    expect(error?.uri).toBe(`${hostile.slice(0, 200)}...`);
    expect(error?.message).toBe(
      `invalid SIP URI "sip:bob@biloxi\\x1b[31m\\"\\x0a${'x'.repeat(179)}...": host name ` +
        `"biloxi\\x1b[31m"\\x0a${'x'.repeat(300)}.example" has the label "biloxi\\x1b[31m"\\x0a${'x'.repeat(150)}` +
        `...(${error?.reason.length} chars) (at offset 8)`,
    );
  });

  it.each([
    ['sip:bob@biloxi.example;lr;ttl=256', 30],
    ['sip:bob@biloxi.example;transport=u%20p', 33],
    ['sip:bob@biloxi.example;user', 23],
    ['sip:bob@biloxi.example;method=%FF', 30],
    ['sip:bob@biloxi.example;maddr=bad_host', 29],
    ['sip:bob@biloxi.example;maddr=192.0.2.1:5070', 29],
  ])('says where a parameter value breaks: %j at offset %d', (text, offset) => {
    expect(() => parseSipUri(text)).toThrow(expect.objectContaining({ position: offset }));
  });

  it('refuses a non-string and an over-long URI without work', () => {
    expect(() => parseSipUri(42 as unknown as string)).toThrow(InvalidSipUriError);
    expect(() => parseSipUri(`sip:${'a'.repeat(9000)}.example`)).toThrow('longer than 8192 characters');
  });
});

describe('isSipToken (RFC 3261 section 25.1)', () => {
  it("accepts alphanumerics and -.!%*_+`'~, nothing else", () => {
    expect(['OPTIONS', 'x-Custom.1', "!%*_+`'~", '', 'IN VITE', 'a;b', 'caf\u00e9', 'a/b'].map(isSipToken)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
