/** RFC 3263 section 4.2, Determining Port and IP Address. */
import { describe, expect, it } from 'vitest';
import { lines, setup } from '../support/fixtures.js';

describe('"If TARGET is a numeric IP address, the client uses that address"', () => {
  it.each([
    ['sip:192.0.2.1:5070', 'udp 192.0.2.1:5070 192.0.2.1'],
    ['sip:192.0.2.1', 'udp 192.0.2.1:5060 192.0.2.1'],
    ['sip:192.0.2.1;transport=tcp', 'tcp 192.0.2.1:5060 192.0.2.1'],
    ['sip:192.0.2.1;transport=tls', 'tls 192.0.2.1:5061 192.0.2.1'],
    ['sips:[2001:db8::5]:6001', 'tls [2001:db8::5]:6001 2001:db8::5'],
  ])(
    '%s -> %s ("If the URI also contains a port, it uses that port. If no port is specified, it uses the default ' +
      'port")',
    async (uri, target) => {
      const { locator, plugin } = setup();
      const resolution = await locator.resolve(uri, { stepThrough: true });
      expect(lines(resolution.targets)).toEqual([target]);
      expect(resolution.targets[0]).toMatchObject({
        source: 'literal',
        priority: 0,
        weight: 0,
        expires: Number.POSITIVE_INFINITY,
      });
      expect(plugin.asked).toEqual([]);
    },
  );
});

describe(
  '"If the TARGET was not a numeric IP address, but a port is present in the URI, the client performs an A or ' +
    'AAAA record lookup"',
  () => {
    it('"each of which can be contacted at the specific port from the URI"', async () => {
      const { locator } = setup();
      const resolution = await locator.resolve('sip:nosrv.cases.example:5080;transport=tcp', { stepThrough: true });
      expect(resolution.rule).toBe('transport-param');
      expect(lines(resolution.targets)).toEqual([
        'tcp [2001:db8::20]:5080 nosrv.cases.example',
        'tcp 192.0.2.20:5080 nosrv.cases.example',
      ]);
      expect(resolution.targets.every((t) => t.source === 'host')).toBe(true);
    });

    it(
      '"Previously, if the port was explicit, but with a value of 5060, SRV records were used. ' +
        'Now, A or AAAA records will be used"',
      async () => {
        const { locator, plugin } = setup();
        const resolution = await locator.resolve('sip:bob@nonaptr.cases.example:5060', { stepThrough: true });
        expect(lines(resolution.targets)).toEqual(['udp 192.0.2.10:5060 nonaptr.cases.example']);
        expect(plugin.asked).toEqual(['nonaptr.cases.example AAAA', 'nonaptr.cases.example A']);
        expect(resolution.warnings.map((w) => w.code)).toEqual(['port-in-uri']);
      },
    );

    it('"The client SHOULD try the first record. If an attempt should fail ... the next SHOULD be tried"', async () => {
      const { locator } = setup();
      const cursor = locator.cursor('sip:bob@nosrv.cases.example:5070');
      const first = await cursor.next();
      expect(first?.target.address).toBe('2001:db8::20');
      cursor.report(first!, { type: 'response', status: 503 });
      const second = await cursor.next();
      expect(second?.target.address).toBe('192.0.2.20');
      cursor.report(second!, { type: 'transport-error' });
      expect(await cursor.next()).toBeUndefined();
      expect(cursor.state).toBe('exhausted');
    });
  },
);

