/**
 * The bridge into the npm `sip` stack against real SIP servers on loopback: sipp plays the UDP
 * and TCP servers and the client that starts a dialog; node TLS peers play the TLS servers
 * (this sipp is built without TLS). Targets come from a zone through @dnscore/sip (the zone
 * resolver, and once nsd through the system resolver). Per-target timer: 400 ms. No timing
 * is asserted: only where each try went and what came of it. The failover policy of issue 14
 * (the failover set, the penalty by reason, the transaction bound, no SIPS downgrade) is
 * checked here against sipp.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sip from 'sip';
import { DnsCore, ZoneResolver, seededRandom, type ResolverPlugin } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import {
  SipLocator,
  TargetsExhaustedError,
  TransactionTimeoutError,
  drawFirstTargets,
  type SipLocatorOptions,
} from '@dnscore/sip';
import { SipBridge, type SipBridgeOptions, type SipRequest, type SendReport } from '@dnscore/sip-bridge';
import type { TestCertificate } from './support/certs.js';
import { startFailoverPeers, type FailoverPeers } from './support/failover-peers.js';
import { failoverHosts, failoverZone, freePortOnAll } from './support/failover-zone.js';
import { startNsd, type NsdServer } from './support/nsd.js';
import { freePort } from './support/ports.js';
import { dialogScenario, startSippClient } from './support/sipp.js';

const ORIGIN = 'sipp.test';
const hosts = failoverHosts('127.0.6', 10);
const TIMER_MS = 400;

let port: number;
let zone: string;
let right: TestCertificate;
let wrong: TestCertificate;
let failoverPeers: FailoverPeers;

beforeAll(async () => {
  port = await freePortOnAll(hosts);
  zone = failoverZone(ORIGIN, hosts, port);
  failoverPeers = await startFailoverPeers(ORIGIN, hosts, port);
  ({ right, wrong } = failoverPeers);
});

afterAll(async () => {
  await failoverPeers?.stop();
});

interface Setup {
  readonly bridge: SipBridge;
  readonly locator: SipLocator;
  readonly localPort: number;
}

async function setup(
  options: SipBridgeOptions & {
    readonly seed?: number;
    readonly plugin?: ResolverPlugin;
    readonly policy?: SipLocatorOptions;
  } = {},
): Promise<Setup> {
  const { seed = 1, plugin, policy, ...bridgeOptions } = options;
  const core = new DnsCore([plugin ?? new ZoneResolver({ zones: [{ text: zone }] })], { random: seededRandom(seed) });
  const locator = new SipLocator(core, { ipv6: false, targetTimeoutMs: TIMER_MS, ...policy });
  const localPort = await freePort('127.0.0.1');
  const bridge = await SipBridge.create(sip, locator, {
    address: '127.0.0.1',
    port: localPort,
    tls: { ca: [right.cert, wrong.cert] },
    ...bridgeOptions,
  });
  return { bridge, locator, localPort };
}

let calls = 0;
function options(uri: string, method = 'OPTIONS'): SipRequest {
  calls++;
  return {
    method,
    uri,
    headers: {
      to: { uri },
      from: { uri: 'sip:tester@127.0.0.1', params: { tag: `t${calls}` } },
      'call-id': `failover-${calls}@127.0.0.1`,
      cseq: { method, seq: 1 },
    },
  };
}

/** "udp 127.0.6.11 timeout -" per try. */
function tries(report: SendReport): string[] {
  return report.attempts.map(
    (a) =>
      `${a.target.transport} ${a.target.address} ${a.outcome} ` +
      `${a.status ?? '-'}${a.penalized ? ' penalized' : ''}${a.pinned ? ' pinned' : ''}`,
  );
}

