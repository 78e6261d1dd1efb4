/**
 * The bound on questions handed to libunbound, in the resolver: a cancelled question rejects at
 * once and gives its slot back (libunbound drops it: ub_cancel); waiting questions start in
 * order; a waiting question that is cancelled never starts. The limiter alone is tested in core
 * (test/concurrency-limiter.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, makeQuery } from '@dnscore/core/plugin';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { UnboundResolver } from '../src/unbound-resolver.js';
import type { UnboundOptions } from '../src/options.js';
import { startHoldProxy, type HoldProxy } from './support/hold-proxy.js';
import { labOptions } from './support/lab.js';

describe('UnboundResolver in flight (a relay holds queries on the wire)', () => {
  let nsd: NsdServer;
  let proxy: HoldProxy;

  beforeAll(async () => {
    nsd = await startNsd([
      {
        name: 'lab.test',
        text:
          '$ORIGIN lab.test.\n$TTL 300\n@ IN SOA ns hm 1 7200 900 1209600 60\n IN NS ns\nns IN A 127.0.0.1\none ' +
          'IN A 192.0.2.1\ntwo IN A 192.0.2.2\nthree IN A 192.0.2.3\n',
      },
    ]);
  });
  afterAll(async () => {
    await nsd?.stop();
  });

  async function held(extra: UnboundOptions = {}): Promise<UnboundResolver> {
    proxy = await startHoldProxy(nsd);
    return new UnboundResolver(labOptions(proxy.server, extra));
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
