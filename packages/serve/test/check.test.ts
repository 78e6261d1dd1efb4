/** The SIP DNS check: each rule on a zone that breaks it, and the walk-through zone that breaks none. */
import { DnsCore, InvalidArgumentError, silentLogger, ZoneResolver } from '@dnscore/core';
import { InvalidSipUriError } from '@dnscore/sip';
import { describe, expect, it } from 'vitest';
import { hasProblems, parseCheckTarget, renderCheck, runCheck, type CheckReport } from '@dnscore/serve';
import { silentDns, withDnssec } from './support/dns.js';
import { zoneCore } from './support/zones.js';

const core = zoneCore('mistakes.example', 'dot.example', 'bare.example');
const codes = (r: CheckReport) => r.findings.map((f) => [f.severity, f.code, f.record]);

describe('check: nominal', () => {
  it('finds nothing wrong in the walk-through zone (biloxi.example)', async () => {
    const report = await runCheck(core, 'biloxi.example');
    expect(report).toEqual({
      input: 'biloxi.example',
      uri: null,
      domain: 'biloxi.example',
      answered: true,
      queries: 13,
      findings: [],
      counts: { error: 0, warning: 0, info: 0 },
    });
    expect(hasProblems(report)).toBe(false);
    expect(renderCheck(report)).toContain('No findings: nothing to fix.');
  });

  it('"." targets alone are an info, not a problem', async () => {
    const report = await runCheck(core, 'dot.example');
    expect(codes(report)).toEqual([
      ['info', 'srv-not-offered', '_sip._udp.dot.example. 3600 IN SRV 0 0 0 .'],
      ['info', 'srv-not-offered', '_sips._tcp.dot.example. 3600 IN SRV 0 0 0 .'],
    ]);
    expect(report.findings[0]!.message).toContain('decidedly not available over UDP');
    expect(hasProblems(report)).toBe(false);
  });
});

describe('check: the common mistakes', () => {
  it('names each record at fault, errors first, with the fix', async () => {
    const report = await runCheck(core, 'mistakes.example');
    const naptr = 'mistakes.example. 3600 IN NAPTR';
    expect(codes(report)).toEqual([
      ['error', 'naptr-no-srv', `${naptr} 10 50 "s" "SIPS+D2T" "" _sips._tcp.mistakes.example.`],
      ['error', 'naptr-no-srv', `${naptr} 30 50 "s" "SIP+D2U" "" _sip._udp.elsewhere.mistakes.example.`],
      ['error', 'srv-target-alias', '_sip._tcp.mistakes.example. 3600 IN SRV 10 60 5060 alias.mistakes.example.'],
      ['error', 'srv-target-no-address', '_sip._tcp.mistakes.example. 3600 IN SRV 10 0 5060 noaddr.mistakes.example.'],
      ['warning', 'naptr-fallback', 'mistakes.example. NAPTR'],
      ['warning', 'srv-single-target', '_sip._udp.mistakes.example. 30 IN SRV 10 10 5060 sip1.mistakes.example.'],
      ['warning', 'srv-dot-mixed', '_sip._tcp.mistakes.example. 3600 IN SRV 20 10 5060 .'],
      [
        'warning',
        'srv-weight-zero-mixed',
        '_sip._tcp.mistakes.example. 3600 IN SRV 10 0 5060 noaddr.mistakes.example.',
      ],
      ['warning', 'tls-without-sips-srv', `${naptr} 10 50 "s" "SIPS+D2T" "" _sips._tcp.mistakes.example.`],
      ['warning', 'ttl-long', 'sip1.mistakes.example. A TTL 172800'],
      ['info', 'ttl-short', '_sip._udp.mistakes.example. SRV TTL 30'],
    ]);
    expect(report.counts).toEqual({ error: 4, warning: 6, info: 1 });
    const alias = report.findings.find((f) => f.code === 'srv-target-alias')!;
    expect(alias.fix).toBe('point the SRV record at sip1.mistakes.example itself');
    expect(report.findings.find((f) => f.code === 'srv-weight-zero-mixed')!.message).toContain('about 1 of 61 draws');
    expect(hasProblems(report)).toBe(true);
  });

  it('no NAPTR or SRV, and TLS only under the deprecated _sip._tls', async () => {
    const report = await runCheck(core, 'bare.example');
    const tls = '_sip._tls.bare.example. 3600 IN SRV 10 10 5061 tls.bare.example.';
    expect(codes(report)).toEqual([
      ['warning', 'srv-single-target', tls],
      ['warning', 'srv-sip-tls', tls],
      ['warning', 'tls-without-sips-srv', tls],
      ['warning', 'no-srv', 'bare.example. SRV'],
    ]);
    expect(report.findings[3]!.message).toContain('only the A/AAAA records of bare.example at port 5060');
  });

  it('a port, a transport or an IP address in the configured URI', async () => {
    const port = await runCheck(core, 'sip:bob@biloxi.example:5080;transport=tcp');
    expect(port.domain).toBe('biloxi.example');
    expect(codes(port)).toEqual([
      ['warning', 'uri-port', 'sip:bob@biloxi.example:5080;transport=tcp'],
      ['info', 'uri-transport', 'sip:bob@biloxi.example:5080;transport=tcp'],
    ]);
    expect(port.findings[0]!.fix).toBe('remove ":5080" from the URI and publish the port in SRV records');
    const tls = await runCheck(core, 'sip:biloxi.example;transport=tls');
    expect(codes(tls)).toEqual([['warning', 'uri-transport', 'sip:biloxi.example;transport=tls']]);
    const literal = await runCheck(core, 'sip:alice@192.0.2.1:5060');
    expect(literal).toMatchObject({ domain: null, queries: 0, answered: true });
    expect(codes(literal)).toEqual([['warning', 'uri-ip-literal', 'sip:alice@192.0.2.1:5060']]);
    expect(codes(await runCheck(core, '192.0.2.7'))).toEqual([['warning', 'uri-ip-literal', 'sip:192.0.2.7']]);
  });

  it('port 0, TTL 0 and a NAPTR that offers a "." service', async () => {
    const text = `$ORIGIN zero.example.
$TTL 300
@ IN SOA ns1 hostmaster 1 7200 900 1209600 300
@ IN NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp
_sip._udp IN SRV 0 0 0 .
_sip._tcp 0 IN SRV 10 50 0 a
          0 IN SRV 10 50 5060 b
a IN A 192.0.2.1
b IN A 192.0.2.2
`;
    const zero = new DnsCore([new ZoneResolver({ zones: [{ text }] })], { logger: silentLogger });
    const report = await runCheck(zero, 'zero.example');
    expect(codes(report)).toEqual([
      ['error', 'srv-port-zero', '_sip._tcp.zero.example. 0 IN SRV 10 50 0 a.zero.example.'],
      ['warning', 'naptr-to-dot', 'zero.example. 300 IN NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp.zero.example.'],
      ['warning', 'naptr-incomplete', 'zero.example. NAPTR'],
      ['warning', 'naptr-fallback', 'zero.example. NAPTR'],
      ['warning', 'srv-single-target', '_sip._tcp.zero.example. 0 IN SRV 10 50 5060 b.zero.example.'],
      ['warning', 'ttl-short', '_sip._tcp.zero.example. SRV TTL 0'],
      ['info', 'srv-not-offered', '_sip._udp.zero.example. 300 IN SRV 0 0 0 .'],
    ]);
  });
});

