import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DnsCore } from '@dnscore/core';
import {
  AbortError,
  InvalidArgumentError,
  Rcode,
  StateError,
  TimeoutError,
  buildResult,
  makeQuery,
  parseMessage,
} from '@dnscore/core/plugin';
import { startHostileServer, type HostileServer } from '../../../test/support/hostile-server.js';
import { DEFAULT_SYSTEM_PRIORITY } from '../src/defaults.js';
import { InvalidServerAddressError } from '../src/errors.js';
import { parsedAnswer } from '../src/parsed-answers.js';
import type { SystemResolverOptions } from '../src/options.js';
import { SystemResolver } from '../src/system-resolver.js';
import { HOSTILE_ZONE, handles, trackingTimers, turn, until } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'system-resolver-test-'));
const noResolvConf = join(dir, 'no-resolv.conf');
let server: HostileServer;
let second: HostileServer;

beforeAll(async () => {
  [server, second] = await Promise.all([
    startHostileServer({ zone: HOSTILE_ZONE }),
    startHostileServer({ zone: HOSTILE_ZONE }),
  ]);
});
afterAll(async () => {
  await Promise.all([server.close(), second.close()]);
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
  server.setPlan({ udp: ['answer'], tcp: ['answer'] });
});

function resolver(options: SystemResolverOptions = {}, nameservers = [server.endpoint]): SystemResolver {
  return new SystemResolver(
    { nameservers, resolvConf: noResolvConf, search: [] },
    { timeoutMs: 2000, attempts: 1, ...options },
  );
}

describe('SystemResolver, nominal', () => {
  it('is the plugin "system", tried last, and available', () => {
    const r = resolver();
    expect(r.name).toBe('system');
    expect(r.priority).toBe(DEFAULT_SYSTEM_PRIORITY);
    expect(DEFAULT_SYSTEM_PRIORITY).toBe(2147483647);
    expect(r.available()).toEqual({ available: true });
    const named = resolver({ name: 'isp', priority: 500 });
    expect([named.name, named.priority]).toEqual(['isp', 500]);
  });

  it('answers through DnsCore: typed records, CNAME chain, secure false', async () => {
    const core = new DnsCore([resolver()]);
    const a = await core.resolve('www.hostile.example', 'A');
    expect(a).toMatchObject({
      resolver: 'system',
      rcode: 0,
      secure: false,
      bogus: false,
      canonical: 'www.hostile.example',
    });
    expect(a.records.map((r) => r.data)).toEqual(['192.0.2.80']);
    const alias = await core.resolve('alias.hostile.example', 'AAAA');
    expect(alias.canonical).toBe('www.hostile.example');
    expect(alias.records.map((r) => r.data)).toEqual(['2001:db8::80']);
  });

  it('hands its reading of an answer over with dnssecRecords, for that packet object only', async () => {
    const signal = new AbortController().signal;
    const query = makeQuery('www.hostile.example', 'A');
    const withDo = await resolver({ dnssecRecords: true }).resolve(query, signal);
    const message = parsedAnswer(withDo.answer!)!;
    expect(message.packet).toBe(withDo.answer);
    const reread = parseMessage(withDo.answer!);
    expect({ ...message, packet: undefined }).toEqual({ ...reread, packet: undefined });
    expect(message.answers.map((r) => [r.name, r.type, r.ttl])).toEqual([['www.hostile.example', 1, 300]]);
    expect(parsedAnswer(Uint8Array.from(withDo.answer!))).toBeUndefined();
    const plain = await resolver().resolve(query, signal);
    expect(parsedAnswer(plain.answer!)).toBeUndefined();
  });

  it('keeps NXDOMAIN and NODATA apart', async () => {
    const core = new DnsCore([resolver()]);
    const nx = await core.resolve('missing.hostile.example', 'A');
    expect([nx.rcodeName, nx.nxDomain, nx.noData, nx.negativeTtl]).toEqual(['NXDOMAIN', true, false, 60]);
    const nodata = await core.resolve('www.hostile.example', 'MX');
    expect([nodata.rcodeName, nodata.nxDomain, nodata.noData, nodata.negativeTtl]).toEqual([
      'NOERROR',
      false,
      true,
      60,
    ]);
  });

  it('reports SERVFAIL and REFUSED as what they are', async () => {
    const core = new DnsCore([resolver()]);
    server.setPlan({ udp: ['servfail'] });
    expect((await core.resolve('www.hostile.example', 'A')).rcodeName).toBe('SERVFAIL');
    server.setPlan({ udp: ['refused'] });
    expect((await core.resolve('www.hostile.example', 'A')).rcodeName).toBe('REFUSED');
  });

  it('leaves records of other types and names out of the result', async () => {
    server.setPlan({ udp: ['other-records'] });
    const result = await new DnsCore([resolver()]).resolve('www.hostile.example', 'A');
    expect(result.records.map((r) => [r.name, r.type, r.data])).toEqual([['www.hostile.example', 'A', '192.0.2.80']]);
  });

  it('asks an identical question in flight once (names compared case-insensitively)', async () => {
    const r = resolver();
    const before = server.received.length;
    const never = new AbortController().signal;
    const [a, b] = await Promise.all([
      r.resolve(makeQuery('www.hostile.example', 'A'), never),
      r.resolve(makeQuery('WWW.Hostile.Example', 'A'), never),
    ]);
    expect(server.received.length - before).toBe(1);
    expect(Buffer.from(a.answer!).equals(Buffer.from(b.answer!))).toBe(true);
    expect(r.stats).toMatchObject({ queries: 2, deduplicated: 1, udpSent: 1 });
  });

  it('rotates the first nameserver with rotate', async () => {
    const r = resolver({ rotate: true }, [server.endpoint, second.endpoint]);
    const before = [server.received.length, second.received.length];
    for (const name of ['www', 'alias', 'missing'])
      await r.resolve(makeQuery(`${name}.hostile.example`, 'A'), new AbortController().signal);
    expect(server.received.slice(before[0]).map((q) => q.name.toLowerCase())).toEqual([
      'www.hostile.example',
      'missing.hostile.example',
    ]);
    expect(second.received.slice(before[1]).map((q) => q.name.toLowerCase())).toEqual(['alias.hostile.example']);
  });

  it('gives frozen snapshots of its counters', () => {
    const stats = resolver().stats;
    expect(Object.isFrozen(stats)).toBe(true);
    expect(stats).toMatchObject({ queries: 0, inFlight: 0, queued: 0, peakInFlight: 0 });
  });
});