describe(
  '"If the TARGET was not a numeric IP address, and no port was present in the URI, the client performs an ' +
    'SRV query on the record returned from the NAPTR processing"',
  () => {
    it('the SRV owner the NAPTR names, here in another domain, in a second round trip', async () => {
      const { locator, plugin } = setup();
      const resolution = await locator.resolve('sip:bob@away.cases.example', { stepThrough: true });
      expect(resolution.rule).toBe('naptr');
      expect(lines(resolution.targets)).toEqual([
        'tcp [2001:db8:100::8]:5060 edge.provider.other.example',
        'tcp 198.51.100.8:5060 edge.provider.other.example',
      ]);
      expect(plugin.asked).toContain('_sip._tcp.provider.other.example SRV');
      expect(resolution.roundTrips).toBe(2);
      const srv = resolution.steps.find((s) => s.kind === 'query' && s.name === '_sip._tcp.provider.other.example');
      expect(srv).toMatchObject({ round: 2 });
    });

    it(
      'a transport given explicitly: "_sips" for SIPS URIs, "_sips" for a SIP URI over TLS, "_sip" ' + 'otherwise',
      async () => {
        const { locator, plugin } = setup();
        await locator.resolve('sips:bob@nosrv.cases.example;transport=tcp', { stepThrough: true });
        await locator.resolve('sip:bob@nosrv.cases.example;transport=tls', { stepThrough: true });
        await locator.resolve('sip:bob@nosrv.cases.example;transport=tcp', { stepThrough: true });
        expect(plugin.asked.filter((q) => q.endsWith('SRV'))).toEqual([
          '_sips._tcp.nosrv.cases.example SRV',
          '_sips._tcp.nosrv.cases.example SRV',
          '_sip._tcp.nosrv.cases.example SRV',
        ]);
      },
    );

    it(
      '"If the NAPTR processing was not done because no NAPTR records were found, but an SRV query for a supported ' +
        'transport protocol was successful, those SRV records are selected"',
      async () => {
        const { locator } = setup();
        const resolution = await locator.resolve('sip:bob@nonaptr.cases.example', { stepThrough: true });
        expect(resolution.rule).toBe('srv');
        expect(resolution.targets.every((t) => t.source === 'srv')).toBe(true);
      },
    );

    it('"the procedures of RFC 2782 ... are followed": lowest priority first, the weight-0 backup last', async () => {
      for (let seed = 1; seed <= 20; seed++) {
        const { locator } = setup({ seed });
        const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
        expect(resolution.targets.map((t) => t.priority)).toEqual([10, 10, 20]);
        expect(resolution.targets[2]!.host).toBe('backup.biloxi.example');
      }
    });
  },
);

describe('"If no SRV records were found, the client performs an A or AAAA record lookup of the domain name"', () => {
  it('SRV records that give no usable target fall back too, said to be a deviation', async () => {
    const { locator } = setup();
    const dead = await locator.resolve('sip:bob@deadsrv.cases.example;transport=udp', { stepThrough: true });
    expect(lines(dead.targets)).toEqual(['udp 192.0.2.60:5060 deadsrv.cases.example']);
    expect(dead.warnings.find((w) => w.code === 'no-srv')?.message).toBe(
      'no usable SRV target for _sip._udp.deadsrv.cases.example (2 SRV record(s), none with an address and port): ' +
        'only the A/AAAA records of deadsrv.cases.example at port 5060, so no priority or weight (RFC 3263 would ' +
        'stop here; a listed server is better than none)',
    );
    const walked = await locator.resolve('sip:bob@deadsrv.cases.example', { stepThrough: true });
    expect(lines(walked.targets)).toEqual(['udp 192.0.2.60:5060 deadsrv.cases.example']);
    expect(walked.warnings.find((w) => w.code === 'no-srv')?.message).toMatch(
      /^no usable SRV target for deadsrv\.cases\.example \(2 SRV record\(s\), none with an address and port\)/,
    );
    // A record saying "." declines its transport: that is no SRV record that gave nothing.
    const declined = await locator.resolve('sip:bob@dotudp.cases.example');
    expect(declined.warnings.find((w) => w.code === 'no-srv')?.message).toBe(
      'no SRV records for dotudp.cases.example: only its A/AAAA records at port 5060, so no priority or weight',
    );
    const none = await locator.resolve('sip:bob@nosrv.cases.example;transport=udp');
    expect(none.warnings.find((w) => w.code === 'no-srv')?.message).toBe(
      'no SRV records for _sip._udp.nosrv.cases.example: only the A/AAAA records of nosrv.cases.example at port ' +
        '5060, so no priority or weight',
    );
  });

  it(
    '"each of which can be contacted using the transport protocol determined previously, at the default port for ' +
      'that transport"',
    async () => {
      const { locator } = setup();
      const tcp = await locator.resolve('sip:bob@nosrv.cases.example;transport=tcp', { stepThrough: true });
      expect(lines(tcp.targets)).toEqual([
        'tcp [2001:db8::20]:5060 nosrv.cases.example',
        'tcp 192.0.2.20:5060 nosrv.cases.example',
      ]);
      const tls = await locator.resolve('sip:bob@nosrv.cases.example;transport=tls', { stepThrough: true });
      expect(lines(tls.targets)).toEqual([
        'tls [2001:db8::20]:5061 nosrv.cases.example',
        'tls 192.0.2.20:5061 nosrv.cases.example',
      ]);
    },
  );
});
