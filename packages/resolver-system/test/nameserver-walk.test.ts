import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  MalformedAnswerError,
  NetworkError,
  Rcode,
  TimeoutError,
  buildResult,
  makeQuery,
  systemClock,
  systemTimers,
  type DnsQuery,
} from '@dnscore/core/plugin';
import {
  startHostileServer,
  type Behaviour,
  type HostileServer,
  type Plan,
  type ReceivedQuery,
} from '../../../test/support/hostile-server.js';
import { walkNameservers, type WalkSettings } from '../src/nameserver-walk.js';
import { parseServerAddress } from '../src/server-address.js';
import { emptyStats } from '../src/stats.js';
import { TcpMemory } from '../src/tcp-memory.js';
import { UdpSockets } from '../src/udp-sockets.js';
import { HOSTILE_ZONE, until } from './helpers.js';

let one: HostileServer;
let two: HostileServer;
const www = makeQuery('www.hostile.example', 'A');
const never = new AbortController().signal;

beforeAll(async () => {
  [one, two] = await Promise.all([
    startHostileServer({ zone: HOSTILE_ZONE }),
    startHostileServer({ zone: HOSTILE_ZONE }),
  ]);
});
afterAll(() => Promise.all([one.close(), two.close()]));
afterEach(() => {
  vi.useRealTimers();
  one.setPlan({ udp: ['answer'], tcp: ['answer'] });
  two.setPlan({ udp: ['answer'], tcp: ['answer'] });
});

function settings(overrides: Partial<WalkSettings> = {}, endpoints = [one.endpoint, two.endpoint]): WalkSettings {
  return {
    nameservers: endpoints.map((e) => parseServerAddress(e)),
    attempts: 1,
    timeoutMs: 1000,
    rotate: false,
    forceTcp: false,
    udpPayloadSize: 1232,
    trustAd: false,
    recursionDesired: true,
    dnssecRecords: false,
    timers: systemTimers,
    stats: emptyStats(),
    tcpMemory: new TcpMemory(systemClock, 60_000, 100),
    udpSockets: new UdpSockets(),
    ...overrides,
  };
}

function plans(a: Plan, b: Plan): void {
  one.setPlan({ udp: a });
  two.setPlan({ udp: b });
}

function counts(): [number, number] {
  return [one.received.length, two.received.length];
}

function asked(before: [number, number]): [number, number] {
  return [one.received.length - before[0], two.received.length - before[1]];
}

function addresses(query: DnsQuery, answer: Awaited<ReturnType<typeof walkNameservers>>): unknown[] {
  return buildResult(query, answer).records.map((r) => r.data);
}

describe('walkNameservers, nominal', () => {
  it("hands back the first server's answer as raw packet, rcode and secure false", async () => {
    const before = counts();
    const answer = await walkNameservers(www, settings(), 0, never);
    expect(answer).toMatchObject({ rcode: 0, secure: false, bogus: false });
    expect(addresses(www, answer)).toEqual(['192.0.2.80']);
    expect(asked(before)).toEqual([1, 0]);
  });

  it('takes NXDOMAIN as a final answer', async () => {
    plans(['answer'], ['answer']);
    const before = counts();
    const missing = makeQuery('missing.hostile.example', 'A');
    const answer = await walkNameservers(missing, settings(), 0, never);
    expect(answer.rcode).toBe(Rcode.NXDOMAIN);
    expect(buildResult(missing, answer).negativeTtl).toBe(60);
    expect(asked(before)).toEqual([1, 0]);
  });

  it('starts at the given server (rotate)', async () => {
    const before = counts();
    await walkNameservers(www, settings(), 1, never);
    expect(asked(before)).toEqual([0, 1]);
  });
});

