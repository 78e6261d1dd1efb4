/**
 * Bounded fan-out: a hostile or careless zone with many NAPTR or SRV records costs a bounded
 * number of queries; what is left out is said in a warning.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, InvalidArgumentError, ZoneResolver, seededRandom } from '@dnscore/core';
import { SipLocator } from '../src/locator.js';
import { recording } from './support/recording-plugin.js';

const HEAD = '$ORIGIN fan.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\n';
const manyNaptr = Array.from(
  { length: 40 },
  (_, i) => `naptr IN NAPTR 10 ${i} "s" "SIP+D2U" "" _sip._udp.n${i}\n`,
).join('');
const manySrv = Array.from(
  { length: 40 },
  (_, i) => `_sip._udp.srv IN SRV 10 1 5060 t${i}\nt${i} IN A 192.0.2.${i + 1}\n`,
).join('');

function locatorFor(options: ConstructorParameters<typeof SipLocator>[1] = {}) {
  const plugin = recording(new ZoneResolver({ zones: [{ text: HEAD + manyNaptr + manySrv }] }));
  return {
    plugin,
    locator: new SipLocator(new DnsCore([plugin], { random: seededRandom(3) }), {
      ipv6: false,
      transports: ['udp'],
      ...options,
    }),
  };
}

describe('fan-out bounds', () => {
  it('follows at most 16 usable NAPTR records of one order (one SRV query each)', async () => {
    const { plugin, locator } = locatorFor();
    const resolution = await locator.resolve('sip:bob@naptr.fan.example');
    const srvAsked = plugin.asked.filter((q) => /^_sip\._udp\.n\d+\./.test(q));
    expect(srvAsked).toHaveLength(16);
    expect(resolution.warnings.map((w) => w.code)).toContain('naptr-records-capped');
  });

  it('expands at most 16 records of one SRV answer', async () => {
    const { plugin, locator } = locatorFor();
    const resolution = await locator.resolve('sip:bob@srv.fan.example');
    expect(resolution.targets).toHaveLength(16);
    expect(plugin.asked.filter((q) => / A$/.test(q) && q.startsWith('t'))).toHaveLength(16);
    expect(resolution.warnings).toContainEqual({
      code: 'srv-records-capped',
      message: '_sip._udp.srv.fan.example has 40 SRV records; only the first 16 (in RFC 2782 order) are expanded',
    });
  });

  it('takes other bounds as options, and refuses nonsense', async () => {
    const { plugin, locator } = locatorFor({ maxNaptrRecords: 2, maxSrvRecords: 3 });
    expect((await locator.resolve('sip:bob@srv.fan.example')).targets).toHaveLength(3);
    await locator.resolve('sip:bob@naptr.fan.example');
    expect(plugin.asked.filter((q) => /^_sip\._udp\.n\d+\./.test(q))).toHaveLength(2);
    expect(() => locatorFor({ maxSrvRecords: 0 })).toThrow(InvalidArgumentError);
  });
});
