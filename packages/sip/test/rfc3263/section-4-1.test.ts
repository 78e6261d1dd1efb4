/** RFC 3263 section 4.1, Selecting a Transport Protocol: every MUST, SHOULD and MAY, through the zone resolver. */
import { describe, expect, it } from 'vitest';
import { SipsWithoutTlsError, UnsupportedTransportError } from '../../src/errors.js';
import { lines, setup } from '../support/fixtures.js';

const sorted = (xs: string[]): string[] => [...xs].sort();

describe(
  '"If the URI specifies a transport protocol in the transport parameter, that transport protocol SHOULD be ' + 'used"',
  () => {
    it.each([
      ['sip:bob@biloxi.example;transport=udp', 'udp', '_sip._udp.biloxi.example SRV', 5060],
      ['sip:bob@biloxi.example;transport=tcp', 'tcp', '_sip._tcp.biloxi.example SRV', 5060],
      ['sip:bob@biloxi.example;transport=tls', 'tls', '_sips._tcp.biloxi.example SRV', 5061],
      ['sips:bob@biloxi.example;transport=tcp', 'tls', '_sips._tcp.biloxi.example SRV', 5061],
      ['sips:bob@biloxi.example;transport=tls', 'tls', '_sips._tcp.biloxi.example SRV', 5061],
    ])('%s -> %s, no NAPTR', async (uri, transport, srv, port) => {
      const { locator, plugin } = setup();
      const resolution = await locator.resolve(uri, { stepThrough: true });
      expect(resolution.rule).toBe('transport-param');
      expect(resolution.transport).toBe(transport);
      expect(sorted(plugin.asked)).toEqual(sorted([srv, 'biloxi.example AAAA', 'biloxi.example A']));
      expect(sorted(lines(resolution.targets))).toEqual(
        sorted([
          `${transport} 203.0.113.11:${port} sip1.biloxi.example`,
          `${transport} 203.0.113.12:${port} sip2.biloxi.example`,
          `${transport} 198.51.100.50:${port} backup.biloxi.example`,
        ]),
      );
    });

    it('transport=tls is honoured but reported as deprecated (RFC 3261 section 26.2.2)', async () => {
      const { locator } = setup();
      const resolution = await locator.resolve('sip:bob@biloxi.example;transport=tls', { stepThrough: true });
      expect(resolution.warnings).toContainEqual({
        code: 'transport-tls-deprecated',
        message: 'transport=tls is deprecated (RFC 3261 section 26.2.2): use a sips: URI for TLS',
      });
    });

    it('on a sips: URI the advice is to drop the parameter, not to use sips:', async () => {
      const { locator } = setup();
      const resolution = await locator.resolve('sips:bob@biloxi.example;transport=tls');
      expect(resolution.warnings).toContainEqual({
        code: 'transport-tls-deprecated',
        message:
          'transport=tls is deprecated (RFC 3261 section 26.2.2): a sips: URI means TLS already; drop the parameter',
      });
    });

    it.each([
      [
        'sip:bob@biloxi.example;transport=sctp',
        ['udp', 'tcp', 'tls'],
        'transport=sctp is not a transport this client implements (udp, tcp, tls)',
      ],
      [
        'sip:bob@biloxi.example;transport=ws',
        ['udp', 'tcp', 'tls'],
        'transport=ws is not a transport this client implements (udp, tcp, tls)',
      ],
      ['sip:bob@biloxi.example;transport=tcp', ['udp'], 'transport=tcp asks for TCP but the client supports only udp'],
      [
        'sip:192.0.2.1;transport=tls',
        ['udp', 'tcp'],
        'transport=tls asks for TLS but the client supports only udp, tcp',
      ],
      [
        'sips:bob@biloxi.example;transport=udp',
        ['udp', 'tcp', 'tls'],
        'a SIPS URI cannot use transport=udp: SIPS needs TLS, which runs over TCP',
      ],
    ] as const)('%s with transports %j fails at once: %s', async (uri, transports, message) => {
      const { locator, plugin } = setup({ transports: [...transports] });
      const resolution = await locator.resolve(uri, { stepThrough: true });
      expect(resolution.error).toBeInstanceOf(UnsupportedTransportError);
      expect(resolution.error?.code).toBe('SIP_ERR_UNSUPPORTED_TRANSPORT');
      expect(resolution.error?.message).toBe(message);
      expect(resolution.targets).toEqual([]);
      expect(plugin.asked).toEqual([]);
    });
  },
);