describe('SystemResolver, the hosts file', () => {
  const hosts = join(dir, 'hosts');
  writeFileSync(hosts, '192.0.2.200 pbx.hostile.example pbx\nbad line here\n');

  it('answers A from the hosts file with useHosts, and other questions from the nameservers', async () => {
    const r = new SystemResolver(
      { nameservers: [server.endpoint], resolvConf: noResolvConf, hosts },
      { useHosts: true, attempts: 1 },
    );
    const core = new DnsCore([r]);
    const before = server.received.length;
    const a = await core.resolve('PBX.hostile.example', 'A');
    expect(a.records.map((x) => x.data)).toEqual(['192.0.2.200']);
    expect(server.received.length - before).toBe(0);
    const aaaa = await core.resolve('pbx.hostile.example', 'AAAA');
    expect(aaaa.nxDomain).toBe(true);
    expect(server.received.length - before).toBe(1);
    expect(r.stats.hostsAnswers).toBe(1);
    expect(r.hostsSkipped).toEqual(['line 2: "bad" is not an IP address (zones are not supported)']);
  });

  it('does not read the hosts file unless asked to', async () => {
    const r = new SystemResolver({ nameservers: [server.endpoint], resolvConf: noResolvConf, hosts }, { attempts: 1 });
    const result = await new DnsCore([r]).resolve('pbx.hostile.example', 'A');
    expect(result.nxDomain).toBe(true);
  });
});

