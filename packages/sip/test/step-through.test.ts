/** renderStepThrough: the text `dnscore sip` prints. */
import { describe, expect, it } from 'vitest';
import { renderStepThrough } from '../src/step-through.js';
import { ManualClock, setup } from './support/fixtures.js';

describe('renderStepThrough: nominal', () => {
  it('the RFC 3263 walk-through zone: queries, additional use, NAPTR choice, targets, no warnings', async () => {
    const { locator } = setup({ seed: 1, clock: new ManualClock(1_700_000_000_000) });
    const text = renderStepThrough(await locator.resolve('sip:bob@biloxi.example', { stepThrough: true }));
    expect(text).toBe(
      [
        'sip:bob@biloxi.example',
        "  TARGET biloxi.example (the URI's host)",
        '  client: udp, tcp, tls; IPv4 and IPv6, AAAA first',
        '',
        'Steps',
        '  note: round 1: NAPTR, SRV (_sips._tcp.biloxi.example, _sip._tcp.biloxi.example, _sip._udp.biloxi.example) ' +
          'and AAAA/A of biloxi.example asked together',
        '  [round 1] biloxi.example NAPTR: NOERROR, 3 records, TTL 3600',
        '      50 50 "s" "SIPS+D2T" "" _sips._tcp.biloxi.example.',
        '      90 50 "s" "SIP+D2T" "" _sip._tcp.biloxi.example.',
        '      100 50 "s" "SIP+D2U" "" _sip._udp.biloxi.example.',
        '  [round 1] _sips._tcp.biloxi.example SRV: NOERROR, 3 records, TTL 3600',
        '      10 60 5061 sip1.biloxi.example.',
        '      10 40 5061 sip2.biloxi.example.',
        '      20 0 5061 backup.biloxi.example.',
        '      + additional sip1.biloxi.example A 203.0.113.11',
        '      + additional sip2.biloxi.example A 203.0.113.12',
        '      + additional backup.biloxi.example A 198.51.100.50',
        '  [round 1] _sip._tcp.biloxi.example SRV: NOERROR, 3 records, TTL 3600',
        '      10 60 5060 sip1.biloxi.example.',
        '      10 40 5060 sip2.biloxi.example.',
        '      20 0 5060 backup.biloxi.example.',
        '      + additional sip1.biloxi.example A 203.0.113.11',
        '      + additional sip2.biloxi.example A 203.0.113.12',
        '      + additional backup.biloxi.example A 198.51.100.50',
        '  [round 1] _sip._udp.biloxi.example SRV: NOERROR, 3 records, TTL 3600',
        '      10 60 5060 sip1.biloxi.example.',
        '      10 40 5060 sip2.biloxi.example.',
        '      20 0 5060 backup.biloxi.example.',
        '      + additional sip1.biloxi.example A 203.0.113.11',
        '      + additional sip2.biloxi.example A 203.0.113.12',
        '      + additional backup.biloxi.example A 198.51.100.50',
        '  [round 1] biloxi.example AAAA: NODATA, negative TTL 300',
        '  [round 1] biloxi.example A: NODATA, negative TTL 300',
        '  additional sip1.biloxi.example 203.0.113.11 (from _sips._tcp.biloxi.example): used instead of A/AAAA ' +
          'queries (a target of this answer, inside biloxi.example)',
        '  additional sip2.biloxi.example 203.0.113.12 (from _sips._tcp.biloxi.example): used instead of A/AAAA ' +
          'queries (a target of this answer, inside biloxi.example)',
        '  additional backup.biloxi.example 198.51.100.50 (from _sips._tcp.biloxi.example): used instead of A/AAAA ' +
          'queries (a target of this answer, inside biloxi.example)',
        '  NAPTR 50 50 "s" "SIPS+D2T" "" _sips._tcp.biloxi.example.',
        '        chosen (TLS): lowest order, then lowest preference, among the services the client supports; ' +
          '_sips._tcp.biloxi.example gives 3 target(s)',
        '  NAPTR 90 50 "s" "SIP+D2T" "" _sip._tcp.biloxi.example.',
        '        ignored (TCP): order 90 is not the lowest usable order 50 (RFC 3403: once a record of an order ' +
          'applies, other orders are not considered)',
        '  NAPTR 100 50 "s" "SIP+D2U" "" _sip._udp.biloxi.example.',
        '        ignored (UDP): order 100 is not the lowest usable order 50 (RFC 3403: once a record of an order ' +
          'applies, other orders are not considered)',
        '  rule naptr applies -> TLS: NAPTR 50 50 SIPS+D2T -> _sips._tcp.biloxi.example (TLS)',
        '',
        'Targets: 3, tls by rule naptr (1 round trip, 6 queries)',
        '  #  transport  address        port  priority  weight  host                   source  dnssec    expires',
        '  1  tls        203.0.113.11   5061  10        60      sip1.biloxi.example    naptr   insecure  in 3600 s',
        '  2  tls        203.0.113.12   5061  10        40      sip2.biloxi.example    naptr   insecure  in 3600 s',
        '  3  tls        198.51.100.50  5061  20        0       backup.biloxi.example  naptr   insecure  in 3600 s',
        '  DNSSEC: targets 1, 2, 3 through NAPTR biloxi.example (insecure)',
        '',
        'Warnings: none',
        '',
      ].join('\n'),
    );
  });

  it('a literal says it never expires; maddr is named as the TARGET; families follow the options', async () => {
    const { locator } = setup({ ipv6: false });
    const text = renderStepThrough(
      await locator.resolve('sip:bob@biloxi.example;maddr=192.0.2.7', { stepThrough: true }),
    );
    expect(text).toContain('  TARGET 192.0.2.7 (the maddr parameter)\n  client: udp, tcp, tls; IPv4 only\n');
    expect(text).toContain('  1  udp        192.0.2.7  5060  0         0       192.0.2.7  literal  insecure  never\n');
    expect(text).toContain(
      "  ! the URI's TARGET is the IP address 192.0.2.7: one target, no DNS, no failover [ip-literal]\n",
    );
    expect(text).toContain('Targets: 1, udp by rule ip-literal (0 round trips, 0 queries)');
  });
});

