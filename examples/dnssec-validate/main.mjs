// Resolves a name through libunbound with a trust anchor and prints secure, insecure or
// bogus (why), then the records that may be used. Without --trust-anchor it validates from
// the root anchors and recurses from the root servers.
// Run it: npm run build && node examples/dnssec-validate/main.mjs www.ietf.org AAAA
//   --trust-anchor TEXT  a DS or DNSKEY record (repeatable); replaces the root anchors
//   --stub ZONE=IP@PORT  ask that server for that zone (repeatable)
//   --option NAME=VALUE  any libunbound option (repeatable), e.g. "local-zone=test. transparent"
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DnsCore, formatRecord } from '@dnscore/core';
import { UnboundResolver } from '@dnscore/resolver-unbound';

/** Returns the exit code: 0 secure or insecure, 4 bogus (as `dnscore resolve`). */
export async function main(args, log = console.log) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'trust-anchor': { type: 'string', multiple: true },
      stub: { type: 'string', multiple: true },
      option: { type: 'string', multiple: true },
    },
  });
  const [name, type = 'A'] = positionals;
  if (!name)
    throw new Error(
      'usage: main.mjs NAME [TYPE] [--trust-anchor TEXT]... [--stub ZONE=IP@PORT]... [--option NAME=VALUE]...',
    );

  const options = {};
  for (const pair of values.option ?? []) {
    const [key, ...rest] = pair.split('=');
    options[key] = [...(options[key] ?? []), rest.join('=')];
  }
  const unbound = new UnboundResolver({
    hosts: false,
    resolvConf: false,
    ...(values['trust-anchor'] ? { trustAnchors: values['trust-anchor'] } : {}),
    stubZones: (values.stub ?? []).map((stub) => {
      const [zone, address] = stub.split('=');
      return { name: zone, addresses: [address] };
    }),
    options,
  });
  const dns = new DnsCore([unbound]);
  try {
    const result = await dns.resolve(name, type);
    const status = result.bogus ? `bogus (${result.whyBogus})` : result.secure ? 'secure' : 'insecure';
    log(`${result.query.name} IN ${type.toUpperCase()}: ${status}${result.rcode === 0 ? '' : ` ${result.rcodeName}`}`);
    for (const record of result.records) log(formatRecord(record));
    return result.bogus ? 4 : 0;
  } finally {
    await dns.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
