/**
 * What issue 20 added to core's channels: the servers each backend asked, in the query trace
 * (from an answer, from a failure, never from a cache entry); and the cache's stale and
 * prefetch events. Real subscribers, a fake clock, exact payloads.
 */
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DnsCore, DnsError, NetworkError, ZoneResolver, makeQuery, withCache, type Clock } from '@dnscore/core';
import { CHANNELS } from '@dnscore/core/diagnostics';
import { withServers, type PluginAnswer, type ServerAttempt } from '@dnscore/core/plugin';
import { recordQueryTraces } from '../../../test/support/query-trace.js';
import { answerPacket, bytes } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';

const ZONE = `$ORIGIN feathers.
@      3600 IN SOA ns host 1 7200 3600 1209600 300
goose  3600 IN A 192.0.2.1
`;

const answerA = (name: string, ttl = 100): PluginAnswer => ({
  rcode: 0,
  answer: answerPacket({ question: { name, type: 1 }, answers: [{ type: 1, ttl, rdata: bytes([192, 0, 2, 1]) }] }),
});

const udp53 = (outcome: ServerAttempt['outcome'], rcode?: number): ServerAttempt => ({
  server: '192.0.2.53:53',
  transport: 'udp',
  outcome,
  ...(rcode !== undefined ? { rcode } : {}),
});

/** The query traces that ended and the events of `names`, in order. */
function record(names: string[] = []) {
  const ended = recordQueryTraces();
  const events: [string, unknown][] = [];
  const listener = (message: unknown, name: string | symbol) => void events.push([String(name), message]);
  for (const name of names) diagnostics.subscribe(name, listener);
  onTestFinished(() => {
    for (const name of names) diagnostics.unsubscribe(name, listener);
  });
  return { ended, events };
}

describe('the servers asked, in the query trace', () => {
  it('names the zone file or the text zone that answered, with the rcode', async () => {
    const seen = record();
    const core = new DnsCore([new ZoneResolver({ zones: [{ text: ZONE, file: '/srv/zones/feathers.zone' }] })]);
    await core.resolve('goose.feathers');
    await core.resolve('fox.feathers');
    const text = new DnsCore([new ZoneResolver({ zones: [{ text: ZONE }] })]);
    await text.resolve('goose.feathers', 'AAAA');
    expect(seen.ended.map((c) => c.attempts)).toEqual([
      [
        {
          backend: 'zone',
          servers: [{ server: 'zone file /srv/zones/feathers.zone', transport: 'file', outcome: 'answer', rcode: 0 }],
        },
      ],
      [
        {
          backend: 'zone',
          servers: [{ server: 'zone file /srv/zones/feathers.zone', transport: 'file', outcome: 'answer', rcode: 3 }],
        },
      ],
      [
        {
          backend: 'zone',
          servers: [{ server: 'zone feathers (text)', transport: 'file', outcome: 'answer', rcode: 0 }],
        },
      ],
    ]);
  });

  it('gives no servers when nobody traces', async () => {
    const zone = new ZoneResolver({ zones: [{ text: ZONE }] });
    const answer = await zone.resolve(makeQuery('goose.feathers', 'A'), new AbortController().signal);
    expect('servers' in answer).toBe(false);
  });

  it('keeps the servers of a failed backend (withServers) and of the one that answered', async () => {
    const refused = withServers(new NetworkError('no answer'), [udp53('timeout'), udp53('error')]);
    const a = fakePlugin({
      name: 'a',
      priority: 1,
      answer: () => {
        throw refused;
      },
    });
    const b = fakePlugin({
      name: 'b',
      priority: 2,
      answer: { ...answerA('goose.feathers'), servers: [udp53('answer', 0)] },
    });
    const seen = record();
    await new DnsCore([a, b]).resolve('goose.feathers');
    expect(seen.ended[0]!.attempts).toEqual([
      { backend: 'a', error: refused, servers: [udp53('timeout'), udp53('error')] },
      { backend: 'b', servers: [udp53('answer', 0)] },
    ]);
  });

  it('keeps the attempt of a backend that failed definitely (nothing after it asked), with its servers', async () => {
    class Refused extends DnsError {
      override readonly code = 'DNS_ERR_TEST_REFUSED';
      override readonly definite = true;
    }
    const refused = withServers(new Refused('insecure answer'), [udp53('answer', 0)]);
    const a = fakePlugin({
      name: 'a',
      priority: 1,
      answer: () => {
        throw refused;
      },
    });
    const b = fakePlugin({ name: 'b', priority: 2, answer: answerA('goose.feathers') });
    const seen = record();
    await expect(new DnsCore([a, b]).resolve('goose.feathers')).rejects.toBe(refused);
    expect(seen.ended[0]!.attempts).toEqual([{ backend: 'a', error: refused, servers: [udp53('answer', 0)] }]);
    expect(b.calls).toEqual([]);
  });

  it('does not keep the servers in the cache: a later answer from the entry names none', async () => {
    const clock: Clock = { now: () => 1_000_000 };
    const stub = fakePlugin({ name: 'stub', answer: { ...answerA('goose.feathers'), servers: [udp53('answer', 0)] } });
    const cached = withCache(stub, { clock });
    // Behind a backend that fails, so the cache is asked through resolve(), not the fast path.
    const first = fakePlugin({
      name: 'first',
      priority: -1,
      answer: () => {
        throw new NetworkError('down');
      },
    });
    const seen = record();
    const core = new DnsCore([first, cached]);
    await core.resolve('goose.feathers');
    await core.resolve('goose.feathers');
    expect(seen.ended.map((c) => c.attempts.map((a) => [a.backend, a.servers]))).toEqual([
      [
        ['first', undefined],
        ['stub', [udp53('answer', 0)]],
      ],
      [
        ['first', undefined],
        ['stub', undefined],
      ],
    ]);
    expect(stub.calls).toHaveLength(1);
  });
});

