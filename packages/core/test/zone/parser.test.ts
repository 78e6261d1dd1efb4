/** The master-file parser (RFC 1035 section 5, RFC 2308 $TTL), and its errors: file, line, what. */
import { describe, expect, it } from 'vitest';
import { ZoneFileError, parseZone } from '@dnscore/core';

const SOA = '@ IN SOA ns1 hostmaster 1 7200 900 1209600 300';

function parse(text: string, origin = 'example.') {
  return parseZone(text, { file: 'test.zone', origin });
}

const brief = (text: string, origin?: string) =>
  parse(text, origin).map((r) => [r.name, r.ttl, r.class, r.type, r.data]);

describe('parseZone: nominal', () => {
  it('reads $ORIGIN, $TTL, @, relative and absolute names', () => {
    const records = brief(
      `$ORIGIN biloxi.example.\n$TTL 3600\n${SOA}\nsip1 IN A 192.0.2.1\nsip2.biloxi.example. 60 IN A 192.0.2.2\n`,
    );
    expect(records).toEqual([
      [
        'biloxi.example',
        3600,
        1,
        6,
        {
          mname: 'ns1.biloxi.example',
          rname: 'hostmaster.biloxi.example',
          serial: 1,
          refresh: 7200,
          retry: 900,
          expire: 1209600,
          minimum: 300,
        },
      ],
      ['sip1.biloxi.example', 3600, 1, 1, '192.0.2.1'],
      ['sip2.biloxi.example', 60, 1, 1, '192.0.2.2'],
    ]);
  });

  it('repeats the previous owner for a line that starts with white space', () => {
    const records = brief(`$TTL 60\n${SOA}\nwww IN A 192.0.2.1\n    IN AAAA 2001:db8::1\n\tIN TXT "x"\n`);
    expect(records.slice(1).map((r) => r[0])).toEqual(['www.example', 'www.example', 'www.example']);
  });

  it('takes TTL and class in either order, and BIND time units', () => {
    const records = brief(`$TTL 1h\n${SOA}\na 1h30m IN A 192.0.2.1\nb IN 2d A 192.0.2.2\nc A 192.0.2.3\n`);
    expect(records.slice(1).map((r) => r[1])).toEqual([5400, 172800, 3600]);
  });

  it('uses the last explicit TTL when there is no $TTL (RFC 1035), and SOA MINIMUM for a lone SOA', () => {
    const records = brief(`${SOA}\na 120 IN A 192.0.2.1\nb IN A 192.0.2.2\n`);
    expect(records.map((r) => r[1])).toEqual([300, 120, 120]);
  });

  it('with no $TTL nor TTL before it, an SOA without a TTL takes MINIMUM, as do the records after it (BIND)', () => {
    const records = brief(`${SOA}\n  IN NS ns1\nns1 IN A 192.0.2.1\nb 120 IN A 192.0.2.2\nc IN A 192.0.2.3\n`);
    expect(records.map((r) => r[1])).toEqual([300, 300, 300, 120, 120]);
  });

  it('joins lines in parentheses and drops comments', () => {
    const records = brief(
      `$TTL 60\n@ IN SOA ns1 hostmaster ( 1 ; serial\n  7200 ; refresh\n  900 1209600\n  300 ) ; minimum\n`,
    );
    expect(records[0]![4]).toMatchObject({ serial: 1, refresh: 7200, minimum: 300 });
  });

  it('reads quoted strings with spaces, semicolons and escapes', () => {
    const records = brief(`$TTL 60\n${SOA}\nt IN TXT "a b; c" "quote \\" here" \\065bc plain\n`);
    expect((records[1]![4] as Buffer[]).map((b) => b.toString())).toEqual(['a b; c', 'quote " here', 'Abc', 'plain']);
  });

  it('keeps any octet of a TXT string, \\DDD above 127 included, and the UTF-8 of non-ASCII text', () => {
    const records = brief(`$TTL 60\n${SOA}\nt IN TXT "\\255\\000x" "\\195\\169" "é"\n`);
    expect((records[1]![4] as Buffer[]).map((b) => b.toString('hex'))).toEqual(['ff0078', 'c3a9', 'c3a9']);
  });

  it('reads CAA in its presentation form (RFC 8659) into the RDATA its RFC 3597 form gives', () => {
    const long = 'x'.repeat(300);
    const records = brief(
      `$ORIGIN c.example.\n$TTL 60\n${SOA}\n@ IN CAA 0 issue "ca.example"\n` +
        `b IN CAA \\# 17 0005697373756563612e6578616d706c65\n` +
        `c IN CAA 128 iodef "mailto:security@c.example"\nd IN CAA 0 issuewild ${long}\n`,
      'c.example.',
    );
    const hex = records.slice(1).map((r) => Buffer.from(r[4] as Uint8Array).toString('hex'));
    expect(hex.slice(0, 3)).toEqual([
      '0005697373756563612e6578616d706c65',
      '0005697373756563612e6578616d706c65',
      `8005696f646566${Buffer.from('mailto:security@c.example').toString('hex')}`,
    ]);
    expect(hex[3]).toBe(`0009697373756577696c64${Buffer.from(long).toString('hex')}`);
  });

  it('reads every typed type', () => {
    const text = [
      '$TTL 60',
      SOA,
      '@ IN NS ns1',
      '@ IN MX 10 mail',
      'ptr IN PTR target.example.',
      'alias IN CNAME www',
      '_sip._udp IN SRV 10 60 5060 sip1',
      '@ IN NAPTR 100 50 "s" "SIP+D2U" "" _sip._udp',
      'enum IN NAPTR 10 10 "u" "E2U+sip" "!^.*$!sip:info@example.net!" .',
      '_443._tcp IN TLSA 3 1 1 ABCD ef01',
      'v6 IN AAAA 2001:DB8::1',
      'old IN DNAME new.example.',
    ].join('\n');
    const records = brief(text);
    expect(records.slice(1).map((r) => r[4])).toEqual([
      'ns1.example',
      { preference: 10, exchange: 'mail.example' },
      'target.example',
      'www.example',
      { priority: 10, weight: 60, port: 5060, target: 'sip1.example' },
      { order: 100, preference: 50, flags: 's', services: 'SIP+D2U', regexp: '', replacement: '_sip._udp.example' },
      {
        order: 10,
        preference: 10,
        flags: 'u',
        services: 'E2U+sip',
        regexp: '!^.*$!sip:info@example.net!',
        replacement: '.',
      },
      { usage: 3, selector: 1, matchingType: 1, certificate: Buffer.from('abcdef01', 'hex') },
      '2001:DB8::1',
      'new.example',
    ]);
  });

  it('reads the RFC 3597 generic form, for unknown and known types', () => {
    const records = brief(
      `$TTL 60\n${SOA}\nx IN TYPE65280 \\# 3 010203\ny IN A \\# 4 C0000201\nz CLASS1 TYPE1 \\# 4 c0000202\n`,
    );
    expect(records.slice(1).map((r) => [r[3], r[4]])).toEqual([
      [65280, Buffer.from([1, 2, 3])],
      [1, '192.0.2.1'],
      [1, '192.0.2.2'],
    ]);
  });

  it('follows $INCLUDE relative to the including file, with its own origin', () => {
    const files: Record<string, string> = { '/zones/inner.zone': 'host IN A 192.0.2.9\n' };
    const records = parseZone(`$TTL 60\n${SOA}\n$INCLUDE inner.zone sub.example.\nafter IN A 192.0.2.1\n`, {
      file: '/zones/outer.zone',
      origin: 'example.',
      includeRoot: '/zones',
      readFile: (path) =>
        files[path] ??
        (() => {
          throw new Error('ENOENT');
        })(),
    });
    expect(records.map((r) => [r.name, r.file])).toEqual([
      ['example', '/zones/outer.zone'],
      ['host.sub.example', '/zones/inner.zone'],
      ['after.example', '/zones/outer.zone'],
    ]);
  });
});

