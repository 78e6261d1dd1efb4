/**
 * The npm `sip` stack (0.0.6) as a client: it captures dns.resolveSrv, resolve4 and resolve6 when
 * it loads, so the one-line change is to hand it a resolver's bound methods before loading it.
 * Here they are routed to either node:dns's Resolver or NodeDnsResolver, both asking nsd, and the
 * stack's own resolve() must find the same targets through either.
 */
import dns from 'node:dns';
import { createRequire } from 'node:module';
import { DnsCore } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { NodeDnsResolver } from '../src/index.js';
import { testZones } from './support/zone.js';

interface SipModule {
  parseUri(uri: string): unknown;
  resolve(uri: unknown, action: (addresses: { protocol: string; address: string; port: number }[]) => void): void;
}
type Resolvers = Record<'resolveSrv' | 'resolve4' | 'resolve6', (name: string, cb: never) => void>;

let nsd: NsdServer;
let current: Resolvers | undefined;
let sip: SipModule;

beforeAll(async () => {
  nsd = await startNsd(testZones());
  const saved = { resolveSrv: dns.resolveSrv, resolve4: dns.resolve4, resolve6: dns.resolve6 };
  const mutable = dns as unknown as Record<string, unknown>;
  for (const method of ['resolveSrv', 'resolve4', 'resolve6'] as const) {
    mutable[method] = (name: string, cb: never) => current![method](name, cb);
  }
  try {
    sip = createRequire(import.meta.url)('sip') as SipModule;
  } finally {
    Object.assign(mutable, saved);
  }
});
afterAll(() => nsd?.stop());

function stackResolve(resolvers: Resolvers, uri: string): Promise<string[]> {
  current = resolvers;
  return new Promise((resolve) =>
    sip.resolve(sip.parseUri(uri), (addresses) =>
      resolve(addresses.map((a) => `${a.protocol.toLowerCase()} ${a.address} ${a.port}`).sort()),
    ),
  );
}

test('the sip stack finds the same targets through NodeDnsResolver as through node:dns', async () => {
  const theirs = new dns.Resolver({ timeout: 500, tries: 1 });
  theirs.setServers([nsd.endpoint]);
  const ours = new NodeDnsResolver(
    new DnsCore([
      new SystemResolver(
        { nameservers: [nsd.endpoint], search: [], resolvConf: '/dev/null' },
        { timeoutMs: 500, attempts: 1 },
      ),
    ]),
  );
  expect(await stackResolve(ours, 'sip:bob@node.example')).toEqual([
    'udp 127.0.0.1 5060',
    'udp 127.0.0.1 5062',
    'udp 127.0.0.1 5064',
  ]);
  for (const uri of [
    'sip:bob@node.example',
    'sip:bob@both.node.example:5070',
    'sip:bob@v4.node.example',
    'sip:bob@nx.node.example',
  ]) {
    expect(await stackResolve(ours, uri), uri).toEqual(await stackResolve(theirs, uri));
  }
  expect(await stackResolve(ours, 'sip:bob@both.node.example:5070;transport=tcp')).toEqual([
    'tcp 127.0.0.1 5070',
    'tcp ::1 5070',
  ]);
});
