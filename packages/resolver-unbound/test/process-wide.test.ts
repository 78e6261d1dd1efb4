/**
 * Settings libunbound keeps for the whole process (process-wide.ts): a resolver that disagrees
 * with a live one is refused, and nothing the package does on its own (the DNSSEC support
 * probe, a reload that fails) changes the live resolvers' settings. cache-max-ttl shows which
 * settings are in force: it caps the TTL of every answer libunbound gives.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeQuery, parseMessage } from '@dnscore/core/plugin';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { UnboundOptionError } from '../src/errors.js';
import type { UnboundOptions } from '../src/options.js';
import { settingsInForce } from '../src/process-wide.js';
import { UnboundResolver } from '../src/unbound-resolver.js';
import { requiredAddon } from './support/addon.js';
import { labOptions } from './support/lab.js';

const zone = `$ORIGIN lab.test.
$TTL 300
@    IN SOA ns hostmaster 1 7200 900 1209600 60
     IN NS  ns
ns   IN A   127.0.0.1
${Array.from({ length: 8 }, (_, i) => `n${i} IN A 192.0.2.${i + 1}`).join('\n')}
`;

let nsd: NsdServer;
beforeAll(async () => {
  nsd = await startNsd([{ name: 'lab.test', text: zone }]);
});
afterAll(async () => {
  await nsd?.stop();
});

const lab = (extra: UnboundOptions = {}): UnboundOptions => labOptions(`${nsd.address}@${nsd.port}`, extra);
const capped = (ttl: string): UnboundOptions =>
  lab({ options: { 'do-not-query-localhost': 'no', 'cache-max-ttl': ttl } });

/** The TTL of the A record libunbound answers for `name` (fresh from nsd: the zone's 300, or the cap). */
async function ttlOf(resolver: UnboundResolver, name: string): Promise<number> {
  const answer = await resolver.resolve(makeQuery(name, 'A'), new AbortController().signal);
  return parseMessage(answer.answer!).answers[0]!.ttl;
}

/** The error a construction throws. */
function refusal(options: UnboundOptions): UnboundOptionError {
  try {
    new UnboundResolver(options).close();
  } catch (error) {
    expect(error).toBeInstanceOf(UnboundOptionError);
    return error as UnboundOptionError;
  }
  throw new Error('the resolver was made');
}

describe('settings libunbound keeps for the whole process', () => {
  it('a second resolver with another value is refused, naming the option and both values', () => {
    const first = new UnboundResolver(lab());
    const error = refusal(lab({ infraCacheMaxRtt: 120_000 }));
    expect(error.option).toBe('infraCacheMaxRtt');
    expect(error.message).toBe(
      'unbound option infraCacheMaxRtt: libunbound keeps infra-cache-max-rtt for the whole process, and ' +
        'another resolver alive in it has "1000" where this one has "120000": close() that one first, ' +
        'or give both the same',
    );
    // The same settings live side by side.
    const second = new UnboundResolver(lab({ infraCacheMaxRtt: 1000 }));
    second.close();
    first.close();
    // Once the other is closed, another value is free to take.
    new UnboundResolver(lab({ infraCacheMaxRtt: 120_000 })).close();
  });

  it('a setting given to one and left to the default in the other is a difference too', () => {
    const first = new UnboundResolver(lab());
    expect(refusal(capped('5')).message).toBe(
      'unbound option options["cache-max-ttl"]: libunbound keeps cache-max-ttl for the whole process, and ' +
        'another resolver alive in it has libunbound\'s default where this one has "5": close() that one ' +
        'first, or give both the same',
    );
    first.close();
    const second = new UnboundResolver(capped('5'));
    expect(refusal(lab()).option).toBe('cache-max-ttl (not given)');
    second.close();
  });

  it('a reload may change them while no other resolver is alive, not while one disagrees', async () => {
    const resolver = new UnboundResolver(capped('5'));
    expect(await ttlOf(resolver, 'n0.lab.test')).toBe(5);
    resolver.reload(capped('7'));
    expect(await ttlOf(resolver, 'n1.lab.test')).toBe(7);

    const other = new UnboundResolver(capped('7'));
    expect(() => resolver.reload(capped('5'))).toThrow(/cache-max-ttl for the whole process/);
    expect(resolver.generation).toBe(2);
    expect(await ttlOf(resolver, 'n2.lab.test')).toBe(7);
    other.close();
    resolver.close();
  });

  it('the DNSSEC support probe leaves them as they are', async () => {
    const resolver = new UnboundResolver(capped('5'));
    expect(await ttlOf(resolver, 'n3.lab.test')).toBe(5);
    // The probe finalizes contexts of its own; with libunbound's defaults the cap went back to 86400.
    await resolver.dnssecSupport();
    expect(await ttlOf(resolver, 'n4.lab.test')).toBe(5);
    resolver.close();
  });

  it('a reload that fails gives the live resolvers theirs back', async () => {
    const resolver = new UnboundResolver(capped('5'));
    const broken = { ...capped('9'), localData: ['not a record'] };
    expect(() => resolver.reload(broken)).toThrow(UnboundOptionError);
    // Finalizing the broken context applied its cap to the whole process before it failed.
    expect(await ttlOf(resolver, 'n5.lab.test')).toBe(5);
    resolver.close();
  });
});