describe('parseZone: off-nominal, each error names the file and the line', () => {
  it.each([
    ['an unknown type', `$TTL 60\n${SOA}\nwww IN BOGUS 1\n`, 3, /unknown type "BOGUS"/],
    ['a bad IPv4 address', `$TTL 60\n${SOA}\nwww IN A 300.1.2.3\n`, 3, /not an IPv4 address/],
    ['a bad IPv6 address', `$TTL 60\n${SOA}\nwww IN AAAA 2001:::1\n`, 3, /not an IPv6 address/],
    ['a missing field', `$TTL 60\n${SOA}\n_sip._udp IN SRV 10 60 5060\n`, 3, /missing its target/],
    ['extra data', `$TTL 60\n${SOA}\nwww IN A 192.0.2.1 192.0.2.2\n`, 3, /unexpected data "192.0.2.2"/],
    [
      'a number out of range',
      `$TTL 60\n${SOA}\nsrv IN SRV 70000 1 1 x\n`,
      3,
      /priority "70000" is not a number 0..65535/,
    ],
    ['an unclosed parenthesis', `$TTL 60\n@ IN SOA ns1 hostmaster ( 1 2 3\n4 5\n`, 2, /"\(" is never closed/],
    ['a ")" without "("', `$TTL 60\n${SOA} )\n`, 2, /without "\("/],
    ['an unclosed quote', `$TTL 60\n${SOA}\nt IN TXT "abc\n`, 3, /quoted string runs past the end of its line/],
    ['an over-long label', `$TTL 60\n${SOA}\n${'a'.repeat(64)} IN A 192.0.2.1\n`, 3, /longer than 63/],
    [
      'a NAPTR field whose octets are not UTF-8',
      `$TTL 60\n${SOA}\nn IN NAPTR 10 10 "\\255" "SIP+D2U" "" _sip._udp\n`,
      3,
      /NAPTR flags holds octets that are not UTF-8/,
    ],
    ['a CAA tag that is not letters and digits', `$TTL 60\n${SOA}\nc IN CAA 0 is-sue "x"\n`, 3, /CAA tag "is-sue"/],
    ['CAA flags over 255', `$TTL 60\n${SOA}\nc IN CAA 256 issue "x"\n`, 3, /flags "256"/],
    ['a TXT string over 255 bytes', `$TTL 60\n${SOA}\nt IN TXT "${'x'.repeat(256)}"\n`, 3, /at most 255/],
    ['no TTL at all', `a IN A 192.0.2.1\n`, 1, /no TTL/],
    ['a bad $TTL', `$TTL soon\n`, 1, /\$TTL "soon" is not a TTL/],
    ['an unknown directive', `$GENERATE 1-10 x A 1.2.3.$\n`, 1, /unknown directive "\$GENERATE"/],
    ['a blank owner first', ` IN A 192.0.2.1\n`, 1, /no owner/],
    ['a TTL over 2^31-1', `$TTL 60\n${SOA}\na 2147483648 IN A 192.0.2.1\n`, 3, /^TTL "2147483648" is over 2147483647/],
    ['a TTL in units over 2^31-1', `$TTL 60\n${SOA}\na IN 3551w A 192.0.2.1\n`, 3, /^TTL "3551w" is over 2147483647/],
    ['a TTL in the type slot', `$TTL 60\n${SOA}\na IN 60 60 A 192.0.2.1\n`, 3, /not a type/],
    ['generic RDATA of the wrong length', `$TTL 60\n${SOA}\nx IN TYPE65280 \\# 4 0102\n`, 3, /says 4 bytes/],
    ['generic RDATA that is not valid for its type', `$TTL 60\n${SOA}\nx IN A \\# 3 010203\n`, 3, /not a valid A/],
    ['an unsupported type', `$TTL 60\n${SOA}\nx IN DS 1 2 3 abcd\n`, 3, /not supported in zone files/],
    [
      'a class dns-packet cannot write',
      `$TTL 60\n${SOA}\nx CLASS999 A 192.0.2.1\n`,
      3,
      /class CLASS999 is not supported/,
    ],
    ['a label holding a dot', `$TTL 60\n${SOA}\na\\.b IN A 192.0.2.1\n`, 3, /holds a dot/],
    ['an ANY record', `$TTL 60\n${SOA}\nx IN ANY \\# 0\n`, 3, /^type ANY is a query or meta type/],
    ['an OPT record', `$TTL 60\n${SOA}\nx IN OPT \\# 0\n`, 3, /^type OPT is a query or meta type/],
    ['a TSIG record', `$TTL 60\n${SOA}\nx IN TYPE250 \\# 0\n`, 3, /^type TSIG is a query or meta type/],
    ['a TYPE0 record', `$TTL 60\n${SOA}\nx IN TYPE0 \\# 0\n`, 3, /^type TYPE0 is a query or meta type/],
    ['a TYPE128 record', `$TTL 60\n${SOA}\nx IN TYPE128 \\# 0\n`, 3, /^type TYPE128 is a query or meta type/],
  ])('%s', (_name, text, line, reason) => {
    try {
      parse(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ZoneFileError);
      const zoneError = error as ZoneFileError;
      expect(zoneError.code).toBe('DNS_ERR_ZONE_FILE');
      expect(zoneError.file).toBe('test.zone');
      expect(zoneError.line).toBe(line);
      expect(zoneError.message).toMatch(new RegExp(`^test\\.zone:${line}: `));
      expect(zoneError.reason).toMatch(reason);
    }
  });

  it('a name too long, in the owner or in RDATA on a later line, is named by its line and column', () => {
    const label = 'a'.repeat(63);
    const long = `${label}.${label}.${label}.${label}`; // 256 octets on the wire, before the origin
    const failure = (text: string) => {
      try {
        parse(text);
      } catch (error) {
        expect(error).toBeInstanceOf(ZoneFileError);
        return [(error as ZoneFileError).line, (error as ZoneFileError).reason];
      }
      return expect.unreachable();
    };
    expect(failure(`$TTL 60\n${SOA}\n${'b'.repeat(64)} IN A 192.0.2.1\n`)).toEqual([
      3,
      `column 1: label longer than 63 octets in name "${'b'.repeat(64)}"`,
    ]);
    expect(failure(`$TTL 60\n${SOA}\nsrv IN SRV ( 10 60 5060 ; the target\n   ${long} )\n`)).toEqual([
      4,
      `column 4: name "${long.slice(0, 64)}...(255 chars)" is 257 octets on the wire (at most 255)`,
    ]);
    expect(failure(`$TTL 60\n${SOA}\nx IN CNAME ${label}.${label}.${label}.${'a'.repeat(56)}\n`)).toEqual([
      3,
      `column 12: "${label}....(248 chars)" is longer than 255 octets with the origin`,
    ]);
  });

  it('a relative name without any origin', () => {
    expect(() => parseZone('$TTL 60\nwww IN A 192.0.2.1\n', { file: 'f' })).toThrow(
      /f:2: relative name "www" but no \$ORIGIN/,
    );
  });

  it('an $INCLUDE that cannot be read names the file', () => {
    expect(() => parseZone('$INCLUDE /nonexistent/x.zone\n', { file: 'f', includeRoot: '/' })).toThrow(
      /f:1: \$INCLUDE cannot read "\/nonexistent\/x.zone": ENOENT/,
    );
  });
});
