/**
 * DnsCore: Asterisk's test_dns.c resolve cases, ported (async only: "sync" is an await), with
 * the cancel case inverted as ARCHITECTURE.md decides: a cancelled call rejects with AbortError and
 * nothing fires for it afterwards. Plus the tsyringe composition root.
 */
import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  AbortError,
  DNS_CORE_OPTIONS,
  DnsCore,
  InvalidQueryError,
  RESOLVER_PLUGIN,
  seededRandom,
  type SrvData,
} from '@dnscore/core';
import { answerPacket, bytes, srvRdata } from './support/packets.js';
import { delayedAnswer, fakePlugin } from './support/fake-plugin.js';

const answer = { rcode: 0, answer: answerPacket({ answers: [{ type: 1, ttl: 12345, rdata: bytes([127, 0, 0, 1]) }] }) };

describe('resolve: nominal', () => {
  it('resolver_resolve_sync: records come back; the plugin is asked once and not cancelled', async () => {
    const mock = fakePlugin({ name: 'mock', answer });
    const result = await new DnsCore([mock]).resolve('goose.feathers', 'A', { class: 'IN' });
    expect(result.records.map((r) => [r.type, r.class, r.ttl, r.data])).toEqual([['A', 1, 12345, '127.0.0.1']]);
    expect(mock.calls).toHaveLength(1);
    expect(mock.calls[0]!.query).toMatchObject({ name: 'goose.feathers', type: 1, class: 1 });
    expect(mock.calls[0]!.signal.aborted).toBe(false);
  });

  it('types the records of a typed question', async () => {
    const srv = {
      rcode: 0,
      answer: answerPacket({
        question: { name: 'goose.feathers', type: 33 },
        answers: [{ type: 33, rdata: srvRdata(1, 1, 5060, 'a.example') }],
      }),
    };
    const result = await new DnsCore([fakePlugin({ answer: srv })]).resolve('goose.feathers', 'SRV');
    expectTypeOf(result.records[0]!.data).toEqualTypeOf<SrvData>();
    expect(result.records[0]!.data.port).toBe(5060);
  });

  it('normalizes the name: case kept, trailing dot and escapes normalized', async () => {
    const mock = fakePlugin({ answer: { rcode: 3 } });
    const result = await new DnsCore([mock]).resolve('Goose.Feathers.', 'A');
    expect(mock.calls[0]!.query.name).toBe('Goose.Feathers');
    expect(result.query.name).toBe('Goose.Feathers');
  });
});

describe('resolve: off-nominal (resolver_resolve_sync_off_nominal, resolver_resolve_async_off_nominal)', () => {
  it.each([
    ['an empty name', '', 'A', undefined],
    ['an empty label', 'goose..feathers', 'A', undefined],
    ['an over-long label', `${'a'.repeat(64)}.feathers`, 'A', undefined],
    ['type -1', 'goose.feathers', -1, undefined],
    ['type 65536', 'goose.feathers', 65536, undefined],
    ['an unknown type name', 'goose.feathers', 'GOOSE', undefined],
    ['class -1', 'goose.feathers', 'A', -1],
    ['class 65536', 'goose.feathers', 'A', 65536],
    ['type 0 (reserved)', 'goose.feathers', 0, undefined],
    ['OPT (EDNS, of the message)', 'goose.feathers', 'OPT', undefined],
    ['AXFR (a zone transfer)', 'goose.feathers', 'AXFR', undefined],
    ['IXFR (a zone transfer)', 'goose.feathers', 251, undefined],
    ['TSIG (signs a transaction)', 'goose.feathers', 'TSIG', undefined],
    ['class NONE (254, updates)', 'goose.feathers', 'A', 254],
    ['class 0 (reserved)', 'goose.feathers', 'A', 0],
  ])('%s is an InvalidQueryError and no plugin is asked', async (_name, name, type, rrclass) => {
    const mock = fakePlugin({ answer });
    await expect(
      new DnsCore([mock]).resolve(name, type, rrclass === undefined ? {} : { class: rrclass }),
    ).rejects.toBeInstanceOf(InvalidQueryError);
    expect(mock.calls).toHaveLength(0);
  });

  it('says why a meta-type or meta-class is no question', async () => {
    const dns = new DnsCore([fakePlugin({ answer })]);
    await expect(dns.resolve('goose.feathers', 'AXFR')).rejects.toThrow(
      'goose.feathers IN AXFR: IXFR and AXFR are zone transfers (RFC 1995, RFC 5936), not questions a resolver answers',
    );
    await expect(dns.resolve('goose.feathers', 'A', { class: 254 })).rejects.toThrow(
      'goose.feathers CLASS254 A: class NONE belongs to dynamic updates (RFC 2136), not to questions',
    );
  });

  it('a failing resolve() rejects with its error', async () => {
    const mock = fakePlugin({
      answer: () => {
        throw new Error('backend down');
      },
    });
    await expect(new DnsCore([mock]).resolve('goose.feathers')).rejects.toThrow('backend down');
  });
});