describe('walkNameservers, the next server', () => {
  it.each(['servfail', 'refused', 'notimp'] as const)('asks the next server after %s', async (rcode) => {
    plans([rcode], ['answer']);
    const before = counts();
    const s = settings();
    const answer = await walkNameservers(www, s, 0, never);
    expect(answer.rcode).toBe(0);
    expect(asked(before)).toEqual([1, 1]);
    expect(s.stats.answers).toBe(2);
  });

  it('hands back the last answer when every server says SERVFAIL or REFUSED, after every attempt', async () => {
    plans(['servfail'], ['refused']);
    const before = counts();
    const answer = await walkNameservers(www, settings({ attempts: 2 }), 0, never);
    expect(answer.rcode).toBe(Rcode.REFUSED);
    expect(answer.secure).toBe(false);
    expect(asked(before)).toEqual([2, 2]);
  });

  it('asks the next server after a timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    plans(['drop'], ['answer']);
    const before = counts();
    const s = settings({ timeoutMs: 4000 });
    const walk = walkNameservers(www, s, 0, never);
    await one.waitForQueries(before[0] + 1);
    vi.advanceTimersByTime(4000);
    const answer = await walk;
    expect(addresses(www, answer)).toEqual(['192.0.2.80']);
    expect(s.stats.timeouts).toBe(1);
  });

  it('an answer after a timeout of another server wins over an earlier SERVFAIL', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let n = 0;
    plans(['servfail'], () => (++n === 1 ? ['drop'] : ['answer']));
    const before = counts();
    const walk = walkNameservers(www, settings({ attempts: 2, timeoutMs: 1000 }), 0, never);
    await two.waitForQueries(before[1] + 1);
    vi.advanceTimersByTime(1000);
    const answer = await walk;
    expect(answer.rcode).toBe(0);
    expect(asked(before)).toEqual([2, 2]);
  });
});

describe('walkNameservers, TCP', () => {
  it('asks the same server over TCP after TC, then remembers to go straight to TCP', async () => {
    one.setPlan({ udp: ['truncate'], tcp: ['answer'] });
    const s = settings();
    const before = one.received.length;
    const answer = await walkNameservers(www, s, 0, never);
    expect(addresses(www, answer)).toEqual(['192.0.2.80']);
    expect(one.received.slice(before).map((q) => q.transport)).toEqual(['udp', 'tcp']);
    expect(s.stats).toMatchObject({ truncated: 1, tcpSent: 1 });
    await walkNameservers(www, s, 0, never);
    expect(one.received.slice(before).map((q) => q.transport)).toEqual(['udp', 'tcp', 'tcp']);
    expect(s.stats.tcpRemembered).toBe(1);
  });

  it('asks over TCP when the UDP answer is larger than advertised, never using it', async () => {
    one.setPlan({ udp: ['oversized'], tcp: ['answer'] });
    const s = settings();
    const answer = await walkNameservers(www, s, 0, never);
    expect(addresses(www, answer)).toEqual(['192.0.2.80']);
    expect(s.stats.oversized).toBe(1);
  });

  it('asks only over TCP with forceTcp', async () => {
    one.setPlan({ udp: ['drop'], tcp: ['answer'] });
    const before = one.received.length;
    await walkNameservers(www, settings({ forceTcp: true }), 0, never);
    expect(one.received.slice(before).map((q) => q.transport)).toEqual(['tcp']);
  });

  it('moves to the next server when TCP fails after TC', async () => {
    one.setPlan({ udp: ['truncate'], tcp: ['close'] });
    const before = counts();
    const s = settings();
    const answer = await walkNameservers(www, s, 0, never);
    expect(answer.rcode).toBe(0);
    expect(asked(before)).toEqual([2, 1]);
    expect(s.stats.networkErrors).toBe(1);
  });
});

describe('walkNameservers, EDNS', () => {
  it('asks again without EDNS after FORMERR without OPT (RFC 6891 section 7)', async () => {
    one.setPlan({ udp: (q) => (q.udpPayloadSize === undefined ? ['answer'] : ['formerr']) });
    const before = one.received.length;
    const s = settings();
    const answer = await walkNameservers(www, s, 0, never);
    expect(answer.rcode).toBe(0);
    expect(one.received.slice(before).map((q) => q.udpPayloadSize)).toEqual([1232, undefined]);
    expect(s.stats.ednsFallbacks).toBe(1);
  });

  it('moves on when FORMERR comes back without EDNS too', async () => {
    plans(['formerr'], ['answer']);
    const before = counts();
    const answer = await walkNameservers(www, settings(), 0, never);
    expect(answer.rcode).toBe(0);
    expect(asked(before)).toEqual([2, 1]);
  });
});

