/**
 * pjsip-adapter: dnscore behind PJSIP's external-resolver callback. A PJSIP consumer (or a
 * binding of one) hands over a pjsip_host_info built by pjsip_get_dest_info() and a callback;
 * it gets pjsip_server_addresses back, exactly once, with RFC 3263 done (NAPTR, SRV priority
 * and weight) and its failed servers last. No network: the RFC 3263 walk-through zone.
 * Run it through its test (`npx vitest run test/pjsip-adapter.test.ts` in examples/).
 */
import { fileURLToPath } from 'node:url';
import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import {
  PjsipTransportType,
  createPjsipAdapter,
  hostInfoFromUri,
  pjStatusName,
  type PjsipHostInfo,
  type PjsipServerAddresses,
  type PjsipAdapter,
} from '@dnscore/pjsip-adapter';

const ZONE = fileURLToPath(new URL('../zones/biloxi.example.zone', import.meta.url));

/** What sip_util.c gets: the status and the addresses, from the one call of the callback. */
function resolve(
  adapter: PjsipAdapter,
  target: PjsipHostInfo,
): Promise<{ status: number; addresses: PjsipServerAddresses | null }> {
  return new Promise((done) => {
    // pjsip_resolve() -> ext->resolve(resolver, pool, target, token, cb); the token comes back as given.
    adapter.resolve(null, null, target, { tdata: 'INVITE sip:bob@biloxi.example' }, (status, _token, addresses) =>
      done({ status, addresses }),
    );
  });
}

const TYPE_NAME: Readonly<Record<number, string>> = {
  [PjsipTransportType.UDP]: 'UDP',
  [PjsipTransportType.TCP]: 'TCP',
  [PjsipTransportType.TLS]: 'TLS',
};

export async function main(print: (line: string) => void = console.log): Promise<void> {
  const core = new DnsCore([new ZoneResolver({ files: [ZONE] })], { random: seededRandom(2026) });
  const adapter = createPjsipAdapter(core, { ipv6: false });

  const show = async (uri: string): Promise<PjsipServerAddresses | null> => {
    const target = hostInfoFromUri(uri);
    print(
      `${uri} -> pjsip_host_info { type ${target.type}, flag ${target.flag}, host ${target.addr.host}, port ` +
        `${target.addr.port} }`,
    );
    const { status, addresses } = await resolve(adapter, target);
    print(`  status ${status} (${pjStatusName(status)}), count ${addresses?.count ?? 0}`);
    for (const e of addresses?.entry ?? []) {
      print(
        `  entry ${TYPE_NAME[e.type]} ${e.addr.address}:${e.addr.port} ${e.name} priority ${e.priority} weight ` +
          `${e.weight}`,
      );
    }
    return addresses;
  };

  // An unspecified type: RFC 3263 picks the transport (NAPTR prefers SIPS+D2T here).
  const first = await show('sip:bob@biloxi.example');
  // sip_util.c tried entry 0 and the transaction failed: PJSIP calls pjsip_resolver_set_server_failed().
  const failed = first!.entry[0]!;
  adapter.setServerFailed({ address: failed.addr.address, port: failed.addr.port, type: failed.type }, 60_000);
  print(`set failed: ${failed.name} for 60 s`);
  await show('sip:bob@biloxi.example');
  // transport=udp sets the type; a name that does not exist is PJLIB_UTIL_EDNSNOANSWERREC.
  await show('sip:bob@biloxi.example;transport=udp');
  await show('sip:bob@nowhere.biloxi.example');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
