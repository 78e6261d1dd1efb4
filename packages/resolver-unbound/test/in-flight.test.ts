/**
 * The bound on questions handed to libunbound, alone and in the resolver: a cancelled question
 * rejects at once and gives its slot back (libunbound drops it: ub_cancel); waiting questions
 * start in order; a waiting question that is cancelled never starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, StateError, makeQuery } from '@dnscore/core/plugin';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { InFlightLimiter } from '../src/in-flight.js';
import { UnboundResolver, type UnboundOptions } from '../src/index.js';
import { startHoldProxy, type HoldProxy } from './support/hold-proxy.js';

describe('InFlightLimiter', () => {
  it('grants up to the limit, then queues in order', async () => {
    const limiter = new InFlightLimiter(2);
    const order: string[] = [];
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const granted = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const third = limiter.acquire().then(granted('third'));
    const fourth = limiter.acquire().then(granted('fourth'));
    expect([limiter.active, limiter.queued]).toEqual([2, 2]);
    first();
    first(); // a second call is ignored
    const releaseThird = await third;
    expect([order, limiter.active, limiter.queued]).toEqual([['third'], 2, 1]);
    second();
    (await fourth)();
    releaseThird();
    expect([order, limiter.active, limiter.queued]).toEqual([['third', 'fourth'], 0, 0]);
  });

  it('a waiting acquire that is aborted leaves the queue with AbortError', async () => {
    const limiter = new InFlightLimiter(1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort('gave up');
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.active).toBe(0);
  });

  it('an already aborted signal is refused at once', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new InFlightLimiter(1).acquire(controller.signal)).rejects.toMatchObject({ code: 'ABORT_ERR' });
  });

  it('raising the limit starts waiting acquires; rejectWaiting fails them', async () => {
    const limiter = new InFlightLimiter(1);
    await limiter.acquire();
    const a = limiter.acquire();
    const b = limiter.acquire();
    limiter.limit = 2;
    await a;
    expect([limiter.active, limiter.queued, limiter.limit]).toEqual([2, 1, 2]);
    limiter.rejectWaiting(new StateError('closed'));
    await expect(b).rejects.toThrow('closed');
  });

  it('drained() resolves when the last slot is released', async () => {
    const limiter = new InFlightLimiter(3);
    await limiter.drained();
    const releases = await Promise.all([limiter.acquire(), limiter.acquire()]);
    let drained = false;
    const done = limiter.drained().then(() => (drained = true));
    releases[0]!();
    await Promise.resolve();
    expect(drained).toBe(false);
    releases[1]!();
    await done;
    expect(drained).toBe(true);
  });
});

describe('UnboundResolver in flight (a relay holds queries on the wire)', () => {
  let nsd: NsdServer;
  let proxy: HoldProxy;

  beforeAll(async () => {
    nsd = await startNsd([
      {
        name: 'lab.test',
        text: '$ORIGIN lab.test.\n$TTL 300\n@ IN SOA ns hm 1 7200 900 1209600 60\n IN NS ns\nns IN A 127.0.0.1\none IN A 192.0.2.1\ntwo IN A 192.0.2.2\nthree IN A 192.0.2.3\n',
      },
    ]);
  });
  afterAll(async () => {
    await nsd?.stop();
  });

  async function held(extra: UnboundOptions = {}): Promise<UnboundResolver> {
    proxy = await startHoldProxy(nsd);
    return new UnboundResolver({
      hosts: false,
      resolvConf: false,
      trustAnchors: [],
      qnameMinimisation: false,
      localZones: [{ name: 'test', type: 'transparent' }],
      stubZones: [
        { name: 'lab.test', addresses: [proxy.server] },
        { name: '.', addresses: [proxy.server] },
      ],
      ...extra,
    });
  }

  it('cancel rejects at once with AbortError and frees the slot; libunbound drops the question', async () => {
    const resolver = await held();
    const controller = new AbortController();
    const pending = resolver.resolve(makeQuery('one.lab.test', 'A'), controller.signal);
    await proxy.waitFor('one.lab.test');
    expect(resolver.inFlight).toBe(1);
    controller.abort(new Error('caller gave up'));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).cause).toEqual(new Error('caller gave up'));
    expect(resolver.inFlight).toBe(0);
    await resolver.drained();

    proxy.release();
    // The context is fine afterwards, and answers what the late reply brought.
    const again = await resolver.resolve(makeQuery('one.lab.test', 'A'), new AbortController().signal);
    expect(again.rcode).toBe(0);
    resolver.close();
    await proxy.close();
  });

  it('maxInFlight bounds the queries handed to libunbound; the rest wait, in order', async () => {
    const resolver = await held({ maxInFlight: 1 });
    const first = resolver.resolve(makeQuery('one.lab.test', 'A'), new AbortController().signal);
    const second = resolver.resolve(makeQuery('two.lab.test', 'A'), new AbortController().signal);
    await proxy.waitFor('one.lab.test');
    expect([resolver.inFlight, resolver.queued]).toEqual([1, 1]);
    expect(proxy.names).not.toContain('two.lab.test');

    proxy.release();
    const [a, b] = await Promise.all([first, second]);
    expect([a.rcode, b.rcode]).toEqual([0, 0]);
    expect(proxy.names.filter((name) => name !== 'one.lab.test')).toContain('two.lab.test');
    resolver.close();
    await proxy.close();
  });

  it('a waiting query that is cancelled never reaches libunbound', async () => {
    const resolver = await held({ maxInFlight: 1 });
    const first = resolver.resolve(makeQuery('one.lab.test', 'A'), new AbortController().signal);
    const controller = new AbortController();
    const second = resolver.resolve(makeQuery('two.lab.test', 'A'), controller.signal);
    await proxy.waitFor('one.lab.test');
    controller.abort();
    await expect(second).rejects.toMatchObject({ code: 'ABORT_ERR' });
    expect(resolver.queued).toBe(0);
    proxy.release();
    await first;
    await resolver.drained();
    expect(proxy.names).not.toContain('two.lab.test');
    resolver.close();
    await proxy.close();
  });

  it('a server that timed out is asked again after infraHostTtl (libunbound default: 900 s of SERVFAIL)', async () => {
    const resolver = await held({ infraCacheMaxRtt: 50, infraHostTtl: 1 });
    const signal = new AbortController().signal;
    expect((await resolver.resolve(makeQuery('one.lab.test', 'A'), signal)).rcode).toBe(2); // held: no answer
    proxy.release(); // the server is back
    const back = Date.now();
    let rcode = 2;
    // A new name each time: libunbound keeps a SERVFAIL answer for 5 s per name.
    for (let i = 0; rcode === 2 && Date.now() - back < 10_000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // waiting on libunbound's host cache, a real clock
      rcode = (await resolver.resolve(makeQuery(`poll${i}.lab.test`, 'A'), signal)).rcode;
    }
    expect(rcode).toBe(3); // NXDOMAIN from nsd: asked again
    resolver.close();
    await proxy.close();
  });

  it('close() settles every question at once: waiting and in libunbound, with StateError', async () => {
    const resolver = await held({ maxInFlight: 1 });
    const first = resolver.resolve(makeQuery('one.lab.test', 'A'), new AbortController().signal);
    const second = resolver.resolve(makeQuery('three.lab.test', 'A'), new AbortController().signal);
    await proxy.waitFor('one.lab.test');
    resolver.close();
    await expect(second).rejects.toMatchObject({ code: 'DNS_ERR_STATE', message: 'the unbound resolver was closed' });
    await expect(first).rejects.toMatchObject({ code: 'DNS_ERR_STATE', message: 'the unbound resolver was closed' });
    expect(resolver.inFlight).toBe(0);
    await resolver.drained();
    proxy.release();
    await proxy.close();
  });
});