describe(
  '"if no transport protocol is specified, but the TARGET is a numeric IP address, the client SHOULD use UDP ' +
    'for a SIP URI, and TCP for a SIPS URI"',
  () => {
    it('sip: -> UDP, sips: -> TLS over TCP; no DNS', async () => {
      const { locator, plugin } = setup();
      expect(lines((await locator.resolve('sip:bob@192.0.2.1', { stepThrough: true })).targets)).toEqual([
        'udp 192.0.2.1:5060 192.0.2.1',
      ]);
      expect(lines((await locator.resolve('sips:bob@[2001:db8::1]', { stepThrough: true })).targets)).toEqual([
        'tls [2001:db8::1]:5061 2001:db8::1',
      ]);
      expect(plugin.asked).toEqual([]);
    });

    it('"another transport, such as TCP, MAY be used": a client without UDP uses TCP', async () => {
      const { locator } = setup({ transports: ['tcp', 'tls'] });
      expect(lines((await locator.resolve('sip:192.0.2.1', { stepThrough: true })).targets)).toEqual([
        'tcp 192.0.2.1:5060 192.0.2.1',
      ]);
    });

    it('SIPS with no TLS fails at once: SIPS needs TLS end to end', async () => {
      const { locator, plugin } = setup({ transports: ['udp', 'tcp'] });
      const resolution = await locator.resolve('sips:bob@biloxi.example', { stepThrough: true });
      expect(resolution.error).toBeInstanceOf(SipsWithoutTlsError);
      expect(resolution.error?.code).toBe('SIP_ERR_SIPS_WITHOUT_TLS');
      expect(plugin.asked).toEqual([]);
    });
  },
);

describe(
  '"if no transport protocol is specified, and the TARGET is not numeric, but an explicit port is provided, ' +
    'the client SHOULD use UDP for a SIP URI, and TCP for a SIPS URI"',
  () => {
    it('sip:host:port -> UDP at that port; sips:host:port -> TLS at that port; only A/AAAA asked', async () => {
      const { locator, plugin } = setup();
      const sip = await locator.resolve('sip:bob@nosrv.cases.example:5070', { stepThrough: true });
      expect(sip.rule).toBe('port');
      expect(lines(sip.targets)).toEqual([
        'udp [2001:db8::20]:5070 nosrv.cases.example',
        'udp 192.0.2.20:5070 nosrv.cases.example',
      ]);
      const sips = await locator.resolve('sips:bob@nosrv.cases.example:5071', { stepThrough: true });
      expect(lines(sips.targets)).toEqual([
        'tls [2001:db8::20]:5071 nosrv.cases.example',
        'tls 192.0.2.20:5071 nosrv.cases.example',
      ]);
      // Two resolutions without a cache: each asked A/AAAA and nothing else.
      expect(plugin.asked).toEqual([
        'nosrv.cases.example AAAA',
        'nosrv.cases.example A',
        'nosrv.cases.example AAAA',
        'nosrv.cases.example A',
      ]);
    });

    it(
      '"another transport, such as TCP, MAY be used if ... requests exceed the path MTU": a large request goes over ' +
        'TCP',
      async () => {
        const { locator } = setup();
        const attempt = await locator.cursor('sip:bob@nosrv.cases.example:5070', { messageSize: 1400 }).next();
        expect(attempt).toMatchObject({
          switched: true,
          target: { transport: 'tcp', address: '2001:db8::20', port: 5070 },
          resolved: { transport: 'udp' },
        });
      },
    );
  },
);

describe(
  '"if no transport protocol or port is specified, and the target is not a numeric IP address, the client ' +
    'SHOULD perform a NAPTR query"',
  () => {
    it('asks NAPTR for the domain', async () => {
      const { locator, plugin } = setup();
      await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
      expect(plugin.asked[0]).toBe('biloxi.example NAPTR');
    });

    it(
      '"the most preferred transport protocol of the server that is supported by the client": TLS for the ' +
        'walk-through zone',
      async () => {
        const { locator } = setup();
        const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
        expect(resolution.rule).toBe('naptr');
        expect(resolution.transport).toBe('tls');
        expect(resolution.targets.map((t) => t.port)).toEqual([5061, 5061, 5061]);
      },
    );

    it('within the lowest order, the lowest preference; flags and services in any case', async () => {
      const { locator } = setup({ transports: ['udp', 'tcp'] });
      // sameorder: order 10 holds SIPS+D2T (pref 10, no TLS here) and "S" "sip+d2t" (pref 20); order 20 holds SIP+D2U.
      const resolution = await locator.resolve('sip:bob@sameorder.cases.example', { stepThrough: true });
      expect(lines(resolution.targets)).toEqual(['tcp 192.0.2.90:5060 s1.sameorder.cases.example']);
    });
  },
);