describe('two copies of the module in one process', () => {
  it("share the claims, which are the addon's", async () => {
    // The same file under two URLs: two module instances on the one addon the process loaded.
    const copy = (name: string) =>
      import(/* @vite-ignore */ `../src/process-wide.js?copy=${name}`) as Promise<
        typeof import('../src/process-wide.js')
      >;
    const [one, two] = await Promise.all([copy('one'), copy('two')]);
    expect(one.claimProcessWide).not.toBe(two.claimProcessWide);
    const addon = requiredAddon();
    const claim = one.claimProcessWide(
      addon,
      new Map([['cache-max-ttl', { value: '5', option: 'options["cache-max-ttl"]' }]]),
    );
    expect(() => two.claimProcessWide(addon, new Map())).toThrow(
      'libunbound keeps cache-max-ttl for the whole process, and another resolver alive in it has "5"',
    );
    claim.release();
    one.claimProcessWide(addon, new Map()).release();
  });
});

/** A resolver's thread: a worker_threads Worker on the package as built (dist/). */
class Thread {
  readonly worker = new Worker(new URL('./support/process-wide-worker.mjs', import.meta.url), {
    execArgv: [], // not the test runner's "source" condition: the worker loads the built packages
  });

  async send(message: object): Promise<Record<string, unknown>> {
    this.worker.postMessage(message);
    const [reply] = (await once(this.worker, 'message')) as [Record<string, unknown>];
    return reply;
  }
}

const refusedInWorker = {
  error: 'UnboundOptionError',
  option: 'infraCacheMaxRtt',
  message:
    'unbound option infraCacheMaxRtt: libunbound keeps infra-cache-max-rtt for the whole process, and ' +
    'another resolver alive in it has "1000" where this one has "120000": close() that one first, ' +
    'or give both the same',
};

describe('resolvers in worker_threads threads', () => {
  // One libunbound and one set of its globals for every thread of the process.
  it("a worker's resolver with another value is refused, and so is the main thread's", async () => {
    const thread = new Thread();
    try {
      const main = new UnboundResolver(lab());
      expect(await thread.send({ make: lab({ infraCacheMaxRtt: 120_000 }) })).toEqual(refusedInWorker);
      // Equal settings live side by side, and both answer.
      expect(await thread.send({ make: lab({ infraCacheMaxRtt: 1000 }) })).toEqual({ made: true });
      expect(await thread.send({ ask: 'n6.lab.test' })).toEqual({ rcode: 0, ttl: 300 });
      expect(await ttlOf(main, 'n7.lab.test')).toBe(300);
      main.close();
      // The worker's resolver still binds the main thread.
      expect(refusal(lab({ infraCacheMaxRtt: 120_000 })).message).toBe(refusedInWorker.message);
      // The worker's resolver closed: the main thread may take another value.
      expect(await thread.send({ close: true })).toEqual({ closed: true });
      new UnboundResolver(lab({ infraCacheMaxRtt: 120_000 })).close();
    } finally {
      await thread.worker.terminate();
    }
  });

  it('a worker that ends without close() lets go of its claim', async () => {
    const exits = new Thread();
    expect(await exits.send({ make: capped('5') })).toEqual({ made: true });
    expect(refusal(lab()).option).toBe('cache-max-ttl (not given)');
    exits.worker.postMessage({ exit: true });
    await once(exits.worker, 'exit');
    new UnboundResolver(lab()).close();

    const terminated = new Thread();
    expect(await terminated.send({ make: capped('5') })).toEqual({ made: true });
    expect(refusal(lab()).option).toBe('cache-max-ttl (not given)');
    await terminated.worker.terminate();
    new UnboundResolver(lab()).close();
  });

  it('a worker terminated while answers arrive frees its contexts and lets go of its claim', async () => {
    const addon = requiredAddon();
    const open = addon.openContexts();
    const thread = new Thread();
    expect(await thread.send({ make: capped('5') })).toEqual({ made: true });
    expect(addon.openContexts()).toBe(open + 1);
    // Its resolver thread hands results to a JS thread that is going away.
    expect(await thread.send({ flood: 2000 })).toEqual({ flowing: true });
    await thread.worker.terminate();
    expect(addon.openContexts()).toBe(open);
    new UnboundResolver(lab()).close();
  });

  it("a worker's resolver dropped without close() lets go of its claim once collected", async () => {
    const thread = new Thread();
    try {
      expect(await thread.send({ make: capped('5') })).toEqual({ made: true });
      expect(refusal(lab()).option).toBe('cache-max-ttl (not given)');
      expect(await thread.send({ drop: true })).toEqual({ dropped: true });
      new UnboundResolver(lab()).close();
    } finally {
      await thread.worker.terminate();
    }
  });

  it("a probe on the main thread takes the settings of a worker's resolver", async () => {
    const thread = new Thread();
    try {
      expect(await thread.send({ make: capped('5') })).toEqual({ made: true });
      expect(settingsInForce(requiredAddon())?.get('cache-max-ttl')?.value).toBe('5');
    } finally {
      await thread.worker.terminate();
    }
    expect(settingsInForce(requiredAddon())).toBeUndefined();
  });
});