describe('the failover policy against sipp (issue 14)', () => {
  it('a 500 from sipp is the answer by default; with failoverOn [500, 503] the next server answers', async () => {
    const plain = await setup();
    const carrier = await setup({ policy: { failoverOn: [500, 503] } });
    try {
      const statuses: number[] = [];
      expect(
        tries(await plain.bridge.send(options(`sip:svc@err500.${ORIGIN}`), (rs) => statuses.push(rs.status))),
      ).toEqual([`udp ${hosts.error} response 500`]);
      const moved = await carrier.bridge.send(options(`sip:svc@err500.${ORIGIN}`), (rs) => statuses.push(rs.status));
      expect(tries(moved)).toEqual([`udp ${hosts.error} failover 500`, `udp ${hosts.live} response 200`]);
      expect(statuses).toEqual([500, 200]);
      expect(carrier.locator.penaltyBox.entries()).toEqual([]);
    } finally {
      plain.bridge.close();
      carrier.bridge.close();
    }
  });

  it('four silent servers, a 700 ms bound: failover stops there with a 408, the last timer capped', async () => {
    const { bridge } = await setup({ policy: { transactionTimeoutMs: 700 } });
    try {
      const statuses: number[] = [];
      const report = await bridge.send(options(`sip:svc@silent.${ORIGIN}`), (rs) => statuses.push(rs.status));
      expect(report.error).toBeInstanceOf(TransactionTimeoutError);
      expect(report.error).toMatchObject({ code: 'SIP_ERR_TRANSACTION_TIMEOUT', timeoutMs: 700 });
      expect(statuses).toEqual([408]);
      const silentOrder = [hosts.dead, hosts.dialog, hosts.tlsWrong, hosts.tlsRight];
      expect(report.attempts.map((a) => a.target.address)).toEqual(silentOrder.slice(0, report.attempts.length));
      expect(report.attempts.length).toBeLessThan(silentOrder.length);
      expect(report.attempts.map((a) => `${a.outcome} ${a.capped}`)).toEqual([
        ...report.attempts.slice(0, -1).map(() => 'timeout false'),
        'timeout true',
      ]);
    } finally {
      bridge.close();
    }
  });

  it('a sips: URI whose TLS servers all refuse ends with no target; the live UDP server is never tried', async () => {
    const { bridge } = await setup();
    try {
      const statuses: number[] = [];
      const report = await bridge.send(options(`sips:svc@downgrade.${ORIGIN}`), (rs) => statuses.push(rs.status));
      expect(tries(report)).toEqual([`tls ${hosts.dead} transport-error -`, `tls ${hosts.error} transport-error -`]);
      expect(report.error).toBeInstanceOf(TargetsExhaustedError);
      expect([report.answeredBy, statuses]).toEqual([null, [503]]);
      // The same name for a sip: URI over UDP reaches the live sipp server: the UDP branch is real.
      expect(tries(await bridge.send(options(`sip:svc@downgrade.${ORIGIN};transport=udp`)))).toEqual([
        `udp ${hosts.live} response 200`,
      ]);
    } finally {
      bridge.close();
    }
  });
});