describe('"a client resolving a SIPS URI MUST discard any services that do not contain "SIPS" as the protocol"', () => {
  it('SIP+D2U of a lower order is discarded; SIPS+D2T is used', async () => {
    const { locator } = setup();
    const resolution = await locator.resolve('sips:bob@sipsuri.cases.example', { stepThrough: true });
    expect(resolution.rule).toBe('naptr');
    expect(lines(resolution.targets)).toEqual(['tls 192.0.2.110:5061 x1.sipsuri.cases.example']);
    expect(resolution.steps).toContainEqual({
      kind: 'naptr',
      record: '10 10 "s" "SIP+D2U" "" _sip._udp.sipsuri.cases.example.',
      outcome: 'ignored',
      reason: 'a SIPS URI keeps only SIPS services (RFC 3263 section 4.1: MUST discard "SIP+D2U")',
    });
  });

  it('"The converse is not true": a SIP URI follows the lowest order, here UDP', async () => {
    const { locator } = setup();
    expect(lines((await locator.resolve('sip:bob@sipsuri.cases.example', { stepThrough: true })).targets)).toEqual([
      'udp 192.0.2.110:5060 x1.sipsuri.cases.example',
    ]);
  });
});

describe(
  '"A client resolving a SIP URI SHOULD retain records with "SIPS" as the protocol, if the client supports ' + 'TLS"',
  () => {
    it('with TLS: SIPS+D2T is kept and chosen', async () => {
      const { locator } = setup();
      expect((await locator.resolve('sip:bob@biloxi.example', { stepThrough: true })).transport).toBe('tls');
    });

    it('without TLS: SIPS+D2T is discarded, SIP+D2T is chosen', async () => {
      const { locator } = setup({ transports: ['udp', 'tcp'] });
      const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
      expect(resolution.transport).toBe('tcp');
      expect(resolution.steps).toContainEqual({
        kind: 'naptr',
        record: '50 50 "s" "SIPS+D2T" "" _sips._tcp.biloxi.example.',
        outcome: 'ignored',
        reason: 'the client does not support TLS, so SIPS services are discarded (RFC 3263 section 4.1)',
      });
    });
  },
);

describe(
  '"a client MUST discard any service fields that identify a resolution service whose value is not "D2X", for ' +
    'values of X that indicate transport protocols supported by the client"',
  () => {
    it('a UDP-only client keeps only SIP+D2U', async () => {
      const { locator } = setup({ transports: ['udp'] });
      const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
      expect(resolution.transport).toBe('udp');
      expect(resolution.steps.filter((s) => s.kind === 'naptr').map((s) => s.kind === 'naptr' && s.outcome)).toEqual([
        'ignored',
        'ignored',
        'chosen',
      ]);
    });

    it('SIP+D2S (SCTP), non-terminal, "u", "a" and regexp records are discarded', async () => {
      const { locator } = setup();
      const resolution = await locator.resolve('sip:bob@unusable.cases.example', { stepThrough: true });
      const naptr = resolution.steps.flatMap((s) => (s.kind === 'naptr' ? [[s.record, s.outcome, s.reason]] : []));
      expect(naptr).toEqual([
        [
          '10 10 "" "SIP+D2U" "" _sip._udp.unusable.cases.example.',
          'ignored',
          'flags "" are not "s": RFC 3263 follows terminal records that point to SRV',
        ],
        [
          '10 20 "u" "E2U+sip" "!^.*$!sip:info@unusable.cases.example!" .',
          'ignored',
          'flags "u" are not "s": RFC 3263 follows terminal records that point to SRV',
        ],
        [
          '10 30 "s" "SIP+D2S" "" _sip._sctp.unusable.cases.example.',
          'ignored',
          'service "SIP+D2S" uses a transport this client does not implement (only SIPS+D2T, SIP+D2T, SIP+D2U)',
        ],
        [
          '10 40 "a" "SIP+D2T" "" u2.unusable.cases.example.',
          'ignored',
          'flags "a" are not "s": RFC 3263 follows terminal records that point to SRV',
        ],
        [
          '10 50 "s" "SIP+D2U" "!^.*$!_sip._udp.unusable!" .',
          'ignored',
          'it has no replacement (a regexp record does not name an SRV owner)',
        ],
      ]);
      expect(resolution.rule).toBe('srv');
      expect(lines(resolution.targets)).toEqual(['udp 192.0.2.80:5060 u1.unusable.cases.example']);
    });

    it('a discarded record of a lower order does not capture the order (SIP+D2S at order 5)', async () => {
      const { locator } = setup();
      const resolution = await locator.resolve('sip:bob@sameorder.cases.example', { stepThrough: true });
      expect(resolution.rule).toBe('naptr');
      expect(resolution.transport).toBe('tcp');
    });
  },
);

