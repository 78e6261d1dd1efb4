/**
 * Reload (Asterisk: each reload builds a new ub_ctx; queries in flight keep the old one):
 * a query held on the wire while the configuration is swapped finishes on the old context,
 * and the next query uses the new one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore } from '@dnscore/core';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { UnboundOptionError } from '../src/errors.js';
import { UnboundResolver } from '../src/unbound-resolver.js';
import { startHoldProxy, type HoldProxy } from './support/hold-proxy.js';
import { labOptions } from './support/lab.js';

const lab = (address: string): string => `$ORIGIN lab.test.
$TTL 300
@    IN SOA ns hostmaster 1 7200 900 1209600 60
     IN NS  ns
ns   IN A   127.0.0.1
pbx  IN A   ${address}
sbc  IN A   ${address}
`;

let before: NsdServer;
let after: NsdServer;
let proxy: HoldProxy;

beforeAll(async () => {
  [before, after] = await Promise.all([
    startNsd([{ name: 'lab.test', text: lab('192.0.2.1') }]),
    startNsd([{ name: 'lab.test', text: lab('192.0.2.2') }]),
  ]);
  proxy = await startHoldProxy(before);
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all([before?.stop(), after?.stop()]);
});

describe('reload', () => {
  it('a query in flight finishes on the old configuration; the next one uses the new', async () => {
    const resolver = new UnboundResolver(labOptions(proxy.server));
    const dns = new DnsCore([resolver]);
    const held = dns.resolve('pbx.lab.test', 'A');
    await proxy.waitFor('pbx.lab.test');
    expect(resolver.inFlight).toBe(1);

    resolver.reload(labOptions(`${after.address}@${after.port}`));
    expect(resolver.generation).toBe(2);
    const fresh = await dns.resolve('sbc.lab.test', 'A');
    expect(fresh.records.map((r) => r.data)).toEqual(['192.0.2.2']);
    expect(proxy.names).not.toContain('sbc.lab.test');

    proxy.release();
    const old = await held;
    expect(old.records.map((r) => r.data)).toEqual(['192.0.2.1']);
    await resolver.drained();
    expect(resolver.inFlight).toBe(0);
    await dns.close();
  });

  it('without arguments it applies the same options again, on a new context', async () => {
    const resolver = new UnboundResolver(labOptions(`${after.address}@${after.port}`));
    resolver.reload();
    expect(resolver.generation).toBe(2);
    const dns = new DnsCore([resolver]);
    expect((await dns.resolve('pbx.lab.test', 'A')).records.map((r) => r.data)).toEqual(['192.0.2.2']);
    await dns.close();
  });

  it('a bad new configuration throws, naming the option, and the old one stays', async () => {
    const resolver = new UnboundResolver(labOptions(`${after.address}@${after.port}`));
    expect(() =>
      resolver.reload({ ...labOptions(`${after.address}@${after.port}`), trustAnchors: ['lab.test. IN DS nonsense'] }),
    ).toThrow(UnboundOptionError);
    expect(() => resolver.reload({ ...labOptions('127.0.0.1'), priority: 5 })).toThrow(
      'unbound option priority: cannot change on reload',
    );
    expect(resolver.generation).toBe(1);
    const dns = new DnsCore([resolver]);
    expect((await dns.resolve('pbx.lab.test', 'A')).records.map((r) => r.data)).toEqual(['192.0.2.2']);
    await dns.close();
  });
});
