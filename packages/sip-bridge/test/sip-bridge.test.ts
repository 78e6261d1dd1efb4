/**
 * The bridge against node SIP peers on loopback (sipp plays the servers in test/sipp-*.test.ts):
 * failover on 503, transport errors and silence; provisional responses; exhaustion; CANCEL and
 * the ACK of a non-2xx on the target that took the INVITE; the ACK of a 2xx by the route set;
 * strict routes; the 1300-byte rule; Call-ID affinity; TLS server names; bad input.
 * Per-target timer 300 ms; no timing is asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sip from 'sip';
import { InvalidArgumentError } from '@dnscore/core';
import { NoTargetsError, TargetsExhaustedError, TransactionTimeoutError, type SipLocatorOptions } from '@dnscore/sip';
import {
  BridgeClosedError,
  CancelNotSentError,
  InvalidSipMessageError,
  UnknownTransactionError,
} from '../src/errors.js';
import type { SendReport } from '../src/send-report.js';
import { SipBridge, type SipBridgeOptions } from '../src/sip-bridge.js';
import type { SipRequest, SipResponse } from '../src/sip-stack.js';
import { request, tries, zoneBridge } from './support/bridge.js';
import {
  PEER,
  answer,
  freePort,
  makeCertificate,
  silent,
  startSipPeer,
  type SipPeer,
  type TestCertificate,
} from './support/peers.js';

const ORIGIN = 'bridge.test';
const A = {
  busy: PEER(10),
  live: PEER(11),
  silent: PEER(12),
  ring503: PEER(13),
  ring200: PEER(14),
  ringSilent: PEER(15),
  cancel: PEER(16),
  contact: PEER(17),
  proxy: PEER(18),
  strict: PEER(19),
  tls: PEER(20),
  busy2: PEER(21),
  error500: PEER(22),
  /** Nothing listens on these: UDP is silent. */
  quiet: [PEER(23), PEER(24), PEER(25), PEER(26), PEER(27), PEER(28)],
  tlsRefused: [PEER(29), PEER(30)],
  udpDowngrade: PEER(31),
  /** Answer an INVITE only after the per-target timer ran out: 200, or 486. */
  late200: PEER(32),
  late486: PEER(33),
  /** Answers an INVITE after the per-target timer ran out with a 503 and Retry-After: 120. */
  late503: PEER(34),
  /** Ring (180) only 150 ms after an INVITE; a CANCEL is answered 200 and the INVITE 487. */
  slow180: PEER(35),
  /** Answer an INVITE 486 after 150 ms, with no provisional response before. */
  slow486: PEER(36),
};
/** At slow180: whether each CANCEL came after the 180 had been sent (RFC 3261 section 9.1). */
const cancelAfter180: boolean[] = [];

let port: number;
let zone: string;
let cert: TestCertificate;
const peers: Record<string, SipPeer> = {};