describe(
  '"If no NAPTR records are found, the client constructs SRV queries for those transport protocols it ' + 'supports"',
  () => {
    it('"_sip" for SIP URIs, one query per supported transport, "_sips" for TLS', async () => {
      const { locator, plugin } = setup();
      await locator.resolve('sip:bob@nonaptr.cases.example', { stepThrough: true });
      expect(plugin.asked.filter((q) => q.endsWith('SRV'))).toEqual([
        '_sips._tcp.nonaptr.cases.example SRV',
        '_sip._tcp.nonaptr.cases.example SRV',
        '_sip._udp.nonaptr.cases.example SRV',
      ]);
    });

    it('"_sips" for SIPS URIs, and only that', async () => {
      const { locator, plugin } = setup();
      await locator.resolve('sips:bob@nonaptr.cases.example', { stepThrough: true });
      expect(plugin.asked.filter((q) => q.endsWith('SRV'))).toEqual(['_sips._tcp.nonaptr.cases.example SRV']);
    });

    it('only the transports the client supports are asked about', async () => {
      const { locator, plugin } = setup({ transports: ['udp'] });
      await locator.resolve('sip:bob@nonaptr.cases.example', { stepThrough: true });
      expect(plugin.asked.filter((q) => q.endsWith('SRV'))).toEqual(['_sip._udp.nonaptr.cases.example SRV']);
    });

    it('"A particular transport is supported if the query is successful": TCP then UDP here, no TLS', async () => {
      const { locator } = setup();
      const resolution = await locator.resolve('sip:bob@nonaptr.cases.example', { stepThrough: true });
      expect(resolution.rule).toBe('srv');
      expect(resolution.transport).toBe('tcp');
      expect(lines(resolution.targets)).toEqual([
        'tcp 192.0.2.2:5062 t1.nonaptr.cases.example',
        'udp [2001:db8::1]:5060 u1.nonaptr.cases.example',
        'udp 192.0.2.1:5060 u1.nonaptr.cases.example',
      ]);
    });
  },
);

describe('"If no SRV records are found, the client SHOULD use TCP for a SIPS URI, and UDP for a SIP URI"', () => {
  it('sip: -> UDP at 5060, sips: -> TLS at 5061', async () => {
    const { locator } = setup();
    const sip = await locator.resolve('sip:bob@nosrv.cases.example', { stepThrough: true });
    expect(sip.rule).toBe('host');
    expect(lines(sip.targets)).toEqual([
      'udp [2001:db8::20]:5060 nosrv.cases.example',
      'udp 192.0.2.20:5060 nosrv.cases.example',
    ]);
    const sips = await locator.resolve('sips:bob@nosrv.cases.example', { stepThrough: true });
    expect(lines(sips.targets)).toEqual([
      'tls [2001:db8::20]:5061 nosrv.cases.example',
      'tls 192.0.2.20:5061 nosrv.cases.example',
    ]);
  });

  it('"another transport protocol, such as TCP, MAY be used": a client without UDP uses TCP', async () => {
    const { locator } = setup({ transports: ['tcp'] });
    expect(lines((await locator.resolve('sip:bob@nosrv.cases.example', { stepThrough: true })).targets)).toEqual([
      'tcp [2001:db8::20]:5060 nosrv.cases.example',
      'tcp 192.0.2.20:5060 nosrv.cases.example',
    ]);
  });
});
