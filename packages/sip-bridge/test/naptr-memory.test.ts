/**
 * NAPTR memory through the bridge, against node SIP peers on loopback: the TLS NAPTR's server
 * refuses (nothing listens), so the request goes on with the UDP NAPTR of the same order, never
 * the UDP server of a higher order; a sips: URI never leaves SIPS; in mode 'ttl' the failed
 * NAPTR is remembered and the next request starts on UDP. Per-target timer 300 ms; no timing is
 * asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetsExhaustedError, type SipLocatorOptions } from '@dnscore/sip';
import type { SipBridge } from '../src/sip-bridge.js';
import { request, tries, zoneBridge } from './support/bridge.js';
import { PEER, answer, freePort, startSipPeer, type SipPeer } from './support/peers.js';

const ORIGIN = 'naptr.bridge.test';
/** Nothing listens on TLS here: refused. */
const TLS_DOWN = PEER(40);
const UDP_SAME_ORDER = PEER(41);
const UDP_LATER_ORDER = PEER(42);
const TLS_RECORD = `10 10 "s" "SIPS+D2T" "" _sips._tcp.${ORIGIN}.`;

let port: number;
let zone: string;
const peers: SipPeer[] = [];
let same: SipPeer;
let later: SipPeer;

beforeAll(async () => {
  port = await freePort(UDP_SAME_ORDER);
  zone = `$ORIGIN ${ORIGIN}.
$TTL 300
@ IN SOA ns h 1 3600 600 86400 300
@ 120 IN NAPTR 10 10 "s" "SIPS+D2T" "" _sips._tcp
@ 120 IN NAPTR 10 20 "s" "SIP+D2U" "" _sip._udp
@ 120 IN NAPTR 20 10 "s" "SIP+D2U" "" _sip._udp.later
_sips._tcp IN SRV 10 0 ${port} tls-down
_sip._udp IN SRV 10 0 ${port} udp-same
_sip._udp.later IN SRV 10 0 ${port} udp-later
tls-down IN A ${TLS_DOWN}
udp-same IN A ${UDP_SAME_ORDER}
udp-later IN A ${UDP_LATER_ORDER}
`;
  same = await startSipPeer({ transport: 'udp', address: UDP_SAME_ORDER, port, behaviour: answer(200) });
  peers.push(same);
  later = await startSipPeer({ transport: 'udp', address: UDP_LATER_ORDER, port, behaviour: answer(200) });
  peers.push(later);
});

afterAll(async () => {
  for (const peer of peers) await peer.close();
});

const bridge = (policy: SipLocatorOptions = {}): Promise<SipBridge> => zoneBridge(zone, {}, policy);

describe('SipBridge: NAPTR memory', () => {
  it('the TLS NAPTR refuses: the UDP NAPTR of the same order answers; the later order gets nothing', async () => {
    const b = await bridge();
    const before = later.requests.length;
    const first = await b.send(request(`sip:svc@${ORIGIN}`, 'INVITE'));
    expect(tries(first)).toEqual([`tls ${TLS_DOWN} transport-error -`, `udp ${UDP_SAME_ORDER} response 200`]);
    expect(first.answeredBy?.address).toBe(UDP_SAME_ORDER);
    expect(first.attempts[1]!.skippedNaptrs.map((s) => [s.record, s.reason])).toEqual([[TLS_RECORD, 'failed']]);
    expect(first.attempts[1]!.skippedNaptrs[0]!.detail).toMatch(
      new RegExp(`^every target failed: tls ${TLS_DOWN.replaceAll('.', '\\.')}:${port} \\(transport error\\)$`),
    );

    // The TLS server is in the penalty box: the next request passes its NAPTR at once, and says why.
    const second = await b.send(request(`sip:svc@${ORIGIN}`));
    expect(tries(second)).toEqual([`udp ${UDP_SAME_ORDER} response 200`]);
    const attempt = second.attempts[0]!;
    expect(attempt.skipped.map((e) => `${e.transport} ${e.address} ${e.reason}`)).toEqual([
      `tls ${TLS_DOWN} transport-error`,
    ]);
    expect(attempt.skippedNaptrs.map((s) => [s.record, s.reason, s.until])).toEqual([
      [TLS_RECORD, 'failed', undefined],
    ]);
    expect(later.requests.length).toBe(before);
    expect(b.locator.naptrMemory.entries()).toEqual([]);
  });

  it("mode 'ttl': the failed NAPTR is remembered for its TTL and listed; forgetting it brings TLS back", async () => {
    const b = await bridge({ naptrMemory: 'ttl' });
    await b.send(request(`sip:svc@${ORIGIN}`, 'INVITE'));
    const [entry] = b.locator.naptrMemory.entries();
    expect([entry!.record, entry!.transport, entry!.owner]).toEqual([TLS_RECORD, 'tls', ORIGIN]);
    b.locator.penaltyBox.clearAll(); // the server is no longer boxed: the memory alone keeps it out
    const next = await b.send(request(`sip:svc@${ORIGIN}`));
    expect(tries(next)).toEqual([`udp ${UDP_SAME_ORDER} response 200`]);
    expect(next.attempts[0]!.skipped).toEqual([]);
    expect(next.attempts[0]!.skippedNaptrs.map((s) => [s.reason, s.until])).toEqual([['remembered', entry!.until]]);
    expect(b.locator.naptrMemory.forget(entry!)).toBe(true);
    const again = await b.send(request(`sip:svc@${ORIGIN}`));
    expect(tries(again)[0]).toBe(`tls ${TLS_DOWN} transport-error -`);
  });

  it('a sips: URI keeps to SIPS: the refused TLS server, then no target, and the UDP servers get nothing', async () => {
    const b = await bridge({ naptrMemory: 'ttl' });
    const counts = [same.requests.length, later.requests.length];
    const report = await b.send(request(`sips:svc@${ORIGIN}`));
    expect(tries(report)).toEqual([`tls ${TLS_DOWN} transport-error -`]);
    expect(report.error).toBeInstanceOf(TargetsExhaustedError);
    expect(report.response?.status).toBe(503);
    expect([same.requests.length, later.requests.length]).toEqual(counts);
  });
});