describe('SystemResolver.resolveName, the search list', () => {
  function searching(): SystemResolver {
    return new SystemResolver(
      {
        nameservers: [server.endpoint],
        resolvConf: noResolvConf,
        search: ['nothere.example', 'hostile.example'],
        ndots: 1,
      },
      { attempts: 1 },
    );
  }

  it('finds a short name under a search domain and says which question it answers', async () => {
    const before = server.received.length;
    const found = await searching().resolveName('www', 'A');
    expect(found.query.name).toBe('www.hostile.example');
    expect(buildResult(found.query, found.answer).records.map((r) => r.data)).toEqual(['192.0.2.80']);
    expect(server.received.slice(before).map((q) => q.name.toLowerCase())).toEqual([
      'www.nothere.example',
      'www.hostile.example',
    ]);
  });

  it('tries a name with enough dots as it is first, and an absolute name only as it is', async () => {
    const before = server.received.length;
    expect((await searching().resolveName('www.hostile.example', 'A')).query.name).toBe('www.hostile.example');
    const absolute = await searching().resolveName('www.', 'A');
    expect([absolute.query.name, absolute.answer.rcode]).toEqual(['www', Rcode.NXDOMAIN]);
    expect(server.received.slice(before).map((q) => q.name.toLowerCase())).toEqual(['www.hostile.example', 'www']);
  });

  it('prefers NODATA to NXDOMAIN, and SERVFAIL to NXDOMAIN, when nothing has data', async () => {
    const nodata = await searching().resolveName('www', 'MX');
    expect([nodata.query.name, nodata.answer.rcode]).toEqual(['www.hostile.example', Rcode.NOERROR]);
    server.setPlan({ udp: (q) => (q.name.toLowerCase().endsWith('nothere.example') ? ['servfail'] : ['answer']) });
    const failed = await searching().resolveName('missing', 'A');
    expect([failed.query.name, failed.answer.rcode]).toEqual(['missing.nothere.example', Rcode.SERVFAIL]);
    server.setPlan({ udp: ['answer'] });
    const nx = await searching().resolveName('missing', 'A');
    expect([nx.query.name, nx.answer.rcode]).toEqual(['missing', Rcode.NXDOMAIN]);
  });

  it('stops at the first failure to get an answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.setPlan({ udp: ['drop'] });
    const before = server.received.length;
    const r = new SystemResolver(
      { nameservers: [server.endpoint], resolvConf: noResolvConf, search: ['a.example', 'b.example'] },
      { attempts: 1, timeoutMs: 1000 },
    );
    const search = r.resolveName('www', 'A');
    await server.waitForQueries(before + 1);
    vi.advanceTimersByTime(1000);
    await expect(search).rejects.toBeInstanceOf(TimeoutError);
    expect(server.received.length - before).toBe(1);
  });

  it('refuses an invalid name and an aborted signal', async () => {
    await expect(searching().resolveName('a..b')).rejects.toThrow(InvalidArgumentError);
    await expect(searching().resolveName('www', 'A', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      AbortError,
    );
  });
});

describe('SystemResolver, the bound on queries in flight', () => {
  it('runs at most maxInFlight queries; a cancelled waiter leaves the queue at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.setPlan({ udp: ['drop'] });
    const r = resolver({ maxInFlight: 3, timeoutMs: 1000 });
    const before = server.received.length;
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const runs = controllers.map((c, i) => r.resolve(makeQuery(`q${i}.hostile.example`, 'A'), c.signal));
    for (const p of runs) p.catch(() => {});
    await server.waitForQueries(before + 3);
    expect(r.stats).toMatchObject({ inFlight: 3, queued: 2 });
    controllers[3]!.abort();
    expect(r.stats.queued).toBe(1);
    await expect(runs[3]).rejects.toBeInstanceOf(AbortError);
    vi.advanceTimersByTime(1000);
    for (const run of runs.slice(0, 3)) await expect(run).rejects.toBeInstanceOf(TimeoutError);
    await server.waitForQueries(before + 4);
    expect(r.stats).toMatchObject({ inFlight: 1, queued: 0 });
    vi.advanceTimersByTime(1000);
    await expect(runs[4]).rejects.toBeInstanceOf(TimeoutError);
    expect(server.received.slice(before).map((q) => q.name.toLowerCase())).toEqual([
      'q0.hostile.example',
      'q1.hostile.example',
      'q2.hostile.example',
      'q4.hostile.example',
    ]);
    expect(r.stats.peakInFlight).toBe(3);
  });
});

