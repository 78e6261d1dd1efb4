import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, formatRecord } from '@dnscore/core';

const ZONE = `$ORIGIN p.example.
$TTL 60
@ IN SOA ns hostmaster 1 2 3 4 5
@ IN MX 10 mail
@ IN NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp
e IN NAPTR 10 10 "u" "E2U+sip" "!^(.*)$!sip:\\\\1@example.net!" .
t IN TXT "say \\"hi\\"" "tab\\009here" "héllo"
_443._tcp IN TLSA 3 1 1 abcdef
r IN TYPE65280 \\# 2 0A0B
z IN TYPE65281 \\# 0
`;

const core = new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] })]);
const line = async (name: string, type: string) => formatRecord((await core.resolve(name, type)).records[0]!);

describe('presentation format (RFC 1035 section 5.1, RFC 3597)', () => {
  it.each([
    ['p.example', 'MX', 'p.example.\t60\tIN\tMX\t10 mail.p.example.'],
    ['p.example', 'NAPTR', 'p.example.\t60\tIN\tNAPTR\t100 10 "S" "SIP+D2U" "" _sip._udp.p.example.'],
    ['e.p.example', 'NAPTR', 'e.p.example.\t60\tIN\tNAPTR\t10 10 "u" "E2U+sip" "!^(.*)$!sip:\\\\1@example.net!" .'],
    ['t.p.example', 'TXT', 't.p.example.\t60\tIN\tTXT\t"say \\"hi\\"" "tab\\009here" "héllo"'],
    ['_443._tcp.p.example', 'TLSA', '_443._tcp.p.example.\t60\tIN\tTLSA\t3 1 1 ABCDEF'],
    ['r.p.example', 'TYPE65280', 'r.p.example.\t60\tIN\tTYPE65280\t\\# 2 0a0b'],
    ['z.p.example', 'TYPE65281', 'z.p.example.\t60\tIN\tTYPE65281\t\\# 0'],
    ['p.example', 'SOA', 'p.example.\t60\tIN\tSOA\tns.p.example. hostmaster.p.example. 1 2 3 4 5'],
  ])('%s %s', async (name, type, expected) => {
    expect(await line(name, type)).toBe(expected);
  });
});
