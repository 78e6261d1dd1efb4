/**
 * DNSSEC through real libunbound validating zones served by nsd: the lookup with requireSecure
 * gives secure addresses to http.get, refuses a bogus name (EBOGUS) and an unsigned one
 * (EINSECURE); the Resolver says ESERVFAIL for the bogus answer with the reason on err.result,
 * and resolveDetailed says secure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DnsCore, withCache } from '@dnscore/core';
import { UnboundResolver } from '@dnscore/resolver-unbound';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { alterRecord, signZone } from '../../../test/support/dnssec.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { createLookup, NodeDnsPromiseResolver } from '../src/index.js';

const SIGNED = `$ORIGIN signed-node.example.
$TTL 3600
@    IN SOA ns1 hostmaster 1 7200 900 1209600 300
     IN NS  ns1
ns1  IN A   127.0.0.1
good IN A   127.0.0.1
bad  IN A   127.0.0.1
`;
const UNSIGNED = `$ORIGIN plain-node.example.
$TTL 3600
@    IN SOA ns1 hostmaster 1 7200 900 1209600 300
     IN NS  ns1
ns1  IN A   127.0.0.1
web  IN A   127.0.0.1
`;

let nsd: NsdServer;
let core: DnsCore;
let server: http.Server;
let port: number;

beforeAll(async () => {
  // bad's A record is changed after signing: its RRSIG no longer matches.
  const zone = alterRecord(await signZone('signed-node.example', SIGNED), {
    name: 'bad.signed-node.example.',
    type: 'A',
    data: '127.0.0.66',
  });
  nsd = await startNsd([
    { name: 'signed-node.example', text: zone.text },
    { name: 'plain-node.example', text: UNSIGNED },
  ]);
  core = new DnsCore([
    withCache(
      new UnboundResolver({ nameservers: [nsd.endpoint], resolvConf: false, hosts: false, trustAnchors: [zone.ds] }),
    ),
  ]);
  server = http.createServer((req, res) => res.end(`${req.headers.host}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await core?.close();
  await nsd?.stop();
});

function httpGet(url: string, lookup: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, lookup: lookup as never, family: 4 }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

describe('requireSecure over libunbound', () => {
  test('a secure name connects; a bogus one fails with EBOGUS; an unsigned one with EINSECURE', async () => {
    const lookup = createLookup(core, { requireSecure: true });
    expect(await httpGet(`http://good.signed-node.example:${port}/`, lookup)).toBe(`good.signed-node.example:${port}`);
    const bogus = await httpGet(`http://bad.signed-node.example:${port}/`, lookup).catch((e: unknown) => e);
    expect(bogus).toMatchObject({ code: 'EBOGUS', syscall: 'getaddrinfo', hostname: 'bad.signed-node.example' });
    expect((bogus as Error).message).toMatch(/^getaddrinfo EBOGUS bad\.signed-node\.example: DNSSEC validation failed/);
    await expect(httpGet(`http://web.plain-node.example:${port}/`, lookup)).rejects.toMatchObject({
      code: 'EINSECURE',
      hostname: 'web.plain-node.example',
    });
    // without requireSecure the unsigned name is fine, the bogus one never is
    const anyStatus = createLookup(core);
    expect(await httpGet(`http://web.plain-node.example:${port}/`, anyStatus)).toBe(`web.plain-node.example:${port}`);
    await expect(httpGet(`http://bad.signed-node.example:${port}/`, anyStatus)).rejects.toMatchObject({
      code: 'EBOGUS',
    });
  });

  test('the Resolver: ESERVFAIL for the bogus answer with the reason; resolveDetailed says secure', async () => {
    const resolver = new NodeDnsPromiseResolver(core);
    const error = await resolver.resolve4('bad.signed-node.example').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ESERVFAIL', syscall: 'queryA', hostname: 'bad.signed-node.example' });
    const result = (error as { result: { bogus: boolean; whyBogus: string; records: unknown[] } }).result;
    expect(result.bogus).toBe(true);
    expect(result.whyBogus).toMatch(/validation failure/);
    expect(result.records).toEqual([]);
    const good = await resolver.resolveDetailed('good.signed-node.example', 'A');
    expect(good.records).toEqual(['127.0.0.1']);
    expect(good.result.secure).toBe(true);
    const plain = await resolver.resolveDetailed('web.plain-node.example', 'A');
    expect(plain.result.secure).toBe(false);
  });
});
