import { DnsCore, ZoneResolver } from '@dnscore/core';
import { runCheck, startServer, type Finding } from '@dnscore/serve';

export async function example(zoneFile: string): Promise<{ findings: readonly Finding[]; url: string }> {
  const core = new DnsCore([new ZoneResolver({ files: [zoneFile] })]);
  // The walk-through zone has nothing to fix: no findings.
  const { findings } = await runCheck(core, 'biloxi.example');
  // The page and the API over the same zone, on 127.0.0.1 at a free port.
  const server = await startServer({ backend: core, port: 0 });
  const url = server.url;
  await server.close();
  await core.close();
  return { findings, url };
}