describe('SystemResolver, cancel', () => {
  it('keeps a shared question for the callers that stay, and drops it when the last leaves', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.setPlan({ udp: [{ delayMs: 500, play: 'answer' }] });
    const r = resolver();
    const query = makeQuery('www.hostile.example', 'A');
    const leaving = new AbortController();
    const staying = new AbortController();
    const before = server.received.length;
    const a = r.resolve(query, leaving.signal);
    const b = r.resolve(query, staying.signal);
    await server.waitForQueries(before + 1);
    leaving.abort();
    await expect(a).rejects.toBeInstanceOf(AbortError);
    vi.advanceTimersByTime(500);
    expect((await b).rcode).toBe(0);

    server.setPlan({ udp: ['drop'] });
    await turn();
    await turn();
    const baseline = handles();
    const c1 = new AbortController();
    const c2 = new AbortController();
    const c = r.resolve(query, c1.signal);
    const d = r.resolve(query, c2.signal);
    const cRejects = expect(c).rejects.toBeInstanceOf(AbortError);
    await server.waitForQueries(before + 2);
    expect(handles().udp).toBe(baseline.udp + 1);
    c1.abort();
    await cRejects;
    await turn();
    expect(handles().udp).toBe(baseline.udp + 1); // still wanted by the other caller
    c2.abort();
    await expect(d).rejects.toBeInstanceOf(AbortError);
    await until(() => handles().udp === baseline.udp, 'the shared socket to close');
  });

  it('cancelling 1,000 queries in flight leaves no socket and no timer behind', async () => {
    server.setPlan({ udp: ['drop'] });
    const timers = trackingTimers();
    const r = resolver({ timeoutMs: 60_000, timers, maxInFlight: 1000 });
    await turn();
    await turn();
    const baseline = handles();
    const before = server.received.length;
    const controllers = Array.from({ length: 1000 }, () => new AbortController());
    const runs = controllers.map((c, i) => r.resolve(makeQuery(`c${i}.hostile.example`, 'A'), c.signal));
    await server.waitForQueries(before + 1000);
    expect(r.stats.inFlight).toBe(1000);
    expect(handles().udp).toBe(baseline.udp + 1000);
    expect(timers.live).toBe(1000);
    const timersBefore = handles().timers;
    const outcomes = Promise.allSettled(runs);
    for (const c of controllers) c.abort();
    expect(timers.live).toBe(0); // timers go synchronously
    expect(handles().timers).toBe(timersBefore - 1000);
    expect((await outcomes).every((o) => o.status === 'rejected' && o.reason instanceof AbortError)).toBe(true);
    await until(() => handles().udp === baseline.udp, 'every socket to close');
    expect(r.stats).toMatchObject({ inFlight: 0, queued: 0 });
  });
});

describe('SystemResolver, close', () => {
  it('fails the queries in flight with StateError, releases them, and refuses new ones', async () => {
    server.setPlan({ udp: ['drop'] });
    const r = resolver({ maxInFlight: 1, timeoutMs: 60_000 });
    const never = new AbortController().signal;
    const before = server.received.length;
    const running = r.resolve(makeQuery('x1.hostile.example', 'A'), never);
    const waiting = r.resolve(makeQuery('x2.hostile.example', 'A'), never);
    await server.waitForQueries(before + 1);
    r.close();
    await expect(running).rejects.toBeInstanceOf(StateError);
    await expect(waiting).rejects.toThrow('the system resolver is closed');
    expect(r.available()).toEqual({ available: false, reason: 'the system resolver is closed' });
    await expect(r.resolve(makeQuery('x3.hostile.example', 'A'), never)).rejects.toBeInstanceOf(StateError);
    expect(r.stats).toMatchObject({ inFlight: 0, queued: 0 });
    expect(server.received.length - before).toBe(1);
  });
});

describe('SystemResolver, off-nominal', () => {
  it('rejects with the core TimeoutError through DnsCore when no server answers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    server.setPlan({ udp: ['garbage'] });
    const r = resolver({ timeoutMs: 1500 });
    const before = server.received.length;
    const result = new DnsCore([r]).resolve('www.hostile.example', 'A');
    result.catch(() => {});
    await server.waitForQueries(before + 1);
    await until(() => r.stats.wrongId === 1, 'the garbage to arrive');
    vi.advanceTimersByTime(1500);
    const error = await result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).code).toBe('DNS_ERR_TIMEOUT');
    expect(r.stats).toMatchObject({ timeouts: 1, wrongId: 1, answers: 0 });
  });

  it('validates its config and options once, in the constructor', () => {
    expect(() => new SystemResolver({ nameservers: ['ns1.example'], resolvConf: noResolvConf })).toThrow(
      InvalidServerAddressError,
    );
    expect(() => new SystemResolver({ resolvConf: noResolvConf }, { maxInFlight: 0 })).toThrow(InvalidArgumentError);
    expect(() => new SystemResolver({ resolvConf: noResolvConf }, { udpPayloadSize: 9000 })).toThrow(/udpPayloadSize/);
  });

  it('rejects an already cancelled call without asking', async () => {
    const r = resolver();
    await expect(r.resolve(makeQuery('www.hostile.example', 'A'), AbortSignal.abort())).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(r.stats.udpSent).toBe(0);
  });
});