describe('resolve: asynchronous and cancel (fake timers, the 5 s mock of test_dns.c)', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('resolver_resolve_async: returns at once, settles when the resolver answers', async () => {
    const core = new DnsCore([fakePlugin({ answer: delayedAnswer(5000, answer) })]);
    let settled = false;
    const pending = core.resolve('goose.feathers').then((r) => {
      settled = true;
      return r;
    });
    await vi.advanceTimersByTimeAsync(4999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).records).toHaveLength(1);
  });

  it(
    'resolver_resolve_async_cancel (inverted): rejects with AbortError at once, the plugin is cancelled, nothing ' +
      'fires after',
    async () => {
      const mock = fakePlugin({ answer: delayedAnswer(5000, answer) });
      const controller = new AbortController();
      const onResult = vi.fn();
      const pending = new DnsCore([mock]).resolve('goose.feathers', 'A', { signal: controller.signal }).then(onResult);
      await vi.advanceTimersByTimeAsync(100);
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(AbortError);
      expect(mock.calls[0]!.signal.aborted).toBe(true);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(onResult).not.toHaveBeenCalled();
    },
  );

  it(
    'rejects with AbortError even when the plugin ignores its signal, and never delivers the late ' + 'answer',
    async () => {
      const deaf = fakePlugin({ answer: () => new Promise((resolve) => setTimeout(() => resolve(answer), 5000)) });
      const controller = new AbortController();
      const onResult = vi.fn();
      const pending = new DnsCore([deaf]).resolve('goose.feathers', 'A', { signal: controller.signal }).then(onResult);
      controller.abort(new Error('user gave up'));
      const error = await pending.catch((e: unknown) => e as AbortError);
      expect(error).toBeInstanceOf(AbortError);
      expect((error.cause as Error).message).toBe('user gave up');
      await vi.advanceTimersByTimeAsync(6000);
      expect(onResult).not.toHaveBeenCalled();
    },
  );

  it('an already aborted signal rejects without asking any plugin', async () => {
    const mock = fakePlugin({ answer });
    await expect(
      new DnsCore([mock]).resolve('goose.feathers', 'A', { signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(AbortError);
    expect(mock.calls).toHaveLength(0);
  });

  it('a completed query cannot be cancelled: aborting afterwards changes nothing', async () => {
    const controller = new AbortController();
    const result = await new DnsCore([fakePlugin({ answer })]).resolve('goose.feathers', 'A', {
      signal: controller.signal,
    });
    controller.abort();
    expect(result.records).toHaveLength(1);
  });
});

describe('tsyringe composition root', () => {
  it('plugins registered under RESOLVER_PLUGIN reach DnsCore through its constructor, in priority order', async () => {
    const container = rootContainer.createChildContainer();
    container.register(RESOLVER_PLUGIN, { useValue: fakePlugin({ name: 'system', priority: 200, answer }) });
    container.register(RESOLVER_PLUGIN, { useValue: fakePlugin({ name: 'zone', priority: 50, answer }) });
    const core = container.resolve(DnsCore);
    expect(core.registry.plugins.map((p) => p.name)).toEqual(['zone', 'system']);
    expect((await core.resolve('goose.feathers')).resolver).toBe('zone');
  });

  it('takes options from DNS_CORE_OPTIONS', async () => {
    const container = rootContainer.createChildContainer();
    const srv = answerPacket({
      question: { name: 'goose.feathers', type: 33 },
      answers: [
        { type: 33, rdata: srvRdata(1, 1, 1, 'a.example') },
        { type: 33, rdata: srvRdata(1, 1, 1, 'b.example') },
      ],
    });
    container.register(RESOLVER_PLUGIN, { useValue: fakePlugin({ answer: { rcode: 0, answer: srv } }) });
    container.register(DNS_CORE_OPTIONS, { useValue: { random: () => 0 } });
    const core = container.resolve(DnsCore);
    // Random 0 swaps b before a in the arrangement, and pick 0 takes the first of the running sum.
    for (let i = 0; i < 5; i++)
      expect((await core.resolve('goose.feathers', 'SRV')).records[0]!.data.target).toBe('b.example');
  });

  it('works with no plugin registered (and says so when asked)', async () => {
    const core = rootContainer.createChildContainer().resolve(DnsCore);
    expect(core.registry.plugins).toEqual([]);
    await expect(core.resolve('goose.feathers')).rejects.toThrow(/no resolver available/);
  });

  it('new DnsCore() needs no container', async () => {
    const core = new DnsCore([], { random: seededRandom(1) }).register(fakePlugin({ answer }));
    expect((await core.resolve('goose.feathers')).records).toHaveLength(1);
  });
});