describe('walkNameservers, a server without EDNS and an answer too large for UDP', () => {
  /** What a server that does not know EDNS answers: FORMERR without OPT to a query with one. */
  const oldServer =
    (fits: Behaviour): Plan =>
    (q: ReceivedQuery): Behaviour[] =>
      q.udpPayloadSize === undefined ? [fits] : ['formerr'];

  it('asks over TCP without EDNS after the plain UDP answer came back truncated', async () => {
    one.setPlan({ udp: oldServer('truncate'), tcp: oldServer('answer') });
    const before = one.received.length;
    const s = settings({}, [one.endpoint]);
    const answer = await walkNameservers(www, s, 0, never);
    expect(answer.rcode).toBe(Rcode.NOERROR);
    expect(addresses(www, answer)).toEqual(['192.0.2.80']);
    expect(one.received.slice(before).map((q) => [q.transport, q.udpPayloadSize])).toEqual([
      ['udp', 1232],
      ['udp', undefined],
      ['tcp', undefined],
    ]);
    expect(s.stats).toMatchObject({ ednsFallbacks: 1, truncated: 1 });
  });

  it('asks over TCP again without EDNS when FORMERR without OPT comes back over TCP', async () => {
    one.setPlan({ tcp: oldServer('answer') });
    const before = one.received.length;
    const s = settings({ forceTcp: true }, [one.endpoint]);
    const answer = await walkNameservers(www, s, 0, never);
    expect(answer.rcode).toBe(Rcode.NOERROR);
    expect(addresses(www, answer)).toEqual(['192.0.2.80']);
    expect(one.received.slice(before).map((q) => [q.transport, q.udpPayloadSize])).toEqual([
      ['tcp', 1232],
      ['tcp', undefined],
    ]);
    expect(s.stats.ednsFallbacks).toBe(1);
  });
});

describe('walkNameservers, BADVERS to our EDNS version 0 (RFC 6891 section 6.1.3)', () => {
  /** A response with RCODE BADVERS: rcode 0 in the header, extended rcode 1 in an OPT record. */
  const badvers = (q: ReceivedQuery): Buffer => {
    const hasOpt = q.udpPayloadSize !== undefined;
    const packet = Buffer.concat([
      q.packet,
      hasOpt ? Buffer.alloc(0) : Buffer.from([0, 0, 41, 4, 208, 0, 0, 0, 0, 0, 0]),
    ]);
    packet.writeUInt16BE(0x8180, 2); // QR, RD, RA, rcode 0
    packet.writeUInt16BE(1, 10);
    packet[packet.length - 6] = 1; // the OPT TTL's extended rcode: 1 << 4 | 0 = 16
    return packet;
  };

  it('asks the same server again without EDNS, as after FORMERR without OPT', async () => {
    one.setPlan({ udp: (q) => (q.udpPayloadSize === undefined ? ['answer'] : [{ raw: badvers }]) });
    const before = one.received.length;
    const s = settings();
    const answer = await walkNameservers(www, s, 0, never);
    expect(answer.rcode).toBe(Rcode.NOERROR);
    expect(buildResult(www, answer).records.map((r) => r.data)).toEqual(['192.0.2.80']);
    expect(one.received.slice(before).map((q) => q.udpPayloadSize)).toEqual([1232, undefined]);
    expect(s.stats.ednsFallbacks).toBe(1);
  });

  it('moves on to the next server when BADVERS comes back without EDNS too', async () => {
    plans([{ raw: badvers }], ['answer']);
    const before = counts();
    const answer = await walkNameservers(www, settings(), 0, never);
    expect(answer.rcode).toBe(Rcode.NOERROR);
    expect(asked(before)).toEqual([2, 1]);
  });
});

