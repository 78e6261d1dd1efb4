/**
 * The registry: Asterisk's resolver_register/unregister cases, ported, and the fallback rule
 * of ARCHITECTURE.md (a plugin error falls through; NXDOMAIN, NODATA and bogus never do).
 */
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  DnsCore,
  InvalidQueryError,
  MalformedAnswerError,
  NetworkError,
  NoResolverError,
  RegistrationError,
  ResolverRegistry,
  TimeoutError,
  makeQuery,
  shouldTryNext,
  type ResolverPlugin,
} from '@dnscore/core';
import { answerPacket, bytes } from './support/packets.js';
import { fakePlugin } from './support/fake-plugin.js';

const A = { question: { name: 'goose.feathers', type: 1 } };
const answerA = (address: number[]) => ({
  rcode: 0,
  answer: answerPacket({ ...A, answers: [{ type: 1, rdata: bytes(address) }] }),
});

describe('register / unregister: nominal', () => {
  it('resolver_register_unregister', () => {
    const registry = new ResolverRegistry();
    const plugin = fakePlugin({ name: 'mock' });
    registry.register(plugin);
    expect(registry.plugins).toEqual([plugin]);
    expect(registry.unregister(plugin)).toBe(true);
    expect(registry.plugins).toEqual([]);
  });

  it('orders by priority, lower first; equal priorities keep registration order', () => {
    const registry = new ResolverRegistry();
    for (const [name, priority] of [
      ['system', 2147483647],
      ['b', 100],
      ['unbound', 100],
      ['zone', 50],
    ] as const) {
      registry.register(fakePlugin({ name, priority }));
    }
    expect(registry.plugins.map((p) => p.name)).toEqual(['zone', 'b', 'unbound', 'system']);
  });

  it('unregisters by name', () => {
    const registry = new ResolverRegistry();
    registry.register(fakePlugin({ name: 'a' }));
    expect(registry.unregister('a')).toBe(true);
    expect(registry.get('a')).toBeUndefined();
  });
});

describe('register / unregister: off-nominal', () => {
  const complete = fakePlugin({ name: 'ok' });
  it.each([
    ['a duplicate name', { ...fakePlugin({ name: 'ok' }) }, /already registered/],
    ['nothing', undefined, /not an object/],
    ['no name', { ...complete, name: '' }, /no name/],
    ['no priority', { ...complete, name: 'p', priority: Number.NaN }, /finite priority/],
    ['no resolve()', { ...complete, name: 'r', resolve: undefined }, /no resolve\(\)/],
    ['no available()', { ...complete, name: 'v', available: undefined }, /no available\(\)/],
    ['no close()', { ...complete, name: 'c', close: undefined }, /no close\(\)/],
  ])('resolver_register_off_nominal: %s', (_name, plugin, reason) => {
    const registry = new ResolverRegistry();
    registry.register(complete);
    expect(() => registry.register(plugin as unknown as ResolverPlugin)).toThrow(RegistrationError);
    expect(() => registry.register(plugin as unknown as ResolverPlugin)).toThrow(reason);
    expect(registry.plugins).toEqual([complete]);
  });

  it('resolver_unregister_off_nominal: an unknown plugin is harmless', () => {
    const registry = new ResolverRegistry();
    expect(registry.unregister(fakePlugin())).toBe(false);
    expect(registry.unregister('nope')).toBe(false);
  });
});