beforeAll(async () => {
  port = await freePort(A.live);
  zone = `$ORIGIN ${ORIGIN}.
$TTL 300
@ IN SOA ns h 1 3600 600 86400 300
_sip._udp.busy IN SRV 10 0 ${port} busy
_sip._udp.busy IN SRV 20 0 ${port} live
_sip._udp.silent IN SRV 10 0 ${port} silent
_sip._udp.silent IN SRV 20 0 ${port} live
_sip._udp.ring503 IN SRV 10 0 ${port} ring503
_sip._udp.ring503 IN SRV 20 0 ${port} live
_sip._udp.ring200 IN SRV 10 0 ${port} ring200
_sip._udp.ringsilent IN SRV 10 0 ${port} ring-silent
_sip._udp.cancel IN SRV 10 0 ${port} silent
_sip._udp.cancel IN SRV 20 0 ${port} cancel
_sip._udp.allbusy IN SRV 10 0 ${port} busy
_sip._udp.allbusy IN SRV 20 0 ${port} busy2
_sip._udp.allsilent IN SRV 10 0 ${port} silent
_sip._tcp.refused IN SRV 10 0 ${port} silent
_sip._udp.live IN SRV 10 0 ${port} live
_sip._udp.cluster IN SRV 10 0 ${port} live
_sip._udp.cluster IN SRV 20 0 ${port} busy
_sips._tcp.tls IN SRV 10 0 ${port} tls-target
_sip._udp.err500 IN SRV 10 0 ${port} error500
_sip._udp.late200 IN SRV 10 0 ${port} late200
_sip._udp.late200 IN SRV 20 0 ${port} live
_sip._udp.late486 IN SRV 10 0 ${port} late486
_sip._udp.late486 IN SRV 20 0 ${port} live
late200 IN A ${A.late200}
late486 IN A ${A.late486}
_sip._udp.late503 IN SRV 10 0 ${port} late503
_sip._udp.late503 IN SRV 20 0 ${port} live
late503 IN A ${A.late503}
_sip._udp.slow180 IN SRV 10 0 ${port} slow180
slow180 IN A ${A.slow180}
_sip._udp.slow486 IN SRV 10 0 ${port} slow486
slow486 IN A ${A.slow486}
_sip._udp.err500 IN SRV 20 0 ${port} live
${A.quiet.map((_, i) => `_sip._udp.quiet IN SRV ${10 + i} 0 ${port} quiet${i}`).join('\n')}
_sip._udp.busyquiet IN SRV 10 0 ${port} busy
${A.quiet.map((_, i) => `_sip._udp.busyquiet IN SRV ${20 + i} 0 ${port} quiet${i}`).join('\n')}
${A.quiet.map((a, i) => `quiet${i} IN A ${a}`).join('\n')}
error500 IN A ${A.error500}
downgrade IN NAPTR 10 10 "s" "SIPS+D2T" "" _sips._tcp.downgrade
downgrade IN NAPTR 10 20 "s" "SIP+D2U" "" _sip._udp.downgrade
_sips._tcp.downgrade IN SRV 10 0 ${port} tls-refused0
_sips._tcp.downgrade IN SRV 20 0 ${port} tls-refused1
_sip._udp.downgrade IN SRV 10 0 ${port} udp-downgrade
tls-refused0 IN A ${A.tlsRefused[0]}
tls-refused1 IN A ${A.tlsRefused[1]}
udp-downgrade IN A ${A.udpDowngrade}
busy IN A ${A.busy}
busy2 IN A ${A.busy2}
live IN A ${A.live}
silent IN A ${A.silent}
ring503 IN A ${A.ring503}
ring200 IN A ${A.ring200}
ring-silent IN A ${A.ringSilent}
cancel IN A ${A.cancel}
proxy IN A ${A.proxy}
strict IN A ${A.strict}
tls-target IN A ${A.tls}
`;
  cert = makeCertificate({ dns: [`tls-target.${ORIGIN}`] });
  const start = (
    name: string,
    address: string,
    behaviour: Parameters<typeof startSipPeer>[0]['behaviour'],
    transport: 'udp' | 'tcp' | 'tls' = 'udp',
  ) =>
    startSipPeer({ transport, address, port, behaviour, ...(transport === 'tls' ? { tls: cert } : {}) }).then(
      (p) => (peers[name] = p),
    );
  await start('busy', A.busy, answer(503, { 'retry-after': '20' }));
  await start('busy2', A.busy2, answer(503, { 'retry-after': '7 (maintenance)' }));
  await start('live', A.live, answer(200));
  await start('liveTcp', A.live, answer(200), 'tcp');
  await start('ring503', A.ring503, () => [{ status: 180 }, { status: 503, delayMs: 20 }]);
  await start('ring200', A.ring200, () => [{ status: 180 }, { status: 200, delayMs: 20 }]);
  await start('ringSilent', A.ringSilent, () => [{ status: 183 }]);
  await start('cancel', A.cancel, (rq, earlier) => {
    if (rq.method === 'INVITE') return [{ status: 180 }];
    const invite = earlier.find(
      (r) => r.method === 'INVITE' && r.headers.via[0]!.params.branch === rq.headers.via[0]!.params.branch,
    );
    return rq.method === 'CANCEL' && invite ? [{ status: 200 }, { status: 487, request: invite }] : [];
  });
  await start('contact', A.contact, silent);
  await start('proxy', A.proxy, silent);
  await start('strict', A.strict, answer(200));
  await start('tls', A.tls, answer(200), 'tls');
  await start('error500', A.error500, answer(500));
  await start('udpDowngrade', A.udpDowngrade, answer(200));
  // 600 ms: after the 300 ms per-target timer, so the walk has moved on.
  await start('late200', A.late200, (rq) => (rq.method === 'INVITE' ? [{ status: 200, delayMs: 600 }] : []));
  await start('late486', A.late486, (rq) => (rq.method === 'INVITE' ? [{ status: 486, delayMs: 600 }] : []));
  let ringing = false;
  await start('slow180', A.slow180, (rq, earlier) => {
    if (rq.method === 'INVITE') {
      // Set just before the peer's own 180 timer of the same delay fires (timers keep their order).
      ringing = false;
      setTimeout(() => (ringing = true), 150);
      return [{ status: 180, delayMs: 150 }];
    }
    const invite = earlier.find(
      (r) => r.method === 'INVITE' && r.headers.via[0]!.params.branch === rq.headers.via[0]!.params.branch,
    );
    if (rq.method !== 'CANCEL' || !invite) return [];
    cancelAfter180.push(ringing);
    return [{ status: 200 }, { status: 487, request: invite }];
  });
  await start('slow486', A.slow486, (rq) => (rq.method === 'INVITE' ? [{ status: 486, delayMs: 150 }] : []));
  await start('late503', A.late503, (rq) =>
    rq.method === 'INVITE' ? [{ status: 503, delayMs: 600, headers: { 'retry-after': '120' } }] : [],
  );
});