describe('check: DNSSEC and missing answers', () => {
  it('a bogus answer is an error; secure NAPTR with unsigned targets is a warning', async () => {
    const signedTop = withDnssec(core, (name, type) =>
      name === 'biloxi.example' || name.startsWith('_')
        ? 'secure'
        : type === 'AAAA' && name === 'sip2.biloxi.example'
          ? 'bogus'
          : undefined,
    );
    const report = await runCheck(signedTop, 'biloxi.example');
    expect(codes(report)).toEqual([
      ['error', 'dnssec-bogus', 'sip2.biloxi.example. AAAA'],
      ['warning', 'dnssec-partial', 'backup.biloxi.example. A, sip1.biloxi.example. A, sip2.biloxi.example. A'],
    ]);
    expect(report.findings[0]!.message).toContain('(signature expired)');
    expect(report.findings[1]!.message).toMatch(/^\d+ answer\(s\) are DNSSEC secure, but 3 are not signed/);
  });

  it('every answer secure: no DNSSEC finding', async () => {
    const report = await runCheck(
      withDnssec(core, () => 'secure'),
      'biloxi.example',
    );
    expect(report.findings).toEqual([]);
  });

  it('no answer at all: answered false, one dns-error per question', async () => {
    const report = await runCheck(silentDns, 'biloxi.example');
    expect(report.answered).toBe(false);
    expect(report.findings.every((f) => f.code === 'dns-error' && f.severity === 'warning')).toBe(true);
    expect(report.findings.map((f) => f.record)).toEqual([
      'biloxi.example. NAPTR',
      'biloxi.example. A',
      'biloxi.example. AAAA',
      '_sip._udp.biloxi.example. SRV',
      '_sip._tcp.biloxi.example. SRV',
      '_sips._tcp.biloxi.example. SRV',
      '_sip._tls.biloxi.example. SRV',
    ]);
    expect(report.findings[0]!.message).toContain('[DNS_ERR_TIMEOUT]');
  });
});

describe('check: off-nominal input', () => {
  it.each([
    ['', InvalidArgumentError, 'needs a domain'],
    ['bad..name', InvalidArgumentError, 'is not a domain'],
    ['sip:', InvalidSipUriError, ''],
    [`${'a'.repeat(1100)}.example`, InvalidArgumentError, 'longer than 1024'],
  ])('%j is refused before any question', (input, type, message) => {
    expect(() => parseCheckTarget(input)).toThrow(type);
    if (message) expect(() => parseCheckTarget(input)).toThrow(message);
  });

  it('a trailing dot and surrounding spaces are accepted', () => {
    expect(parseCheckTarget(' biloxi.example. ')).toEqual({ uri: undefined, domain: 'biloxi.example' });
  });
});
