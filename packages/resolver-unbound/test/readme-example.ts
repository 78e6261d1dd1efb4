import { DnsCore, withCache } from '@dnscore/core';
import { UnboundResolver } from '@dnscore/resolver-unbound';

export async function readmeExample(server: string, anchor: string): Promise<string[]> {
  const unbound = new UnboundResolver({
    stubZones: [{ name: 'biloxi.test', addresses: [server] }], // "127.0.0.1@5300"
    trustAnchors: [anchor], // "biloxi.test. IN DS ...": replaces the root anchors
    localZones: [{ name: 'test', type: 'transparent' }], // RFC 6761 keeps test. local otherwise
    hosts: false,
    resolvConf: false,
  });
  const core = new DnsCore([withCache(unbound)]);
  const lines: string[] = [];
  for (const name of ['sip1.biloxi.test', 'nobody.biloxi.test']) {
    const r = await core.resolve(name, 'A');
    const status = r.bogus ? `bogus (${r.whyBogus})` : r.secure ? 'secure' : 'insecure';
    lines.push(`${name}: ${r.rcodeName} ${status} ${r.records.map((x) => x.data).join(' ')}`.trim());
  }
  await core.close();
  return lines;
}