afterAll(async () => {
  for (const peer of Object.values(peers)) await peer.close();
});

const bridge = (options: SipBridgeOptions = {}, policy: SipLocatorOptions = {}): Promise<SipBridge> =>
  zoneBridge(zone, { tls: { ca: cert.cert }, ...options }, policy);

async function send(b: SipBridge, rq: SipRequest): Promise<{ report: SendReport; statuses: number[] }> {
  const statuses: number[] = [];
  const report = await b.send(rq, (rs) => statuses.push(rs.status));
  return { report, statuses };
}

const last = (peer: SipPeer, method?: string) =>
  [...peer.requests].reverse().find((r) => !method || r.method === method)!;

/** The CANCEL of an INVITE the bridge sent (RFC 3261 section 9.1: its top Via, To, From, Call-ID, CSeq number). */
function cancelOf(invite: SipRequest): SipRequest {
  return {
    method: 'CANCEL',
    uri: invite.uri,
    headers: {
      via: [invite.headers.via![0]!],
      to: invite.headers.to,
      from: invite.headers.from,
      'call-id': invite.headers['call-id'],
      cseq: { method: 'CANCEL', seq: (invite.headers.cseq as { seq: number }).seq },
    },
  };
}

describe('SipBridge: failover', () => {
  it('503 fails over at once; Retry-After sets the penalty; the application sees only the answer', async () => {
    const b = await bridge();
    const { report, statuses } = await send(b, request(`sip:svc@busy.${ORIGIN}`));
    expect(tries(report)).toEqual([`udp ${A.busy} failover 503`, `udp ${A.live} response 200`]);
    expect([report.answeredBy?.address, report.response?.status, statuses]).toEqual([A.live, 200, [200]]);
    const boxed = b.locator.penaltyBox.get({ transport: 'udp', address: A.busy, port })!;
    expect(boxed.until - Date.now()).toBeLessThanOrEqual(20_000);
    // Each try was a new client transaction with a new branch; the Request-URI was not rewritten.
    const [first, second] = [last(peers.busy!), last(peers.live!)];
    expect(first.headers.via[0]!.params.branch).not.toBe(second.headers.via[0]!.params.branch);
    expect([first.uri, second.uri]).toEqual([`sip:svc@busy.${ORIGIN}`, `sip:svc@busy.${ORIGIN}`]);
  });

  it('silence fails over after the per-target timer; an OPTIONS leaves the silent target out of the box', async () => {
    const b = await bridge();
    for (let i = 0; i < 2; i++) {
      expect(tries((await send(b, request(`sip:svc@silent.${ORIGIN}`))).report)).toEqual([
        `udp ${A.silent} timeout -`,
        `udp ${A.live} response 200`,
      ]);
    }
    expect(b.locator.penaltyBox.entries()).toEqual([]);
  });

  it('an INVITE met by silence boxes the target with its reason; the next request skips it and says why', async () => {
    const b = await bridge();
    const invite = await send(b, request(`sip:svc@silent.${ORIGIN}`, 'INVITE'));
    expect(tries(invite.report)).toEqual([`udp ${A.silent} timeout -`, `udp ${A.live} response 200`]);
    const entry = b.locator.penaltyBox.get({ transport: 'udp', address: A.silent, port })!;
    expect(entry).toMatchObject({ reason: 'timeout', detail: 'no response to INVITE within 300 ms' });
    const next = await send(b, request(`sip:svc@silent.${ORIGIN}`));
    expect(tries(next.report)).toEqual([`udp ${A.live} response 200`]);
    expect(next.report.attempts[0]!.skipped).toEqual([entry]);
  });

  it('a 500 is the answer by default; with failoverOn [500, 503] it moves on, unseen by the application', async () => {
    const plain = await bridge();
    const carrier = await bridge({}, { failoverOn: [500, 503] });
    const answered = await send(plain, request(`sip:svc@err500.${ORIGIN}`));
    expect(tries(answered.report)).toEqual([`udp ${A.error500} response 500`]);
    expect([answered.report.answeredBy?.address, answered.statuses]).toEqual([A.error500, [500]]);
    const moved = await send(carrier, request(`sip:svc@err500.${ORIGIN}`));
    expect(tries(moved.report)).toEqual([`udp ${A.error500} failover 500`, `udp ${A.live} response 200`]);
    expect([moved.report.answeredBy?.address, moved.statuses]).toEqual([A.live, [200]]);
    expect(carrier.locator.penaltyBox.entries()).toEqual([]); // one request failed there, not the server
  });

  it('the transaction bound: six silent servers, 300 ms each, 1000 ms in all: the last try capped, a 408', async () => {
    const b = await bridge({}, { transactionTimeoutMs: 1_000 });
    const { report, statuses } = await send(b, request(`sip:svc@quiet.${ORIGIN}`, 'INVITE'));
    expect(report.error).toBeInstanceOf(TransactionTimeoutError);
    expect([report.answeredBy, report.response?.status, statuses]).toEqual([null, 408, [408]]);
    const { attempts } = report;
    // Fewer tries than servers; the order of the SRV priorities; only the last timer cut by the bound.
    expect(attempts.length).toBeLessThan(A.quiet.length);
    expect(attempts.map((a) => a.target.address)).toEqual(A.quiet.slice(0, attempts.length));
    expect(attempts.map((a) => a.outcome)).toEqual(attempts.map(() => 'timeout'));
    expect(attempts.slice(0, -1).map((a) => [a.timeoutMs, a.capped])).toEqual(
      attempts.slice(0, -1).map(() => [300, false]),
    );
    expect(attempts.at(-1)!.capped).toBe(true);
    expect(attempts.at(-1)!.timeoutMs).toBeLessThan(300);
    expect(attempts.reduce((sum, a) => sum + a.timeoutMs, 0)).toBeLessThanOrEqual(1_000);
    // INVITE timeouts are boxed; the capped try is not.
    expect(b.locator.penaltyBox.entries().map((e) => e.address)).toEqual(A.quiet.slice(0, attempts.length - 1));
  });

  it('the transaction bound after a real 503: the application gets that 503, not a 408', async () => {
    const b = await bridge({}, { transactionTimeoutMs: 800 });
    const { report, statuses } = await send(b, request(`sip:svc@busyquiet.${ORIGIN}`));
    expect(tries(report)[0]).toBe(`udp ${A.busy} failover 503`);
    expect(report.error).toBeInstanceOf(TransactionTimeoutError);
    expect([report.response?.status, report.response?.headers['retry-after'], statuses]).toEqual([503, '20', [503]]);
  });

  it('issue 14: a sips: URI whose TLS servers all refuse ends there; the UDP server gets nothing', async () => {
    const b = await bridge();
    const { report, statuses } = await send(b, request(`sips:svc@downgrade.${ORIGIN}`));
    expect(tries(report)).toEqual([
      `tls ${A.tlsRefused[0]} transport-error -`,
      `tls ${A.tlsRefused[1]} transport-error -`,
    ]);
    expect(report.error).toBeInstanceOf(TargetsExhaustedError);
    expect([report.answeredBy, report.response?.status, statuses]).toEqual([null, 503, [503]]);
    expect(peers.udpDowngrade!.requests).toEqual([]);
  });

  it('a refused TCP connection is a transport error at once', async () => {
    const b = await bridge();
    const { report, statuses } = await send(b, request(`sip:svc@refused.${ORIGIN};transport=tcp`));
    expect(tries(report)).toEqual([`tcp ${A.silent} transport-error -`]);
    expect(report.error).toBeInstanceOf(TargetsExhaustedError);
    expect([report.answeredBy, report.response?.status, statuses]).toEqual([null, 503, [503]]);
  });

  it('a provisional response ends the timer; a 503 after it still fails over', async () => {
    const b = await bridge();
    const { report, statuses } = await send(b, request(`sip:svc@ring503.${ORIGIN}`));
    expect(tries(report)).toEqual([`udp ${A.ring503} failover 503`, `udp ${A.live} response 200`]);
    expect(statuses).toEqual([180, 200]);
    const ringing = await send(b, request(`sip:svc@ring200.${ORIGIN}`));
    expect([tries(ringing.report), ringing.statuses]).toEqual([[`udp ${A.ring200} response 200`], [180, 200]]);
  });

  it('a non-INVITE that got a provisional response and then nothing ends by Timer F with a 408', async () => {
    const b = await bridge({ nonInviteTimeoutMs: 400 });
    const { report, statuses } = await send(b, request(`sip:svc@ringsilent.${ORIGIN}`));
    expect(tries(report)).toEqual([`udp ${A.ringSilent} timeout -`]);
    expect([report.answeredBy, statuses]).toEqual([null, [183, 408]]);
  });

  it('when every target fails: the last real 503 (with its headers), else 408 after silence', async () => {
    const b = await bridge();
    const busy = await send(b, request(`sip:svc@allbusy.${ORIGIN}`));
    expect(tries(busy.report)).toEqual([`udp ${A.busy} failover 503`, `udp ${A.busy2} failover 503`]);
    expect(busy.report.response?.headers['retry-after']).toBe('7 (maintenance)');
    expect(busy.statuses).toEqual([503]);
    const quiet = await send(b, request(`sip:svc@allsilent.${ORIGIN}`));
    expect([quiet.report.response?.status, quiet.statuses, quiet.report.error]).toEqual([
      408,
      [408],
      expect.any(TargetsExhaustedError),
    ]);
  });

  it('no targets at all: a 503 made by the bridge, and the resolution error', async () => {
    const b = await bridge();
    const { report, statuses } = await send(b, request(`sip:svc@nowhere.${ORIGIN}`));
    expect([report.attempts, statuses, report.error]).toEqual([[], [503], expect.any(NoTargetsError)]);
  });
});