describe('a stale answer (RFC 8767) waits for the plugins after it', () => {
  const timeout = () => {
    throw new TimeoutError('no answer');
  };
  const staleA = { ...answerA([1, 1, 1, 1]), stale: true };
  const finish = (answer: { stale?: boolean }, plugin: ResolverPlugin) =>
    `${plugin.name}${answer.stale ? ' stale' : ''}`;

  it('the next plugin that answers wins; when all fail, the first stale answer, each asked once', async () => {
    const registry = new ResolverRegistry();
    const a = fakePlugin({ name: 'a', priority: 1, answer: staleA });
    const b = fakePlugin({ name: 'b', priority: 2, answer: timeout });
    const c = fakePlugin({ name: 'c', priority: 3, answer: answerA([3, 3, 3, 3]) });
    for (const plugin of [a, b, c]) registry.register(plugin);
    const attempts: { backend: string; error?: Error }[] = [];
    expect(
      await registry.resolve(makeQuery('goose.feathers', 'A'), new AbortController().signal, finish, attempts),
    ).toBe('c');
    expect(attempts.map((t) => [t.backend, t.error?.message])).toEqual([
      ['a', undefined],
      ['b', 'no answer'],
      ['c', undefined],
    ]);
    registry.unregister(c);
    registry.register(fakePlugin({ name: 'c', priority: 3, answer: { ...answerA([3, 3, 3, 3]), stale: true } }));
    expect(await registry.resolve(makeQuery('goose.feathers', 'A'), new AbortController().signal, finish)).toBe(
      'a stale',
    );
    expect([a.calls.length, b.calls.length]).toEqual([2, 2]);
  });

  it('a cancel while the next plugin works rejects with AbortError, never the stale answer', async () => {
    const controller = new AbortController();
    const a = fakePlugin({ name: 'a', priority: 1, answer: staleA });
    const b = fakePlugin({
      name: 'b',
      priority: 2,
      answer: (_query, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    });
    const pending = new DnsCore([a, b]).resolve('goose.feathers', 'A', { signal: controller.signal });
    await vi.waitFor(() => expect(b.calls).toHaveLength(1));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });
});

describe('selection and fallback', () => {
  it('the first available plugin answers; availability is asked at selection time', async () => {
    const first = fakePlugin({
      name: 'unbound',
      priority: 100,
      available: { available: false, reason: 'binding not installed' },
      answer: answerA([1, 1, 1, 1]),
    });
    const second = fakePlugin({ name: 'system', priority: 200, answer: answerA([2, 2, 2, 2]) });
    const core = new DnsCore([second, first]);
    expect((await core.resolve('goose.feathers')).records[0]!.data).toBe('2.2.2.2');
    expect(first.calls).toHaveLength(0);
    first.availability = true;
    const result = await core.resolve('goose.feathers');
    expect(result.records[0]!.data).toBe('1.1.1.1');
    expect(result.resolver).toBe('unbound');
  });

  it('a plugin error falls through to the next plugin', async () => {
    const failing = fakePlugin({
      name: 'a',
      priority: 1,
      answer: () => {
        throw new TimeoutError('no answer');
      },
    });
    const next = fakePlugin({ name: 'b', priority: 2, answer: answerA([2, 2, 2, 2]) });
    const result = await new DnsCore([failing, next]).resolve('goose.feathers');
    expect(result.resolver).toBe('b');
    expect(failing.calls).toHaveLength(1);
  });

  it('an unavailable plugin that fails closed: the ones after it are not asked in its place', async () => {
    const zone = fakePlugin({ name: 'zone', priority: 50, available: false });
    const validating = fakePlugin({
      name: 'unbound',
      priority: 100,
      available: { available: false, reason: 'no libunbound', failClosed: true },
    });
    const system = fakePlugin({ name: 'system', priority: 200, answer: answerA([6, 6, 6, 6]) });
    const core = new DnsCore([zone, validating, system]);
    await expect(core.resolve('goose.feathers')).rejects.toThrow(
      'no resolver available for goose.feathers IN A (zone: unavailable; unbound: no libunbound; ' +
        'system: not asked in place of "unbound", which fails closed)',
    );
    expect(system.calls).toHaveLength(0);
    // A plugin before it still answers.
    zone.availability = true;
    expect((await core.resolve('goose.feathers')).resolver).toBe('zone');
  });

  it('a malformed answer is an answer that cannot be used: a definite error, the next plugin never asked', async () => {
    const garbage = fakePlugin({ name: 'a', priority: 1, answer: { rcode: 0, answer: bytes([1, 2, 3]) } });
    const next = fakePlugin({ name: 'b', priority: 2, answer: answerA([2, 2, 2, 2]) });
    await expect(new DnsCore([garbage, next]).resolve('goose.feathers')).rejects.toBeInstanceOf(MalformedAnswerError);
    expect(next.calls).toHaveLength(0);
  });

  it.each([
    ['NXDOMAIN', { rcode: 3, answer: answerPacket({ ...A, rcode: 3 }) }],
    ['NODATA', { rcode: 0, answer: answerPacket(A) }],
    [
      'bogus',
      {
        rcode: 0,
        bogus: true,
        whyBogus: 'signature expired',
        answer: answerPacket({ ...A, answers: [{ type: 1, rdata: bytes([6, 6, 6, 6]) }] }),
      },
    ],
    ['SERVFAIL', { rcode: 2 }],
  ])('a definite answer (%s) never falls through', async (_name, answer) => {
    const validating = fakePlugin({ name: 'unbound', priority: 100, answer });
    const other = fakePlugin({ name: 'system', priority: 200, answer: answerA([6, 6, 6, 6]) });
    const result = await new DnsCore([validating, other]).resolve('goose.feathers');
    expect(result.resolver).toBe('unbound');
    expect(result.records).toEqual([]);
    expect(other.calls).toHaveLength(0);
  });

  it('a definite error (e.g. an insecure answer refused for security) never falls through', async () => {
    class InsecureError extends NetworkError {
      override readonly definite = true;
    }
    const strict = fakePlugin({
      name: 'unbound',
      priority: 100,
      answer: () => {
        throw new InsecureError('insecure');
      },
    });
    const other = fakePlugin({ name: 'system', priority: 200, answer: answerA([6, 6, 6, 6]) });
    await expect(new DnsCore([strict, other]).resolve('goose.feathers')).rejects.toBeInstanceOf(InsecureError);
    expect(other.calls).toHaveLength(0);
  });

  it('when every plugin fails, the most specific error wins with the others as its cause', async () => {
    const plain = fakePlugin({
      name: 'a',
      priority: 1,
      answer: () => {
        throw new Error('binding crashed');
      },
    });
    const timeout = fakePlugin({
      name: 'b',
      priority: 2,
      answer: () => {
        throw new TimeoutError('every server timed out');
      },
    });
    const error = await new DnsCore([plain, timeout]).resolve('goose.feathers').catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(((error as Error).cause as AggregateError).errors.map((e: Error) => e.message)).toEqual(['binding crashed']);
  });

  it('no available plugin: NoResolverError with every reason', async () => {
    const core = new DnsCore([
      fakePlugin({ name: 'unbound', available: { available: false, reason: 'libunbound missing' } }),
    ]);
    await expect(core.resolve('goose.feathers')).rejects.toThrow(NoResolverError);
    await expect(core.resolve('goose.feathers')).rejects.toThrow(/unbound: libunbound missing/);
  });

  it('an available() that throws counts as unavailable', async () => {
    const broken = {
      ...fakePlugin({ name: 'broken', priority: 1 }),
      available: () => {
        throw new Error('boom');
      },
    };
    const next = fakePlugin({ name: 'next', priority: 2, answer: answerA([2, 2, 2, 2]) });
    expect((await new DnsCore([broken, next]).resolve('goose.feathers')).resolver).toBe('next');
  });

  it('says once which backend answers and why, and again only when that changes', async () => {
    const warn = vi.fn();
    const unbound = fakePlugin({
      name: 'unbound',
      priority: 100,
      available: { available: false, reason: 'binding not installed' },
      answer: answerA([1, 1, 1, 1]),
    });
    const system = fakePlugin({ name: 'system', priority: 200, answer: answerA([2, 2, 2, 2]) });
    const core = new DnsCore([unbound, system], { logger: { info() {}, warn } });
    await core.resolve('goose.feathers');
    await core.resolve('goose.feathers');
    expect(warn.mock.calls).toEqual([
      ['dnscore: resolving with "system" (unbound unavailable: binding not installed)'],
    ]);
    unbound.availability = true;
    await core.resolve('goose.feathers');
    expect(warn).toHaveBeenLastCalledWith('dnscore: resolving with "unbound"');
  });

  it('publishes every fall-through on the dnscore:registry:fallback channel', async () => {
    const events: unknown[] = [];
    const listener = (message: unknown): void => void events.push(message);
    diagnostics.subscribe('dnscore:registry:fallback', listener);
    try {
      const failing = fakePlugin({
        name: 'a',
        priority: 1,
        answer: () => {
          throw new NetworkError('ECONNREFUSED');
        },
      });
      await new DnsCore([failing, fakePlugin({ name: 'b', priority: 2, answer: answerA([2, 2, 2, 2]) })]).resolve(
        'goose.feathers',
      );
    } finally {
      diagnostics.unsubscribe('dnscore:registry:fallback', listener);
    }
    expect(events).toEqual([expect.objectContaining({ plugin: 'a', next: 'b', error: expect.any(NetworkError) })]);
  });

  it('shouldTryNext: abort and definite errors stop, others go on', () => {
    expect(shouldTryNext(new AbortError())).toBe(false);
    expect(shouldTryNext(new DOMException('x', 'AbortError'))).toBe(false);
    expect(shouldTryNext(new InvalidQueryError('bad'))).toBe(false);
    expect(shouldTryNext(new TimeoutError('slow'))).toBe(true);
    expect(shouldTryNext(new Error('crash'))).toBe(true);
  });

  it('close() closes every plugin', async () => {
    const a = fakePlugin({ name: 'a' });
    const b = fakePlugin({ name: 'b' });
    await new DnsCore([a, b]).close();
    expect([a.closed, b.closed]).toEqual([1, 1]);
  });
});
