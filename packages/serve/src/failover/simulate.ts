/**
 * The failover ladder: requests to a URI walked by @dnscore/sip's real failover cursor and
 * penalty box, against simulated peers on a fake clock. A peer that is down is silent (UDP
 * retransmits at T1, 2*T1, ... until the per-target timer), answers 503, or refuses TCP (a
 * reset; over UDP it still answers). Nothing here chooses a target: the cursor does.
 */
import type { DnsApi } from '@dnscore/core';
import { destinationKey, normalizeAddress, SipLocator, type SipTarget, type TryOutcome } from '@dnscore/sip';
import { T1_MS } from '../defaults.js';
import type { FailoverQuestion, PeerFault } from '../api/question.js';

/** Delays of the simulated network and peers, ms. */
const ANSWER_MS = 10;
const FINAL_MS = 40;
const RESET_MS = 1;
/** Time between the end of one request and the next. */
const NEXT_REQUEST_MS = 1_000;

export interface Lane {
  /** "udp 203.0.113.11 5060" */
  readonly id: string;
  readonly label: string;
  readonly host: string;
  readonly fault: PeerFault | null;
}

export type LadderKind = 'request' | 'retransmission' | 'response' | 'ack' | 'error' | 'timer' | 'penalty' | 'note';

export interface LadderEvent {
  /** 1 for the first request. */
  readonly request: number;
  /** ms since the first request. */
  readonly at: number;
  /** Lane id of the server, or null for a note of the client. */
  readonly lane: string | null;
  /** client -> server, server -> client, or at the client. */
  readonly direction: 'out' | 'in' | 'local';
  readonly kind: LadderKind;
  readonly label: string;
}

export interface RequestSummary {
  readonly request: number;
  readonly at: number;
  readonly answeredBy: string | null;
  readonly attempts: readonly { lane: string; outcome: string; penalized: boolean }[];
}

export interface LadderJson {
  readonly uri: string;
  readonly method: 'INVITE';
  readonly timerMs: number;
  readonly lanes: readonly Lane[];
  readonly events: readonly LadderEvent[];
  readonly requests: readonly RequestSummary[];
  /** The penalty box after the last request. */
  readonly penaltyBox: readonly { lane: string; until: number; reason: string }[];
  readonly error: { code: string; message: string } | null;
}