describe('walkNameservers, the AD bit', () => {
  it('never passes AD on by default, and does not ask for it', async () => {
    one.setPlan({ udp: ['ad'] });
    const before = one.received.length;
    const answer = await walkNameservers(www, settings(), 0, never);
    expect(answer.secure).toBe(false);
    expect(one.received[before]!.ad).toBe(false);
  });

  it('passes AD on as secure with trustAd, and asks for it', async () => {
    one.setPlan({ udp: ['ad'] });
    const before = one.received.length;
    const answer = await walkNameservers(www, settings({ trustAd: true }), 0, never);
    expect(answer.secure).toBe(true);
    expect(one.received[before]!.ad).toBe(true);
  });

  it('is not fooled by AD on an answer without it, or on SERVFAIL', async () => {
    plans(['answer'], ['answer']);
    expect((await walkNameservers(www, settings({ trustAd: true }), 0, never)).secure).toBe(false);
    one.setPlan({ udp: [{ raw: (q) => servfailWithAd(q.packet) }] });
    two.setPlan({ udp: [{ raw: (q) => servfailWithAd(q.packet) }] });
    const answer = await walkNameservers(www, settings({ trustAd: true }), 0, never);
    expect(answer).toMatchObject({ rcode: Rcode.SERVFAIL, secure: false });
  });
});

describe('walkNameservers, off-nominal', () => {
  it('throws TimeoutError when no server answers in any attempt', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    plans(['wrong-id'], ['drop']);
    const before = counts();
    const s = settings({ attempts: 2, timeoutMs: 500 });
    const walk = walkNameservers(www, s, 0, never);
    walk.catch(() => {});
    for (let i = 1; i <= 2; i++) {
      await one.waitForQueries(before[0] + i);
      await until(() => s.stats.wrongId === i, 'the wrong ID to arrive');
      vi.advanceTimersByTime(500);
      await two.waitForQueries(before[1] + i);
      vi.advanceTimersByTime(500);
    }
    const error = await walk.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).code).toBe('DNS_ERR_TIMEOUT');
    expect((error as Error).message).toBe(
      `no answer to www.hostile.example IN A from ${one.endpoint}, ${two.endpoint} (2 attempt(s), 500 ms each); 2 ` +
        `message(s) refused (wrong source, ID or question, or malformed)`,
    );
    expect(asked(before)).toEqual([2, 2]);
    expect(s.stats.timeouts).toBe(4);
  });

  it('throws NetworkError when the servers cannot be reached', async () => {
    const error = await walkNameservers(www, settings({ attempts: 1 }, ['255.255.255.255:53']), 0, never).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(
      /^no answer to www\.hostile\.example IN A from 255\.255\.255\.255:53: .*EACCES/,
    );
    expect((error as Error).cause).toBeInstanceOf(AggregateError);
  });

  it('throws MalformedAnswerError when a server answers garbage over TCP', async () => {
    one.setPlan({ udp: ['truncate'], tcp: ['malformed'] });
    const error = await walkNameservers(www, settings({}, [one.endpoint]), 0, never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedAnswerError);
  });

  it('rejects with AbortError when cancelled, without asking the next server', async () => {
    plans(['drop'], ['answer']);
    const controller = new AbortController();
    const before = counts();
    const walk = walkNameservers(www, settings({ timeoutMs: 60_000 }), 0, controller.signal);
    await one.waitForQueries(before[0] + 1);
    controller.abort();
    await expect(walk).rejects.toBeInstanceOf(AbortError);
    expect(asked(before)).toEqual([1, 0]);
  });
});

/** A SERVFAIL with AD set, echoing the query. */
function servfailWithAd(query: Buffer): Buffer {
  const packet = Buffer.from(query);
  packet.writeUInt16BE(0x8000 | 0x0100 | 0x0080 | 0x0020 | 2, 2);
  return packet;
}