describe('SipBridge: what stays on the target that took the request', () => {
  it('CANCEL goes where the INVITE went (not the first target); the ACK of the 487 too', async () => {
    const b = await bridge();
    const invite = request(`sip:bob@cancel.${ORIGIN}`, 'INVITE');
    const statuses: number[] = [];
    let ringing: () => void = () => {};
    const rang = new Promise<void>((r) => (ringing = r));
    const walk = b.send(invite, (rs) => {
      statuses.push(rs.status);
      if (rs.status === 180) ringing();
    });
    await rang;
    const cancel = cancelOf(invite);
    const cancelled = await b.send(cancel);
    expect(tries(cancelled)).toEqual([`udp ${A.cancel} response 200`]);
    const report = await walk;
    expect(tries(report)).toEqual([`udp ${A.silent} timeout -`, `udp ${A.cancel} response 487`]);
    expect(statuses).toEqual([180, 487]);
    while (!peers.cancel!.requests.some((r) => r.method === 'ACK')) await new Promise((r) => setTimeout(r, 5));
    const methods = peers.cancel!.requests.map(
      (r) => `${r.method} ${r.headers.via[0]!.params.branch === invite.headers.via![0]!.params.branch}`,
    );
    expect(methods).toEqual(['INVITE true', 'CANCEL true', 'ACK true']);
  });

  it('a CANCEL asked for before any provisional response waits for one (RFC 3261 section 9.1)', async () => {
    const b = await bridge();
    const invite = request(`sip:bob@slow180.${ORIGIN}`, 'INVITE');
    const walk = b.send(invite);
    while (!invite.headers.via?.[0]?.params.branch) await new Promise((r) => setTimeout(r, 5));
    const cancelled = await b.send(cancelOf(invite)); // at once: the 180 comes 150 ms later
    const report = await walk;
    expect([cancelled.response?.status, cancelled.error, report.response?.status]).toEqual([200, undefined, 487]);
    expect(cancelAfter180).toEqual([true]);
    const branch = invite.headers.via![0]!.params.branch;
    while (!peers.slow180!.requests.some((r) => r.method === 'ACK')) await new Promise((r) => setTimeout(r, 5));
    expect(peers.slow180!.requests.map((r) => `${r.method} ${r.headers.via[0]!.params.branch === branch}`)).toEqual([
      'INVITE true',
      'CANCEL true',
      'ACK true',
    ]);
  });

  it('a CANCEL whose INVITE gets a final response before any provisional one is never sent', async () => {
    const b = await bridge();
    const invite = request(`sip:bob@slow486.${ORIGIN}`, 'INVITE');
    const walk = b.send(invite);
    while (!invite.headers.via?.[0]?.params.branch) await new Promise((r) => setTimeout(r, 5));
    const cancelled = await b.send(cancelOf(invite));
    expect((await walk).response?.status).toBe(486);
    expect([
      cancelled.response,
      cancelled.attempts,
      (cancelled.error as CancelNotSentError).code,
      cancelled.error?.message,
    ]).toEqual([
      null,
      [],
      'BRIDGE_ERR_CANCEL_NOT_SENT',
      'the INVITE got a final response (486) before any provisional one: no CANCEL was sent (RFC 3261 section 9.1)',
    ]);
    expect(cancelled.error).toBeInstanceOf(CancelNotSentError);
    while (!peers.slow486!.requests.some((r) => r.method === 'ACK')) await new Promise((r) => setTimeout(r, 5));
    expect(peers.slow486!.requests.map((r) => r.method)).toEqual(['INVITE', 'ACK']);
  });

  it('a CANCEL sent while the INVITE waits on a silent target ends the walk: no later target gets it', async () => {
    const b = await bridge();
    const invite = request(`sip:bob@cancel.${ORIGIN}`, 'INVITE');
    const before = peers.cancel!.requests.length;
    const statuses: number[] = [];
    const walk = b.send(invite, (rs) => statuses.push(rs.status));
    // The first try is out (its branch is in the request) to the silent target: nothing listens there.
    while (!invite.headers.via?.[0]?.params.branch) await new Promise((r) => setTimeout(r, 5));
    const cancel = cancelOf(invite);
    void b.send(cancel); // the silent target never answers it; the bridge's close ends it
    const report = await walk;
    expect(tries(report)).toEqual([`udp ${A.silent} timeout -`]);
    expect([report.response?.status, statuses, report.error instanceof TargetsExhaustedError]).toEqual([
      408,
      [408],
      true,
    ]);
    expect(peers.cancel!.requests.slice(before)).toEqual([]);
  }, 5000);

  it('an INVITE answered after its timer: a late 2xx goes to the application, a late 486 is ACKed', async () => {
    const b = await bridge();
    const received: string[] = [];
    const invite = request(`sip:bob@late200.${ORIGIN}`, 'INVITE');
    const report = await b.send(invite, (rs) => received.push(`${rs.status} ${rs.headers.via?.[0]?.params.branch}`));
    expect(tries(report)).toEqual([`udp ${A.late200} timeout -`, `udp ${A.live} response 200`]);
    const first = peers.late200!.requests.find((r) => r.headers['call-id'] === invite.headers['call-id'])!;
    const lateBranch = first.headers.via[0]!.params.branch;
    // RFC 3261 13.2.2.4: every 2xx of an INVITE reaches the UAC core, which ACKs it (and may BYE it).
    while (received.length < 2) await new Promise((r) => setTimeout(r, 5));
    expect(received).toEqual([`200 ${invite.headers.via![0]!.params.branch}`, `200 ${lateBranch}`]);

    const busy: number[] = [];
    const other = request(`sip:bob@late486.${ORIGIN}`, 'INVITE');
    const moved = await b.send(other, (rs) => busy.push(rs.status));
    expect(tries(moved)).toEqual([`udp ${A.late486} timeout -`, `udp ${A.live} response 200`]);
    const at486 = () => peers.late486!.requests.filter((r) => r.headers['call-id'] === other.headers['call-id']);
    // The transaction of the try that was left ACKs its non-2xx (RFC 3261 17.1.1.3); the application never sees it.
    while (!at486().some((r) => r.method === 'ACK')) await new Promise((r) => setTimeout(r, 5));
    // (the INVITE may have been retransmitted meanwhile: its transaction lives on)
    expect([...new Set(at486().map((r) => `${r.method} ${r.headers.via[0]!.params.branch}`))]).toEqual([
      `INVITE ${at486()[0]!.headers.via[0]!.params.branch}`,
      `ACK ${at486()[0]!.headers.via[0]!.params.branch}`,
    ]);
    expect(busy).toEqual([200]);
  }, 5000);

  it('a late 503 with Retry-After boxes its server that long (RFC 3261 21.5.4), not its timeout', async () => {
    const b = await bridge();
    const invite = request(`sip:bob@late503.${ORIGIN}`, 'INVITE');
    const statuses: number[] = [];
    const report = await b.send(invite, (rs) => statuses.push(rs.status));
    expect(tries(report)).toEqual([`udp ${A.late503} timeout -`, `udp ${A.live} response 200`]);
    const key = { transport: 'udp' as const, address: A.late503, port };
    // Boxed for its silence first (an INVITE met by silence), then by the 503 that came late.
    expect(b.locator.penaltyBox.get(key)).toMatchObject({ reason: 'timeout' });
    while (b.locator.penaltyBox.get(key)?.reason !== 'retry-after') await new Promise((r) => setTimeout(r, 5));
    const boxed = b.locator.penaltyBox.get(key)!;
    expect(boxed.until - Date.now()).toBeGreaterThan(60_000);
    expect(boxed.until - Date.now()).toBeLessThanOrEqual(120_000);
    expect(statuses).toEqual([200]); // the late 503 is the transaction's to ACK, never the application's
  }, 5000);

  it(
    'the ACK of a 2xx is a new transaction that follows the route set: Request-URI target, or the loose ' + 'Route',
    async () => {
      const b = await bridge();
      const invite = request(`sip:bob@live.${ORIGIN}`, 'INVITE');
      const ok = await b.send(invite);
      expect(ok.response?.status).toBe(200);
      const inviteBranch = invite.headers.via![0]!.params.branch;
      const ack = (uri: string, route?: SipRequest['headers']['route']): SipRequest => ({
        method: 'ACK',
        uri,
        headers: {
          via: [...invite.headers.via!],
          to: ok.response!.headers.to,
          from: invite.headers.from,
          'call-id': invite.headers['call-id'],
          cseq: { method: 'ACK', seq: 1 },
          ...(route ? { route } : {}),
        },
      });
      const direct = await b.send(ack(`sip:bob@${A.contact}:${port}`));
      expect(direct.sentTo?.address).toBe(A.contact);
      const proxied = await b.send(ack(`sip:bob@${A.contact}:${port}`, [{ uri: `sip:proxy.${ORIGIN}:${port};lr` }]));
      expect(proxied.sentTo?.address).toBe(A.proxy);
      while (peers.proxy!.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      const atProxy = last(peers.proxy!, 'ACK');
      expect(atProxy.uri).toBe(`sip:bob@${A.contact}:${port}`); // the Request-URI stays the remote target
      expect(atProxy.headers.via).toHaveLength(1);
      expect(atProxy.headers.via[0]!.params.branch).not.toBe(inviteBranch);
      expect(peers.live!.requests.filter((r) => r.method === 'ACK')).toEqual([]);
    },
  );

  it('a strict first route becomes the Request-URI; the remote target goes last in Route', async () => {
    const b = await bridge();
    const rq = request(`sip:bob@${A.contact}:${port}`, 'OPTIONS', {
      route: [{ uri: `sip:strict.${ORIGIN}:${port}` }],
    });
    expect(tries(await b.send(rq))).toEqual([`udp ${A.strict} response 200`]);
    const seen = last(peers.strict!);
    expect(seen.uri).toBe(`sip:strict.${ORIGIN}:${port}`);
    expect(sip.stringifyUri((seen.headers.route as { uri: never }[])[0]!.uri)).toBe(`sip:bob@${A.contact}:${port}`);
  });

  it('a request over 1300 bytes for a UDP target goes over TCP to the same address and port', async () => {
    const b = await bridge();
    const rq = {
      ...request(`sip:svc@live.${ORIGIN}`, 'MESSAGE', { 'content-type': 'text/plain' }),
      content: 'x'.repeat(1400),
    };
    const report = await b.send(rq);
    expect(tries(report)).toEqual([`tcp ${A.live} response 200 switched`]);
    expect(last(peers.liveTcp!).headers.via[0]).toMatchObject({ protocol: 'TCP' });
  });

  it('the ACK of a 2xx over 1300 bytes (an SDP answer) for a UDP target goes over TCP too', async () => {
    const b = await bridge();
    const invite = request(`sip:bob@live.${ORIGIN}`, 'INVITE');
    const ok = await b.send(invite);
    const before = peers.liveTcp!.requests.length;
    const ack: SipRequest = {
      method: 'ACK',
      uri: `sip:bob@live.${ORIGIN}`,
      headers: {
        to: ok.response!.headers.to,
        from: invite.headers.from,
        'call-id': invite.headers['call-id'],
        cseq: { method: 'ACK', seq: 1 },
        'content-type': 'application/sdp',
      },
      content: 'a=x\r\n'.repeat(300),
    };
    const sent = await b.send(ack);
    expect([sent.sentTo?.transport, sent.sentTo?.address]).toEqual(['tcp', A.live]);
    while (peers.liveTcp!.requests.length === before) await new Promise((r) => setTimeout(r, 5));
    expect(peers.liveTcp!.requests.slice(before).map((r) => `${r.method} ${r.headers.via[0]!.protocol}`)).toEqual([
      'ACK TCP',
    ]);
  });

  it('Call-ID affinity sends a dialog to its pinned server, but never overrides an IP literal', async () => {
    const b = await bridge();
    b.locator.dialogs.learnIncoming('dialog-1', { transport: 'udp', address: A.busy, port });
    b.locator.dialogs.learnIncoming('dialog-2', { transport: 'udp', address: A.busy, port });
    const pinned = await b.send({
      ...request(`sip:svc@cluster.${ORIGIN}`),
      headers: { ...request('x').headers, to: { uri: 'sip:svc@x' }, 'call-id': 'dialog-1' },
    });
    expect(tries(pinned)[0]).toBe(`udp ${A.busy} failover 503 pinned`);
    const literal = await b.send({
      ...request(`sip:svc@${A.live}:${port}`),
      headers: { ...request('x').headers, to: { uri: 'sip:svc@x' }, 'call-id': 'dialog-2' },
    });
    expect(tries(literal)).toEqual([`udp ${A.live} response 200`]);
  });

  it('TLS checks the SRV target name when asked to (tlsServerName: "target")', async () => {
    const domain = await bridge();
    const target = await bridge({ tlsServerName: 'target' });
    expect(tries(await domain.send(request(`sips:svc@tls.${ORIGIN}`)))).toEqual([`tls ${A.tls} transport-error -`]);
    expect(tries(await target.send(request(`sips:svc@tls.${ORIGIN}`)))).toEqual([`tls ${A.tls} response 200`]);
    expect(peers.tls!.serverNames).toEqual([`tls.${ORIGIN}`, `tls-target.${ORIGIN}`]);
  });

  it('a sips: Request-URI keeps TLS through a sip: loose Route (RFC 3261 26.2.2): never UDP to the proxy', async () => {
    const b = await bridge();
    const names = peers.tls!.serverNames.length;
    const requests = peers.tls!.requests.length;
    const rq = request(`sips:bob@elsewhere.${ORIGIN}`, 'OPTIONS', {
      route: [{ uri: `sip:tls-target.${ORIGIN}:${port};lr` }],
    });
    const report = await b.send(rq);
    expect(tries(report)).toEqual([`tls ${A.tls} response 200`]);
    expect([report.hop.from, report.hop.uri.text]).toEqual(['loose-route', `sips:tls-target.${ORIGIN}:${port};lr`]);
    expect(peers.tls!.serverNames.slice(names)).toEqual([`tls-target.${ORIGIN}`]);
    const seen = peers.tls!.requests.slice(requests);
    expect(seen.map((r) => r.uri)).toEqual([`sips:bob@elsewhere.${ORIGIN}`]);
    // The Route header is sent as the application gave it.
    expect(sip.stringifyUri((seen[0]!.headers.route as { uri: never }[])[0]!.uri)).toBe(
      `sip:tls-target.${ORIGIN}:${port};lr`,
    );
  });
});

describe('SipBridge: off-nominal', () => {
  it('refuses messages it cannot route, at once', async () => {
    const b = await bridge();
    const { 'call-id': _callId, ...noCallId } = request('sip:a@b.example').headers;
    expect(() => b.send({ method: 'OPTIONS', uri: 'sip:a@b.example', headers: noCallId })).toThrow(
      InvalidSipMessageError,
    );
    expect(() => b.send({ ...request('sip:a@b.example'), method: 'BAD METHOD' })).toThrow(/not a SIP method/);
    expect(() => b.send(request('tel:+1555'))).toThrow(InvalidSipMessageError);
    expect(() => b.send({ ...request('sip:a@b.example'), headers: { ...request('x').headers, cseq: 'one' } })).toThrow(
      /CSeq/,
    );
    const cancel = request('sip:a@b.example', 'CANCEL', { via: [{ params: { branch: 'z9hG4bKnever' } }] });
    expect(() => b.send(cancel)).toThrow(UnknownTransactionError);
    expect(() =>
      b.send(
        sip.makeResponse(
          request('sip:a@b.example', 'OPTIONS', { via: [{ params: { branch: 'z9hG4bKx' } }] }),
          200,
          'OK',
        ) as SipResponse,
      ),
    ).toThrow(UnknownTransactionError);
  });

  it('refuses bad options', async () => {
    await expect(bridge({ tlsServerName: 'ip' as never })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(bridge({ nonInviteTimeoutMs: 0 })).rejects.toThrow(/nonInviteTimeoutMs/);
    await expect(SipBridge.create(sip, undefined as never)).rejects.toThrow(/SipLocator/);
  });

  it('an exception in the application callback is reported, and the walk goes on', async () => {
    const errors: unknown[] = [];
    const b = await bridge({ onError: (e) => errors.push(e) });
    const report = await b.send(request(`sip:svc@live.${ORIGIN}`), () => {
      throw new Error('callback bug');
    });
    expect(report.answeredBy?.address).toBe(A.live);
    expect(errors).toEqual([new Error('callback bug')]);
  });

  it('close() ends a walk in progress with BridgeClosedError; later sends are refused', async () => {
    const b = await bridge();
    const walk = b.send(request(`sip:svc@ringsilent.${ORIGIN}`));
    while (!peers.ringSilent!.requests.length) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    b.close();
    expect((await walk).error).toBeInstanceOf(BridgeClosedError);
    expect(() => b.send(request('sip:a@b.example'))).toThrow(BridgeClosedError);
  });
});