describe('the bridge fails over between sipp servers', () => {
  it(
    'first server dead (nothing listens on UDP): the request reaches the second after the per-target ' + 'timer',
    async () => {
      const { bridge, locator } = await setup();
      try {
        const statuses: number[] = [];
        const report = await bridge.send(options(`sip:svc@dead.${ORIGIN}`), (rs) => statuses.push(rs.status));
        expect(tries(report)).toEqual([`udp ${hosts.dead} timeout -`, `udp ${hosts.live} response 200`]);
        expect(report.answeredBy?.address).toBe(hosts.live);
        expect(statuses).toEqual([200]);
        // An OPTIONS met by silence boxes nothing by default (a live hop may hold a non-INVITE).
        expect(locator.penaltyBox.get({ transport: 'udp', address: hosts.dead, port })).toBeUndefined();
      } finally {
        bridge.close();
      }
    },
  );

  it('first server answers 503: the second at once (no timeout), the first boxed for its Retry-After', async () => {
    const { bridge, locator } = await setup();
    try {
      const statuses: number[] = [];
      const report = await bridge.send(options(`sip:svc@busy.${ORIGIN}`), (rs) => statuses.push(rs.status));
      expect(tries(report)).toEqual([`udp ${hosts.busy} failover 503`, `udp ${hosts.live} response 200`]);
      expect(statuses).toEqual([200]); // the 503 that caused failover is not the application's
      const entry = locator.penaltyBox.get({ transport: 'udp', address: hosts.busy, port })!;
      expect([entry.reason, entry.detail]).toEqual(['retry-after', '503 Service Unavailable, Retry-After 30 s']);
      expect(entry.until - Date.now()).toBeLessThanOrEqual(30_000);
      expect(entry.until - Date.now()).toBeGreaterThan(20_000); // Retry-After 30, not the default 60 s
    } finally {
      bridge.close();
    }
  });

  it('first server refuses TCP: a transport error, the second at once', async () => {
    const { bridge, locator } = await setup();
    try {
      const report = await bridge.send(options(`sip:svc@refuse.${ORIGIN};transport=tcp`));
      expect(tries(report)).toEqual([`tcp ${hosts.dead} transport-error -`, `tcp ${hosts.live} response 200`]);
      expect(report.attempts[0]!.error).toMatchObject({ code: 'BRIDGE_ERR_TRANSPORT' });
      expect(locator.penaltyBox.get({ transport: 'tcp', address: hosts.dead, port })?.reason).toBe('transport-error');
      // The next request goes straight to the live server: the refusing one is in the penalty box.
      expect(tries(await bridge.send(options(`sip:svc@refuse.${ORIGIN};transport=tcp`)))).toEqual([
        `tcp ${hosts.live} response 200`,
      ]);
    } finally {
      bridge.close();
    }
  });

  it('non-INVITE timeouts boxed: the next request goes straight to the second (nsd + system resolver)', async () => {
    let nsd: NsdServer | undefined;
    try {
      nsd = await startNsd([{ name: ORIGIN, text: zone }]);
      const system = new SystemResolver(
        { nameservers: [nsd.endpoint], resolvConf: '/nonexistent/resolv.conf' },
        { timeoutMs: 2000, attempts: 2 },
      );
      const { bridge } = await setup({ plugin: system, policy: { penalty: { nonInviteTimeoutMs: 60_000 } } });
      try {
        expect(tries(await bridge.send(options(`sip:svc@dead.${ORIGIN}`)))).toEqual([
          `udp ${hosts.dead} timeout -`,
          `udp ${hosts.live} response 200`,
        ]);
        expect(tries(await bridge.send(options(`sip:svc@dead.${ORIGIN}`)))).toEqual([`udp ${hosts.live} response 200`]);
        expect(tries(await bridge.send(options(`sip:svc@dead.${ORIGIN}`)))).toEqual([`udp ${hosts.live} response 200`]);
      } finally {
        bridge.close();
        await system.close();
      }
    } finally {
      await nsd?.stop();
    }
  });

  it(
    'shares requests by SRV weight (80/20): each request goes to the first target of its own weighted ' + 'draw',
    async () => {
      const n = 200;
      const { bridge } = await setup({ seed: 7 });
      const expected = await drawFirstTargets(
        new SipLocator(new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })], { random: seededRandom(7) }), {
          ipv6: false,
        }),
        `sip:svc@weights.${ORIGIN}`,
        n,
      );
      try {
        const answered: Record<string, number> = {};
        for (let i = 0; i < n; i++) {
          const report = await bridge.send(options(`sip:svc@weights.${ORIGIN}`));
          expect(report.attempts).toHaveLength(1);
          const host = report.answeredBy!.host;
          answered[host] = (answered[host] ?? 0) + 1;
        }
        expect(answered).toEqual(expected.first);
        // 80/20 over 200 draws: far from an even split, within 4 standard deviations of 160.
        expect(answered[`weighted-server.${ORIGIN}`]).toBeGreaterThan(137);
        expect(answered[`weighted-server.${ORIGIN}`]).toBeLessThan(183);
      } finally {
        bridge.close();
      }
    },
  );

  it(
    'Call-ID affinity: a sipp client on the second server starts a dialog; the in-dialog INFO goes back to ' + 'it',
    async () => {
      let acked: (request: SipRequest) => void = () => {};
      const ack = new Promise<SipRequest>((resolve) => (acked = resolve));
      let invite: SipRequest | undefined;
      const setupDone = await setup({
        onRequest: (request) => {
          if (request.method === 'INVITE') {
            invite = request;
            const ok = sip.makeResponse(request, 200, 'OK');
            ok.headers.to = { ...request.headers.to!, params: { ...request.headers.to!.params, tag: 'app' } };
            ok.headers.contact = [{ uri: `sip:app@127.0.0.1:${setupDone.localPort}` }];
            void setupDone.bridge.send(ok);
          }
          if (request.method === 'ACK') acked(request);
        },
      });
      const { bridge } = setupDone;
      const client = await startSippClient({
        scenario: dialogScenario(),
        address: hosts.dialog,
        port,
        transport: 'udp',
        remote: `127.0.0.1:${setupDone.localPort}`,
      });
      try {
        // The sipp client ends on its own on any failure: its exit must not leave the test waiting.
        await Promise.race([
          ack,
          client.exited.then((code) =>
            Promise.reject(new Error(`sipp client exited (${code}) before the ACK: ${client.stderr()}`)),
          ),
        ]);
        const info: SipRequest = {
          method: 'INFO',
          uri: `sip:svc@cluster.${ORIGIN}`,
          headers: {
            to: invite!.headers.from,
            from: { ...invite!.headers.to!, params: { tag: 'app' } },
            'call-id': invite!.headers['call-id'],
            cseq: { method: 'INFO', seq: 2 },
          },
        };
        const report = await bridge.send(info);
        expect(tries(report)).toEqual([`udp ${hosts.dialog} response 200 pinned`]);
        expect(await client.exited).toBe(0); // sipp got the INFO and its call succeeded
        // Without the dialog, the same URI starts with the priority-10 server.
        expect(tries(await bridge.send(options(`sip:svc@cluster.${ORIGIN}`, 'INFO')))).toEqual([
          `udp ${hosts.weighted} response 200`,
        ]);
      } finally {
        await client.stop();
        bridge.close();
      }
    },
  );

  it('TLS: connects to the address, checks the certificate against the host name (SNI), never the IP', async () => {
    const { bridge } = await setup();
    const [wrongPeer, rightPeer] = failoverPeers.tlsPeers;
    try {
      const report = await bridge.send(options(`sips:svc@tls.${ORIGIN}`));
      expect(tries(report)).toEqual([`tls ${hosts.tlsWrong} transport-error -`, `tls ${hosts.tlsRight} response 200`]);
      expect(String((report.attempts[0]!.error as Error).cause)).toMatch(/altnames|other\.example/);
      expect(wrongPeer!.serverNames).toEqual([`tls.${ORIGIN}`]);
      expect(rightPeer!.serverNames).toEqual([`tls.${ORIGIN}`]);
      expect(rightPeer!.requests.map((r) => r.method)).toEqual(['OPTIONS']);
      expect(rightPeer!.requests[0]!.uri).toBe(`sips:svc@tls.${ORIGIN}`); // the Request-URI is never rewritten
    } finally {
      bridge.close();
    }
  });
});
