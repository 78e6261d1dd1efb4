/**
 * The bridge a test drives, what it sends, and how its report reads. The bridge listens on a free
 * loopback port; its locator reads a zone given as text (no DNS server) with a seeded random, no
 * IPv6 and a 300 ms per-target timer; it is closed when the test that made it ends, passed or not.
 */
import { onTestFinished } from 'vitest';
import sip from 'sip';
import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import { SipLocator, type SipLocatorOptions } from '@dnscore/sip';
import type { SendReport } from '../../src/send-report.js';
import { SipBridge, type SipBridgeOptions } from '../../src/sip-bridge.js';
import type { SipRequest } from '../../src/sip-stack.js';
import { freePort } from './peers.js';

/** A bridge whose targets come from `zone` (master-file text); `policy` goes to its SipLocator. */
export async function zoneBridge(
  zone: string,
  options: SipBridgeOptions = {},
  policy: SipLocatorOptions = {},
): Promise<SipBridge> {
  const locator = new SipLocator(
    new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })], { random: seededRandom(3) }),
    { ipv6: false, targetTimeoutMs: 300, ...policy },
  );
  const bridge = await SipBridge.create(sip, locator, { address: '127.0.0.1', port: await freePort(), ...options });
  onTestFinished(() => bridge.close());
  return bridge;
}

let seq = 0;
/** A request from alice with a Call-ID and From tag of its own. */
export function request(uri: string, method = 'OPTIONS', extra: Partial<SipRequest['headers']> = {}): SipRequest {
  seq++;
  return {
    method,
    uri,
    headers: {
      to: { uri },
      from: { uri: 'sip:alice@127.0.0.1', params: { tag: `b${seq}` } },
      'call-id': `bridge-${seq}`,
      cseq: { method, seq: 1 },
      ...extra,
    },
  };
}

/** One line a try: "udp 127.0.6.81 failover 503", with " pinned" (Call-ID affinity) and " switched" (UDP to TCP). */
export function tries(report: SendReport): string[] {
  return report.attempts.map(
    (a) =>
      `${a.target.transport} ${a.target.address} ${a.outcome} ` +
      `${a.status ?? '-'}${a.pinned ? ' pinned' : ''}${a.switched ? ' switched' : ''}`,
  );
}
