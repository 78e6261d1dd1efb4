// Two resolver plugins registered in a tsyringe container: the first available one answers,
// and a backend error falls through to the next. Run it: npm run build && node examples/resolve-with-fallback/main.mjs
import 'reflect-metadata';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { container } from 'tsyringe';
import { DnsCore, NetworkError, RESOLVER_PLUGIN, ZoneResolver } from '@dnscore/core';

const zoneFile = fileURLToPath(new URL('../zones/biloxi.example.zone', import.meta.url));

/** A backend in front of the zone: it can be switched off, and it can fail. */
class Upstream {
  name = 'upstream';
  priority = 10;
  up = false;
  failing = false;
  constructor(zone) {
    this.zone = zone;
  }
  available() {
    return this.up ? true : { available: false, reason: 'not started yet' };
  }
  async resolve(query, signal) {
    if (this.failing) throw new NetworkError('connection refused by 127.0.0.1:53');
    return this.zone.resolve(query, signal);
  }
  close() {}
}

export async function main(log = console.log) {
  const fallback = new ZoneResolver({ files: [zoneFile], name: 'fallback-zone', priority: 100 });
  const upstream = new Upstream(new ZoneResolver({ files: [zoneFile] }));
  const scope = container.createChildContainer();
  scope.register(RESOLVER_PLUGIN, { useValue: fallback });
  scope.register(RESOLVER_PLUGIN, { useValue: upstream });
  const core = scope.resolve(DnsCore);
  log(`registered: ${core.registry.plugins.map((p) => `${p.name} (${p.priority})`).join(', ')}`);

  const ask = async (why) => {
    const result = await core.resolve('sip1.biloxi.example', 'A');
    log(`${why}: ${result.records.map((r) => r.data).join(', ')} from ${result.resolver}`);
  };
  await ask('upstream unavailable');
  upstream.up = true;
  await ask('upstream available');
  upstream.failing = true;
  await ask('upstream failing');

  upstream.failing = false;
  const nx = await core.resolve('nobody.biloxi.example', 'A');
  log(`NXDOMAIN is an answer, not a failure: ${nx.rcodeName} from ${nx.resolver}`);
  await core.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