describe('dnscore:cache:stale and dnscore:cache:prefetch', () => {
  it('says each stale answer served, with its age, how long it has been expired, and why', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now };
    let failing = false;
    const stub = fakePlugin({
      name: 'stub',
      answer: () => {
        if (failing) throw withServers(new NetworkError('unreachable'), [udp53('error')]);
        return answerA('goose.feathers', 100);
      },
    });
    const core = new DnsCore([withCache(stub, { clock, serveStale: true })]);
    await core.resolve('goose.feathers');
    failing = true;
    const seen = record([CHANNELS.cacheStale]);
    now += 130_000;
    const stale = await core.resolve('goose.feathers');
    now += 10_000;
    await core.resolve('goose.feathers');
    const query = makeQuery('goose.feathers', 'A');
    expect(stale.stale).toBe(true);
    expect(seen.events).toEqual([
      [CHANNELS.cacheStale, { query, backend: 'stub', age: 130, expiredFor: 30, reason: 'failed' }],
      [CHANNELS.cacheStale, { query, backend: 'stub', age: 140, expiredFor: 40, reason: 'recheck' }],
    ]);
    // The failed tries stay in the trace of the query that was answered stale.
    expect(seen.ended.map((c) => c.attempts)).toEqual([
      [{ backend: 'stub', servers: [udp53('error')] }],
      [{ backend: 'stub' }],
    ]);
    expect(stub.calls).toHaveLength(2);
  });

  it('says a prefetch started and finished, or failed with the error', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now };
    let failure: Error | undefined;
    const stub = fakePlugin({
      name: 'stub',
      answer: () => {
        if (failure) throw failure;
        return answerA('goose.feathers', 100);
      },
    });
    const core = new DnsCore([withCache(stub, { clock, prefetch: true })]);
    await core.resolve('goose.feathers');
    const seen = record([CHANNELS.cachePrefetch]);
    now += 95_000;
    await core.resolve('goose.feathers');
    await new Promise((resolve) => setImmediate(resolve));
    failure = new NetworkError('unreachable');
    now += 95_000;
    await core.resolve('goose.feathers');
    await new Promise((resolve) => setImmediate(resolve));
    const query = makeQuery('goose.feathers', 'A');
    expect(seen.events).toEqual([
      [CHANNELS.cachePrefetch, { query, backend: 'stub', event: 'start' }],
      [CHANNELS.cachePrefetch, { query, backend: 'stub', event: 'finish' }],
      [CHANNELS.cachePrefetch, { query, backend: 'stub', event: 'start' }],
      [CHANNELS.cachePrefetch, { query, backend: 'stub', event: 'fail', error: failure }],
    ]);
  });
});
