/**
 * A bogus DNSSEC answer, from real libunbound validating a zone changed after signing, is never
 * usable data and never falls back to the non-validating system backend: through the core, the
 * SIP layer, the PJSIP-style adapter and the CLI. The system backend is registered behind
 * libunbound and points at the same server, so a fallback would be seen (and would "work").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore } from '@dnscore/core';
import { createPjsipAdapter } from '@dnscore/pjsip-adapter';
import { SystemResolver } from '@dnscore/resolver-system';
import { UnboundResolver } from '@dnscore/resolver-unbound';
import { SipLocator } from '@dnscore/sip';
import { dnscore } from '../packages/cli/test/support.js';
import { alterRecord, signZone, type SignedZone } from './support/dnssec.js';
import { startNsd, type NsdServer } from './support/nsd.js';
import { resolveOnce } from './support/pjsip-consumer.js';

const ZONE = `$ORIGIN layers.example.
$TTL 3600
@          IN SOA  ns1 hostmaster 1 7200 900 1209600 300
           IN NS   ns1
ns1        IN A    127.0.0.1
@          IN NAPTR 10 10 "s" "SIP+D2U" "" _sip._udp
_sip._udp  IN SRV  10 60 5060 sip1
sip1       IN A    192.0.2.11
`;

let nsd: NsdServer;
let zone: SignedZone;
let system: SystemResolver;
let core: DnsCore;

beforeAll(async () => {
  // The SRV record is changed after signing: its RRSIG no longer matches.
  zone = alterRecord(await signZone('layers.example', ZONE), {
    name: '_sip._udp.layers.example.',
    type: 'SRV',
    data: '10 60 5060 evil.layers.example.',
  });
  nsd = await startNsd([{ name: 'layers.example', text: zone.text }]);
  system = new SystemResolver({ nameservers: [nsd.endpoint] });
  const unbound = new UnboundResolver({
    nameservers: [nsd.endpoint],
    resolvConf: false,
    hosts: false,
    trustAnchors: [zone.ds],
  });
  core = new DnsCore([unbound, system]);
});
afterAll(async () => {
  await core?.close();
  await nsd?.stop();
});

describe('a bogus answer through every layer', () => {
  it('core: bogus with the reason, no records, the system backend never asked', async () => {
    const result = await core.resolve('_sip._udp.layers.example', 'SRV');
    expect(result).toMatchObject({ bogus: true, secure: false, resolver: 'unbound', records: [], additional: [] });
    expect(result.whyBogus).toMatch(/validation failure/);
    expect(system.stats.queries).toBe(0);
  });

  it('sip: no target, SIP_ERR_BOGUS, no fallback to other data for that name', async () => {
    const resolution = await new SipLocator(core, { transports: ['udp'], ipv6: false }).resolve(
      'sip:bob@layers.example',
    );
    expect(resolution.targets).toEqual([]);
    expect(resolution.error?.code).toBe('SIP_ERR_BOGUS');
    expect(system.stats.queries).toBe(0);
  });

  it('pjsip-adapter: the PJSIP callback gets an error status and no address', async () => {
    const { status, addresses } = await resolveOnce(createPjsipAdapter(core), 'sip:bob@layers.example');
    expect(status).not.toBe(0);
    expect((addresses ?? { count: 0 }) as object).toMatchObject({ count: 0 });
    expect(system.stats.queries).toBe(0);
  });

  it('CLI: exit 4 for resolve and for sip, under --resolver auto with the system backend behind', async () => {
    const flags = ['--resolver', 'auto', '--server', nsd.endpoint, '--trust-anchor', zone.ds];
    const resolve = await dnscore('resolve', '_sip._udp.layers.example', '--type', 'SRV', ...flags);
    expect(resolve.code).toBe(4);
    expect(resolve.stdout).not.toContain('evil');
    const sip = await dnscore('sip', 'sip:bob@layers.example', '--transports', 'udp', '--no-ipv6', ...flags);
    expect(sip.code).toBe(4);
    expect(sip.stderr).toMatch(/SIP_ERR_BOGUS/);
  });

  it('the untouched records of the zone are secure', async () => {
    const result = await core.resolve('sip1.layers.example', 'A');
    expect(result).toMatchObject({ secure: true, bogus: false });
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.11']);
  });
});
