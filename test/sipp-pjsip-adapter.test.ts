/**
 * The PJSIP-style adapter in the failover scenarios of sipp-failover.test.ts, driven by a small
 * consumer that does with the addresses what PJSIP's sip_util.c does: the entries in order, a
 * failed one reported with setServerFailed(). sipp plays the UDP/TCP servers, node peers the
 * TLS ones (no TLS in this sipp). Call-ID affinity has no counterpart here: pjsip_host_info
 * carries no Call-ID, PJSIP keeps a dialog on its route set itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sip from 'sip';
import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import { SipLocator, drawFirstTargets } from '@dnscore/sip';
import { PjStatus, PjsipTransportType, createPjsipAdapter, type PjsipAdapter } from '@dnscore/pjsip-adapter';
import { SipEndpoint, type SipRequest } from '@dnscore/sip-bridge';
import type { TestCertificate } from './support/certs.js';
import { startFailoverPeers, type FailoverPeers } from './support/failover-peers.js';
import { failoverHosts, failoverZone, freePortOnAll } from './support/failover-zone.js';
import { pjsipSend, resolveOnce, type PjsipSend } from './support/pjsip-consumer.js';
import { freePort } from './support/ports.js';

const ORIGIN = 'pjsip.test';
const hosts = failoverHosts('127.0.6', 30);
const TIMER_MS = 400;
const FAILED_FOR_MS = 60_000;

let port: number;
let zone: string;
let right: TestCertificate;
let endpoint: SipEndpoint;
let failoverPeers: FailoverPeers;

beforeAll(async () => {
  port = await freePortOnAll(hosts);
  zone = failoverZone(ORIGIN, hosts, port);
  failoverPeers = await startFailoverPeers(ORIGIN, hosts, port);
  const { wrong } = failoverPeers;
  right = failoverPeers.right;
  endpoint = await SipEndpoint.create(sip, {
    address: '127.0.0.1',
    port: await freePort('127.0.0.1'),
    tls: { ca: [right.cert, wrong.cert] },
  });
});

afterAll(async () => {
  endpoint?.close();
  await failoverPeers?.stop();
});

function adapter(seed = 1): PjsipAdapter {
  return createPjsipAdapter(
    new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })], { random: seededRandom(seed) }),
    { ipv6: false },
  );
}

let calls = 0;
function request(uri: string): SipRequest {
  calls++;
  return {
    method: 'OPTIONS',
    uri,
    headers: {
      to: { uri },
      from: { uri: 'sip:pjsip@127.0.0.1', params: { tag: `p${calls}` } },
      'call-id': `pjsip-${calls}@127.0.0.1`,
      cseq: { method: 'OPTIONS', seq: 1 },
    },
  };
}

const send = (pjsip: PjsipAdapter, uri: string): Promise<PjsipSend> =>
  pjsipSend(pjsip, endpoint, request(uri), { timeoutMs: TIMER_MS, failedForMs: FAILED_FOR_MS });

/** "udp 127.0.6.31 timeout -" per try. */
function tries(sent: PjsipSend): string[] {
  const name = (type: number): string =>
    ({ [PjsipTransportType.UDP]: 'udp', [PjsipTransportType.TCP]: 'tcp', [PjsipTransportType.TLS]: 'tls' })[type] ??
    String(type);
  return sent.tries.map((t) => `${name(t.type)} ${t.address} ${t.outcome} ${t.status ?? '-'}`);
}

