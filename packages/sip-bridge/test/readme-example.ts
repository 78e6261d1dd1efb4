import sip from 'sip';
import { DnsCore, ZoneResolver } from '@dnscore/core';
import { SipLocator } from '@dnscore/sip';
import { SipBridge, type SendReport } from '@dnscore/sip-bridge';

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
