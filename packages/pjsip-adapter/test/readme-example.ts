import { DnsCore, ZoneResolver } from '@dnscore/core';
import { createPjsipAdapter, hostInfoFromUri } from '@dnscore/pjsip-adapter';

// PJSIP's external resolver shape: the callback gets pjsip_server_addresses, exactly once.
export function pjsipExample(zoneFile: string): Promise<string[]> {
  const adapter = createPjsipAdapter(new DnsCore([new ZoneResolver({ files: [zoneFile] })]));
  const target = hostInfoFromUri('sips:bob@tls.example.test'); // what pjsip_get_dest_info() gives: TLS
  return new Promise((resolve) =>
    adapter.resolve(null, null, target, 'token', (status, _token, addresses) =>
      resolve(
        addresses
          ? addresses.entry.map((e) => `${e.type} ${e.addr.address}:${e.addr.port} ${e.priority}/${e.weight}`)
          : [`status ${status}`],
      ),
    ),
  );
}
