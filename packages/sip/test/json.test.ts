/** resolutionToJson: exactly the `dnscore sip --json` shape. */
import { describe, expect, it } from 'vitest';
import { resolutionToJson } from '../src/json.js';
import { ManualClock, setup } from './support/fixtures.js';

describe('resolutionToJson: nominal', () => {
  it('the top-level keys, in order, and targets with numbers for ports, families and expires', async () => {
    const { locator } = setup({ clock: new ManualClock(1_000_000) });
    const json = resolutionToJson(await locator.resolve('sip:bob@nonaptr.cases.example;transport=udp'));
    expect(Object.keys(json)).toEqual(['uri', 'transport', 'targets', 'steps', 'warnings']);
    expect(json.uri).toBe('sip:bob@nonaptr.cases.example;transport=udp');
    expect(json.transport).toBe('udp');
    expect(json.targets).toEqual([
      {
        transport: 'udp',
        host: 'u1.nonaptr.cases.example',
        address: '2001:db8::1',
        family: 6,
        port: 5060,
        priority: 10,
        weight: 10,
        source: 'srv',
        expires: 1_000_000 + 3_600_000,
        dnssec: 'insecure',
        links: [
          { name: '_sip._udp.nonaptr.cases.example', type: 'SRV', dnssec: 'insecure' },
          {
            name: 'u1.nonaptr.cases.example',
            type: 'AAAA',
            dnssec: 'insecure',
            note: 'additional section of _sip._udp.nonaptr.cases.example',
          },
        ],
      },
      {
        transport: 'udp',
        host: 'u1.nonaptr.cases.example',
        address: '192.0.2.1',
        family: 4,
        port: 5060,
        priority: 10,
        weight: 10,
        source: 'srv',
        expires: 1_000_000 + 3_600_000,
        dnssec: 'insecure',
        links: [
          { name: '_sip._udp.nonaptr.cases.example', type: 'SRV', dnssec: 'insecure' },
          {
            name: 'u1.nonaptr.cases.example',
            type: 'A',
            dnssec: 'insecure',
            note: 'additional section of _sip._udp.nonaptr.cases.example',
          },
        ],
      },
    ]);
    expect(json.steps[0]).toEqual({
      kind: 'rule',
      rule: 'transport-param',
      outcome: 'applies',
      transport: 'udp',
      reason: 'the URI says transport=udp (RFC 3263 section 4.1: that transport SHOULD be used)',
    });
    expect(json.warnings).toEqual([]);
  });

  it('round-trips through JSON.stringify unchanged: plain data only', async () => {
    const json = resolutionToJson(await setup().locator.resolve('sip:bob@biloxi.example'));
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it('a literal never expires: null; IPv6 without brackets in RFC 5952 form', async () => {
    const json = resolutionToJson(await setup().locator.resolve('sips:[2001:DB8:0::7]:6000'));
    expect(json.targets).toEqual([
      {
        transport: 'tls',
        host: '2001:db8::7',
        address: '2001:db8::7',
        family: 6,
        port: 6000,
        priority: 0,
        weight: 0,
        source: 'literal',
        expires: null,
        dnssec: 'insecure',
        links: [],
      },
    ]);
  });

  it('draws are added when given, and copied', async () => {
    const draws = { n: 10, first: { 'sip1.biloxi.example': 6, 'sip2.biloxi.example': 4 } };
    const json = resolutionToJson(await setup().locator.resolve('sip:192.0.2.1'), draws);
    expect(Object.keys(json)).toEqual(['uri', 'transport', 'targets', 'steps', 'warnings', 'draws']);
    expect(json.draws).toEqual(draws);
    expect(json.draws).not.toBe(draws);
  });
});

describe('resolutionToJson: off-nominal', () => {
  it('no targets: transport null, targets empty, the steps and warnings kept', async () => {
    const json = resolutionToJson(await setup().locator.resolve('sip:bob@dot.cases.example'));
    expect(json.transport).toBeNull();
    expect(json.targets).toEqual([]);
    expect(json.steps.length).toBeGreaterThan(0);
    expect(json.warnings).toEqual([]);
  });
});