describe('a PJSIP-style consumer over the adapter, against sipp', () => {
  it(
    'first server dead: the consumer moves to the second entry after its timer; the dead one comes last next ' + 'time',
    async () => {
      const pjsip = adapter();
      const first = await send(pjsip, `sip:svc@dead.${ORIGIN}`);
      expect(first.resolveStatus).toBe(PjStatus.PJ_SUCCESS);
      expect(first.entries.map((e) => [e.name, e.addr.address, e.priority, e.weight])).toEqual([
        [`dead-server.${ORIGIN}`, hosts.dead, 10, 0],
        [`live-server.${ORIGIN}`, hosts.live, 20, 0],
      ]);
      expect(tries(first)).toEqual([`udp ${hosts.dead} timeout -`, `udp ${hosts.live} response 200`]);
      // setServerFailed() fed the penalty box: the next callback lists the dead server last.
      const next = await send(pjsip, `sip:svc@dead.${ORIGIN}`);
      expect(next.entries.map((e) => e.addr.address)).toEqual([hosts.live, hosts.dead]);
      expect(tries(next)).toEqual([`udp ${hosts.live} response 200`]);
    },
  );

  it('first server answers 503: the second entry at once', async () => {
    const sent = await send(adapter(), `sip:svc@busy.${ORIGIN}`);
    expect(tries(sent)).toEqual([`udp ${hosts.busy} 503 503`, `udp ${hosts.live} response 200`]);
  });

  it('first server refuses TCP (transport=tcp, type TCP): the second entry at once', async () => {
    const pjsip = adapter();
    const sent = await send(pjsip, `sip:svc@refuse.${ORIGIN};transport=tcp`);
    expect(sent.entries.map((e) => e.type)).toEqual([PjsipTransportType.TCP, PjsipTransportType.TCP]);
    expect(tries(sent)).toEqual([`tcp ${hosts.dead} transport-error -`, `tcp ${hosts.live} response 200`]);
    expect(pjsip.isServerFailed({ address: hosts.dead, port, type: PjsipTransportType.TCP })).toBe(true);
    expect(tries(await send(pjsip, `sip:svc@refuse.${ORIGIN};transport=tcp`))).toEqual([
      `tcp ${hosts.live} response 200`,
    ]);
  });

  it('shares requests by SRV weight: entry 0 of each callback follows the weighted draw', async () => {
    const n = 200;
    const pjsip = adapter(11);
    const expected = await drawFirstTargets(
      new SipLocator(new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })], { random: seededRandom(11) }), {
        ipv6: false,
      }),
      `sip:svc@weights.${ORIGIN}`,
      n,
    );
    const answered: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      const sent = await send(pjsip, `sip:svc@weights.${ORIGIN}`);
      expect(sent.tries).toHaveLength(1);
      const name = sent.entries.find((e) => e.addr.address === sent.answeredBy!.address)!.name;
      answered[name] = (answered[name] ?? 0) + 1;
    }
    expect(answered).toEqual(expected.first);
    expect(answered[`weighted-server.${ORIGIN}`]).toBeGreaterThan(137);
  });

  it(
    'TLS: sips gives TLS entries; the consumer checks the domain as PJSIP does, and the wrong certificate fails ' +
      'over',
    async () => {
      const [wrongPeer, rightPeer] = failoverPeers.tlsPeers;
      const sent = await send(adapter(), `sips:svc@tls.${ORIGIN}`);
      expect(sent.entries.map((e) => [e.type, e.addr.address])).toEqual([
        [PjsipTransportType.TLS, hosts.tlsWrong],
        [PjsipTransportType.TLS, hosts.tlsRight],
      ]);
      expect(tries(sent)).toEqual([`tls ${hosts.tlsWrong} transport-error -`, `tls ${hosts.tlsRight} response 200`]);
      expect(wrongPeer!.serverNames).toEqual([`tls.${ORIGIN}`]);
      expect(rightPeer!.serverNames).toEqual([`tls.${ORIGIN}`]);
    },
  );

  it('the callback runs once per resolve, also when nothing is found', async () => {
    const { status, addresses, calls: n } = await resolveOnce(adapter(), `sip:svc@nowhere.${ORIGIN}`, 100);
    expect([status, addresses, n]).toEqual([PjStatus.PJLIB_UTIL_EDNSNOANSWERREC, null, 1]);
  });
});
