/**
 * The transport table of the issue, row by row: the first rule that applies wins, and each rule
 * that does not is passed with its reason.
 */
import { describe, expect, it } from 'vitest';
import type { SipLocatorOptions } from '../src/locator.js';
import type { SipTransport } from '../src/transport.js';
import { setup } from './support/fixtures.js';

const rules = async (uri: string, options: SipLocatorOptions = {}): Promise<string[]> => {
  const resolution = await setup(options).locator.resolve(uri);
  return resolution.steps.flatMap((s) =>
    s.kind === 'rule' ? [`${s.rule} ${s.outcome}${s.transport ? ` ${s.transport}` : ''}`] : [],
  );
};

describe('the transport table: nominal', () => {
  it.each([
    // [row, uri, transports, rule, transport, first target]
    ['transport=', 'sip:bob@biloxi.example;transport=tcp', undefined, 'transport-param', 'tcp', '5060'],
    ['IP literal, sip', 'sip:bob@192.0.2.1', undefined, 'ip-literal', 'udp', '192.0.2.1:5060'],
    ['IP literal, sips', 'sips:bob@192.0.2.1', undefined, 'ip-literal', 'tls', '192.0.2.1:5061'],
    ['explicit port, sip', 'sip:bob@nosrv.cases.example:5099', undefined, 'port', 'udp', '[2001:db8::20]:5099'],
    ['explicit port, sips', 'sips:bob@nosrv.cases.example:5099', undefined, 'port', 'tls', '[2001:db8::20]:5099'],
    ['NAPTR', 'sip:bob@biloxi.example', undefined, 'naptr', 'tls', '5061'],
    ['NAPTR, client without TLS', 'sip:bob@biloxi.example', ['udp', 'tcp'], 'naptr', 'tcp', '5060'],
    ['NAPTR, next of the same order', 'sip:bob@sameorder.cases.example', undefined, 'naptr', 'tcp', '192.0.2.90:5060'],
    ['no usable NAPTR -> SRV', 'sip:bob@unusable.cases.example', undefined, 'srv', 'udp', '192.0.2.80:5060'],
    ['no NAPTR -> SRV', 'sip:bob@nonaptr.cases.example', undefined, 'srv', 'tcp', '192.0.2.2:5062'],
    ['no SRV -> A/AAAA, sip', 'sip:bob@nosrv.cases.example', undefined, 'host', 'udp', '[2001:db8::20]:5060'],
    ['no SRV -> A/AAAA, sips', 'sips:bob@nosrv.cases.example', undefined, 'host', 'tls', '[2001:db8::20]:5061'],
    ['NAPTR with no address -> SRV', 'sip:bob@fallback.cases.example', undefined, 'srv', 'tcp', '192.0.2.100:5060'],
    [
      'NAPTR with no address -> A/AAAA',
      'sip:bob@fallback-host.cases.example',
      undefined,
      'host',
      'udp',
      '192.0.2.101:5060',
    ],
  ] as [string, string, SipTransport[] | undefined, string, string, string][])(
    '%s: %s',
    async (_row, uri, transports, rule, transport, first) => {
      const resolution = await setup(transports ? { transports } : {}).locator.resolve(uri);
      expect(resolution.error).toBeUndefined();
      expect(resolution.rule).toBe(rule);
      expect(resolution.transport).toBe(transport);
      const t = resolution.targets[0]!;
      expect(`${t.family === 6 ? `[${t.address}]` : t.address}:${t.port}`).toContain(first);
    },
  );

  it('each rule that does not apply says so, in order', async () => {
    expect(await rules('sip:bob@nosrv.cases.example')).toEqual(['naptr passed', 'srv passed', 'host applies udp']);
    expect(await rules('sip:bob@nonaptr.cases.example')).toEqual(['naptr passed', 'srv applies tcp']);
    expect(await rules('sip:bob@fallback.cases.example')).toEqual(['naptr passed', 'srv applies tcp']);
    expect(await rules('sip:bob@biloxi.example')).toEqual(['naptr applies tls']);
    expect(await rules('sip:bob@biloxi.example:5070')).toEqual(['port applies udp']);
  });

  it('a SIP URI with SRV for several transports lists them TLS, TCP, UDP', async () => {
    const resolution = await setup({
      recording: { fail: { 'biloxi.example NAPTR': new Error('lost') } },
    }).locator.resolve('sip:bob@biloxi.example');
    expect(resolution.rule).toBe('srv');
    expect(resolution.targets.map((t) => t.transport)).toEqual([
      'tls',
      'tls',
      'tls',
      'tcp',
      'tcp',
      'tcp',
      'udp',
      'udp',
      'udp',
    ]);
  });
});

describe('the transport table: off-nominal', () => {
  it('sips: without TLS fails at once, with no question asked', async () => {
    const { locator, plugin } = setup({ transports: ['udp', 'tcp'] });
    const resolution = await locator.resolve('sips:bob@biloxi.example');
    expect(resolution.error?.code).toBe('SIP_ERR_SIPS_WITHOUT_TLS');
    expect(resolution.rule).toBeUndefined();
    expect(plugin.asked).toEqual([]);
  });

  it('an IP literal of a family that is off', async () => {
    const resolution = await setup({ ipv6: false }).locator.resolve('sip:[2001:db8::1]');
    expect(resolution.error?.code).toBe('SIP_ERR_ADDRESS_FAMILY');
  });

  it('no record anywhere: the host rule applies and finds nothing', async () => {
    const resolution = await setup().locator.resolve('sip:bob@nx.cases.example');
    expect(resolution.rule).toBe('host');
    expect(resolution.error?.message).toBe('nx.cases.example has no AAAA or A record');
  });

  it('a name no resolver holds: every question fails, no targets', async () => {
    const resolution = await setup().locator.resolve('sip:bob@unknown.invalid');
    expect(resolution.error?.code).toBe('SIP_ERR_NO_TARGETS');
    expect(resolution.warnings.every((w) => w.code === 'dns-error' || w.code === 'no-srv')).toBe(true);
  });
});
