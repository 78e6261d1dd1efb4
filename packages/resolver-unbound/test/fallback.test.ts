/**
 * Selection and fallback through the core's registry, with a second, non-validating backend
 * registered after libunbound (the core's ZoneResolver, with different data, priority 200):
 * unavailable addon -> the second answers, said once; libunbound error -> the second
 * answers; bogus or an insecure answer under requireSecure -> the second is never asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore, NoResolverError, ZoneResolver, type Logger } from '@dnscore/core';
import { UnboundResolver, resolverOnBinding } from '../src/unbound-resolver.js';
import type { UnboundBinding } from '../src/binding.js';
import { loadUnboundBinding } from '../src/binding.js';
import type { UnboundOptions } from '../src/options.js';
import { counting, type CountingPlugin } from './support/counting.js';
import { startRig, type Rig } from './support/rig.js';

/** The same names with other data: if it ever answers, the addresses show it. */
const SECOND = `$ORIGIN test.
$TTL 60
@              IN SOA ns hostmaster 1 7200 900 1209600 60
               IN NS  ns
ns             IN A   127.0.0.1
sip1.biloxi    IN A   198.51.100.11
sip1.bogus     IN A   198.51.100.31
www.plain      IN A   198.51.100.80
`;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.stop();
});

function setup(
  options: UnboundOptions,
  binding?: UnboundBinding,
): { dns: DnsCore; second: CountingPlugin; warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger = { info() {}, warn: (line) => warnings.push(line) };
  const second = counting(
    new ZoneResolver({ name: 'second', priority: 200, zones: [{ text: SECOND, file: 'second.zone' }] }),
  );
  const unbound = binding ? resolverOnBinding(binding, options) : new UnboundResolver(options);
  const dns = new DnsCore([unbound, second], { logger });
  return { dns, second, warnings };
}

describe('fallback', () => {
  it(
    'addon unavailable, no validation asked for: the second backend answers, and the registry says why ' + 'once',
    async () => {
      const binding = loadUnboundBinding('/nonexistent/dir');
      // The default (root) anchors: validation where it can be had, not a demand.
      const { trustAnchors: _anchors, ...defaults } = rig.options();
      const { dns, second, warnings } = setup(defaults, binding);
      const first = await dns.resolve('sip1.biloxi.test', 'A');
      const again = await dns.resolve('sip1.bogus.test', 'A');
      expect([first.resolver, first.records.map((r) => r.data), first.secure]).toEqual([
        'second',
        ['198.51.100.11'],
        false,
      ]);
      expect(again.records.map((r) => r.data)).toEqual(['198.51.100.31']);
      expect(second.asked.length).toBe(2);
      expect(warnings).toEqual([
        expect.stringMatching(
          /^dnscore: resolving with "second" \(unbound unavailable: the libunbound addon was not built/,
        ),
      ]);
      await dns.close();
    },
  );

  it.each([
    ['own trust anchors', {}],
    ['requireSecure', { requireSecure: true }],
  ])(
    'addon unavailable, validation asked for (%s): fails closed, the second backend never asked',
    async (_name, extra) => {
      const binding = loadUnboundBinding('/nonexistent/dir');
      const { trustAnchors, ...rest } = rig.options(extra);
      const { dns, second } = setup('requireSecure' in extra ? rest : { ...rest, trustAnchors }, binding);
      const failure = dns.resolve('sip1.biloxi.test', 'A');
      await expect(failure).rejects.toBeInstanceOf(NoResolverError);
      await expect(failure).rejects.toThrow(
        /unbound: the libunbound addon was not built.*second: not asked in place of "unbound", which fails closed/,
      );
      expect(second.asked.length).toBe(0);
      await dns.close();
    },
  );

  it('a libunbound error (no result) falls through to the second backend', async () => {
    const { dns, second } = setup(rig.options({ options: { 'outgoing-port-avoid': '0-65535' } }));
    const result = await dns.resolve('sip1.biloxi.test', 'A');
    expect([result.resolver, result.records.map((r) => r.data)]).toEqual(['second', ['198.51.100.11']]);
    expect(second.asked.length).toBe(1);
    await dns.close();
  });

  it('a bogus answer is final: the second backend is never asked, although it would answer', async () => {
    const { dns, second } = setup(rig.options());
    const result = await dns.resolve('sip1.bogus.test', 'A');
    expect(result).toMatchObject({ resolver: 'unbound', bogus: true, secure: false, records: [] });
    expect(result.whyBogus).toMatch(/sip1\.bogus\.test\. A IN/);
    expect(second.asked).toEqual([]);
    await dns.close();
  });

  it('requireSecure: an insecure answer is a definite error, never passed to the second backend', async () => {
    const { dns, second } = setup(rig.options({ requireSecure: true }));
    await expect(dns.resolve('www.plain.test', 'A')).rejects.toMatchObject({ code: 'DNS_ERR_INSECURE_ANSWER' });
    expect(second.asked).toEqual([]);
    await dns.close();
  });

  it('secure and insecure answers come from libunbound, not the second backend', async () => {
    const { dns, second } = setup(rig.options());
    const secure = await dns.resolve('sip1.biloxi.test', 'A');
    const insecure = await dns.resolve('www.plain.test', 'A');
    expect([secure.resolver, secure.secure, secure.records.map((r) => r.data)]).toEqual([
      'unbound',
      true,
      ['192.0.2.11'],
    ]);
    expect([insecure.resolver, insecure.secure, insecure.records.map((r) => r.data)]).toEqual([
      'unbound',
      false,
      ['192.0.2.80'],
    ]);
    expect(second.asked).toEqual([]);
    await dns.close();
  });
});
