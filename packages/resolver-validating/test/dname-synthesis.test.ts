/**
 * A DNAME answer without its synthesized CNAME (RFC 6672 section 3.2: the resolver then
 * synthesizes it): the chain is followed from the validated DNAME, and the packet handed to the
 * core carries the CNAME, so the core's chain reaches the target's records. nsd serves the tree
 * of ./support/tree.ts behind a proxy that takes the CNAMEs out.
 */
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DnsCore, type DnsResult } from '@dnscore/core';
import { startDnsProxy, type DnsProxy } from '../../../test/support/dns-proxy.js';
import { ValidatingResolver } from '../src/index.js';
import { startTree, type Tree } from './support/tree.js';

let tree: Tree;
let proxy: DnsProxy;
let core: DnsCore;

beforeAll(async () => {
  tree = await startTree();
  proxy = await startDnsProxy(tree.nsd);
  proxy.rewrite = (query, answer) => {
    if (!query.name.endsWith('.moved.secure.example')) return answer;
    const packet = dnsPacket.decode(Buffer.from(answer));
    packet.answers = (packet.answers ?? []).filter((r) => r.type !== 'CNAME');
    return dnsPacket.encode(packet);
  };
  core = new DnsCore([new ValidatingResolver({ nameservers: [proxy.endpoint] }, { trustAnchors: [tree.anchor] })]);
}, 60_000);

afterAll(async () => {
  await core?.close();
  await proxy?.close();
  await tree?.stop();
});

function verdict(result: DnsResult): unknown {
  return {
    rcode: result.rcodeName,
    status: result.bogus ? 'bogus' : result.secure ? 'secure' : 'insecure',
    canonical: result.canonical,
    records: result.records.map((r) => `${r.name} ${r.ttl} ${r.type} ${String(r.data)}`),
  };
}

it('follows the DNAME and hands the core the CNAME it synthesized', async () => {
  expect(verdict(await core.resolve('www.moved.secure.example', 'A'))).toEqual({
    rcode: 'NOERROR',
    status: 'secure',
    canonical: 'www.other.example',
    records: ['www.other.example 3600 A 192.0.2.70'],
  });
});

it('a name the DNAME target lacks: NXDOMAIN, secure', async () => {
  expect(verdict(await core.resolve('x.moved.secure.example', 'A'))).toEqual({
    rcode: 'NXDOMAIN',
    status: 'secure',
    canonical: 'x.other.example',
    records: [],
  });
});