export async function simulateFailover(dns: DnsApi, q: FailoverQuestion, signal: AbortSignal): Promise<LadderJson> {
  let now = Date.now();
  const start = now;
  const clock = { now: () => now };
  const locator = new SipLocator(dns, {
    transports: q.transports,
    ipv4: q.ipv4,
    ipv6: q.ipv6,
    clock,
    ...(q.timerMs !== undefined ? { targetTimeoutMs: q.timerMs } : {}),
  });
  const events: LadderEvent[] = [];
  const lanes = new Map<string, Lane>();
  const requests: RequestSummary[] = [];
  const rel = (): number => now - start;
  // The question's addresses are in one spelling (normalizeAddress): the targets' are put in it too.
  const faultOf = (address: string): PeerFault | undefined => q.down.get(normalizeAddress(address)?.address ?? address);
  const laneOf = (t: SipTarget): string => {
    const id = destinationKey(t);
    if (!lanes.has(id)) {
      const where = t.family === 6 ? `[${t.address}]:${t.port}` : `${t.address}:${t.port}`;
      lanes.set(id, {
        id,
        label: `${t.transport.toUpperCase()} ${where}`,
        host: t.host,
        fault: faultOf(t.address) ?? null,
      });
    }
    return id;
  };
  let error: LadderJson['error'] = null;

  for (let request = 1; request <= q.requests; request++) {
    const at = rel();
    const event = (lane: string | null, direction: LadderEvent['direction'], kind: LadderKind, label: string) =>
      events.push({ request, at: rel(), lane, direction, kind, label });
    event(null, 'local', 'note', `request ${request}: INVITE ${q.uri}`);
    for (const boxed of locator.penaltyBox.entries())
      event(
        destinationKey(boxed),
        'local',
        'penalty',
        `in the penalty box until ${seconds(boxed.until - start)}: tried last`,
      );
    // INVITEs: their timeouts go to the penalty box (@dnscore/sip's policy by method).
    const cursor = locator.cursor(q.uri, { signal, method: 'INVITE' });
    const attempts: { lane: string; outcome: string; penalized: boolean }[] = [];
    let answeredBy: string | null = null;
    try {
      for (;;) {
        const attempt = await cursor.next();
        if (!attempt) {
          const why =
            cursor.state === 'expired'
              ? `the transaction bound (${seconds(locator.policy.transactionTimeoutMs)}, Timer B) ran out`
              : 'every target failed';
          event(null, 'local', 'error', `${why}: request ${request} gets no answer`);
          break;
        }
        const lane = laneOf(attempt.target);
        if (attempt.penalized) event(lane, 'local', 'note', 'in the penalty box, but nothing better is left');
        const outcome = playTry(attempt.target, attempt.timeoutMs, faultOf(attempt.target.address), {
          advance: (ms) => {
            now += ms;
          },
          event: (direction, kind, label) => event(lane, direction, kind, label),
        });
        const verdict = cursor.report(attempt, outcome);
        attempts.push({ lane, outcome: describe(outcome), penalized: attempt.penalized });
        if (verdict === 'provisional') {
          // Alive: the final response follows.
          now += FINAL_MS - ANSWER_MS;
          event(lane, 'in', 'response', '200 OK');
          cursor.report(attempt, { type: 'response', status: 200 });
          event(lane, 'out', 'ack', 'ACK');
          answeredBy = lane;
          break;
        }
        const boxed = locator.penaltyBox.get(attempt.target);
        if (boxed)
          event(lane, 'local', 'penalty', `to the penalty box until ${seconds(boxed.until - start)} (${boxed.reason})`);
      }
    } catch (caught) {
      const e = caught as { code?: string; message?: string };
      error = { code: e.code ?? 'ERR', message: e.message ?? String(caught) };
      event(null, 'local', 'error', `no targets: ${error.message}`);
      requests.push({ request, at, answeredBy, attempts });
      break;
    }
    requests.push({ request, at, answeredBy, attempts });
    now += NEXT_REQUEST_MS;
  }
  const penaltyBox = locator.penaltyBox
    .entries()
    .map((e) => ({ lane: destinationKey(e), until: e.until - start, reason: e.reason }));
  return {
    uri: q.uri,
    method: 'INVITE',
    timerMs: locator.targetTimeoutMs,
    lanes: [...lanes.values()],
    events,
    requests,
    penaltyBox,
    error,
  };
}

interface Play {
  advance(ms: number): void;
  event(direction: LadderEvent['direction'], kind: LadderKind, label: string): void;
}

/** One try against a simulated peer: the messages on the wire, and the outcome the transaction layer reports. */
function playTry(target: SipTarget, timeoutMs: number, fault: PeerFault | undefined, play: Play): TryOutcome {
  play.event('out', 'request', `INVITE (${target.host})`);
  const reliable = target.transport !== 'udp';
  if (fault === 'refuse-tcp' && reliable) {
    play.advance(RESET_MS);
    play.event('in', 'error', 'TCP connection refused (RST)');
    return { type: 'transport-error' };
  }
  if (fault === 'silent') {
    // RFC 3261 17.1.1.2: over UDP, Timer A retransmits at T1, then doubling; TCP retransmits itself.
    let elapsed = 0;
    for (let interval = T1_MS, n = 1; !reliable && elapsed + interval < timeoutMs; interval *= 2, n++) {
      elapsed += interval;
      play.advance(interval);
      play.event('out', 'retransmission', `INVITE retransmission ${n} (Timer A ${seconds(interval)})`);
    }
    play.advance(timeoutMs - elapsed);
    play.event('local', 'timer', `no response within ${seconds(timeoutMs)}: the per-target timer fires`);
    return { type: 'timeout' };
  }
  play.advance(ANSWER_MS);
  if (fault === '503') {
    play.event('in', 'response', '503 Service Unavailable');
    play.event('out', 'ack', 'ACK');
    return { type: 'response', status: 503 };
  }
  play.event('in', 'response', '100 Trying');
  return { type: 'response', status: 100 };
}

function describe(outcome: TryOutcome): string {
  if (outcome.type === 'response') return outcome.status === 100 ? 'answered' : String(outcome.status);
  return outcome.type;
}

/** "6 s", "0.5 s", "66.01 s" */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
