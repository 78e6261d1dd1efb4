import { DnsCore, ZoneResolver, withCache } from '@dnscore/core';

export async function readmeExample(zoneFile: string): Promise<string[]> {
  const core = new DnsCore([withCache(new ZoneResolver({ files: [zoneFile] }))]);
  const srv = await core.resolve('_sip._udp.biloxi.example', 'SRV');
  const lines = srv.records.map(
    (r) => `${r.data.priority} ${r.data.weight} ${r.data.target}:${r.data.port} ttl=${r.ttl}`,
  );
  const nx = await core.resolve('nobody.biloxi.example', 'A');
  lines.push(`${nx.rcodeName}, cached negatively for ${nx.negativeTtl} s`);
  await core.close();
  return lines;
}