describe('renderStepThrough: off-nominal', () => {
  it('no targets: the reason and its code, and the warnings', async () => {
    const { locator } = setup();
    const text = renderStepThrough(await locator.resolve('sip:bob@biloxi.example:5060', { stepThrough: true }));
    expect(text).toBe(
      [
        'sip:bob@biloxi.example:5060',
        "  TARGET biloxi.example (the URI's host)",
        '  client: udp, tcp, tls; IPv4 and IPv6, AAAA first',
        '',
        'Steps',
        '  rule port applies -> UDP: the URI gives port 5060: UDP for a SIP URI, A/AAAA at that port, no SRV (RFC ' +
          '3263 sections 4.1, 4.2)',
        '  [round 1] biloxi.example AAAA: NODATA, negative TTL 300',
        '  [round 1] biloxi.example A: NODATA, negative TTL 300',
        '',
        'No targets: biloxi.example has no AAAA or A record [SIP_ERR_NO_TARGETS]',
        '',
        'Warnings',
        '  ! the URI gives port 5060: NAPTR and SRV are not used, so there is no DNS load sharing or priority ' +
          'failover (remove the port to get them) [port-in-uri]',
        '',
      ].join('\n'),
    );
  });

  it('failed, bogus, aliased and secure answers are shown for what they are', async () => {
    const { TimeoutError } = await import('@dnscore/core');
    const { locator } = setup({
      recording: {
        fail: { 'biloxi.example NAPTR': new TimeoutError('no server answered') },
        bogus: ['_sips._tcp.biloxi.example SRV'],
        secure: ['_sip._tcp.biloxi.example SRV'],
      },
    });
    const text = renderStepThrough(await locator.resolve('sip:bob@biloxi.example', { stepThrough: true }));
    expect(text).toContain('  [round 1] biloxi.example NAPTR: no answer (DNS_ERR_TIMEOUT: no server answered)\n');
    expect(text).toContain(
      '  [round 1] _sips._tcp.biloxi.example SRV: NOERROR, DNSSEC BOGUS (signature over _sips._tcp.biloxi.example ' +
        'SRV expired): not used\n',
    );
    expect(text).toContain('  [round 1] _sip._tcp.biloxi.example SRV: NOERROR, 3 records, TTL 3600, secure\n');
    expect(text).toContain('No targets: the SRV answer for _sips._tcp.biloxi.example is DNSSEC-bogus');
    const alias = renderStepThrough(
      await setup({ ipv6: false }).locator.resolve('sip:bob@alias.cases.example;transport=udp', { stepThrough: true }),
    );
    expect(alias).toContain(
      '  [round 2] www.alias.cases.example A: NOERROR, 1 record, TTL 3600, alias of real.alias.cases.example\n',
    );
    expect(alias).toContain(
      '  ! SRV target www.alias.cases.example (_sip._udp.alias.cases.example) is an alias of ' +
        'real.alias.cases.example: RFC 2782 forbids aliases; followed [srv-target-alias]\n',
    );
    const skipped = renderStepThrough(
      await setup().locator.resolve('sip:bob@noaddr.cases.example;transport=udp', { stepThrough: true }),
    );
    expect(skipped).toContain(
      '  skipped ghost.noaddr.cases.example:5060 UDP: ghost.noaddr.cases.example has no A or AAAA address\n',
    );
    expect(skipped).toContain('  skipped live.noaddr.cases.example:0 UDP: port 0 in _sip._udp.noaddr.cases.example\n');
  });
});
