import sip from 'sip';
import { DnsCore, ZoneResolver } from '@dnscore/core';
import { SipLocator } from '@dnscore/sip';
import { SipBridge, createPjsipExtResolver, hostInfoFromUri, type SendReport } from '@dnscore/ext-resolver';

// An application on the npm `sip` stack: its requests go to RFC 3263 targets, with failover.
export async function bridgeExample(
  zoneFile: string,
  localPort: number,
  onStatus: (status: number) => void,
): Promise<SendReport> {
  const core = new DnsCore([new ZoneResolver({ files: [zoneFile] })]);
  const locator = new SipLocator(core, { targetTimeoutMs: 500 }); // per-target timer, not Timer B's 32 s
  const bridge = await SipBridge.create(sip, locator, { address: '127.0.0.1', port: localPort });
  try {
    const request = {
      method: 'OPTIONS',
      uri: 'sip:bob@example.test', // never rewritten: DNS only says where to send
      headers: {
        to: { uri: 'sip:bob@example.test' },
        from: { uri: 'sip:alice@127.0.0.1', params: { tag: '1928301774' } },
        'call-id': 'a84b4c76e66710@127.0.0.1',
        cseq: { method: 'OPTIONS', seq: 1 },
      },
    };
    return await bridge.send(request, (response) => onStatus(response.status)); // as sip.send()
  } finally {
    bridge.close();
  }
}

// PJSIP's external resolver shape: the callback gets pjsip_server_addresses, exactly once.
export function pjsipExample(zoneFile: string): Promise<string[]> {
  const resolver = createPjsipExtResolver(new DnsCore([new ZoneResolver({ files: [zoneFile] })]));
  const target = hostInfoFromUri('sips:bob@tls.example.test'); // what pjsip_get_dest_info() gives: TLS
  return new Promise((resolve) =>
    resolver.resolve(null, null, target, 'token', (status, _token, addresses) =>
      resolve(
        addresses
          ? addresses.entry.map((e) => `${e.type} ${e.addr.address}:${e.addr.port} ${e.priority}/${e.weight}`)
          : [`status ${status}`],
      ),
    ),
  );
}
