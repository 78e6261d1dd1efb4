/**
 * The addon's asynchronous context against real libunbound: no fork, cancel that cancels
 * (also racing the answer), identical questions merged into one query, the DNSKEY asked
 * once for many validated questions, close() settling what is in flight.
 */
import { AbortError, StateError } from '@dnscore/core/plugin';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { createContext } from '../src/context.js';
import { LibunboundError, type UnboundContext } from '../src/unbound-context.js';
import { UnboundResolver } from '../src/unbound-resolver.js';
import type { UnboundResultRaw } from '../src/binding.js';
import { planContext } from '../src/options.js';
import { children } from './support/children.js';
import { startHoldProxy, type HoldProxy } from './support/hold-proxy.js';
import { labOptions } from './support/lab.js';
import { BILOXI_QUESTIONS, rigBehindHoldProxy } from './support/rig.js';
import { LOCAL_DATA as LOCAL } from './support/local-data.js';
import { requiredAddon } from './support/addon.js';

const addon = requiredAddon();

const closing: { close(): unknown }[] = [];
afterEach(async () => {
  for (const item of closing.splice(0)) await item.close();
});

function local(): UnboundContext {
  const context = createContext(addon, planContext(LOCAL).steps);
  closing.push(context);
  return context;
}

function ipv4(result: UnboundResultRaw): string[] {
  return result.data.map((rdata) => [...rdata].join('.'));
}

describe('UnboundContext', () => {
  it('resolves on a thread of libunbound, never a forked process (ub_ctx_async(ctx, 1))', async () => {
    const before = children();
    const context = local();
    const results = await Promise.all([
      context.resolve('goose.feathers', 1, 1),
      context.resolve('duck.feathers', 1, 1),
    ]);
    expect(results.map(ipv4)).toEqual([['127.0.0.2'], ['127.0.0.4']]);
    expect(children()).toEqual(before);
    expect(context.inFlight).toBe(0);
  });

  it('a result has every field of ub_result (read from the event callback and its packet)', async () => {
    const result = await local().resolve('goose.feathers', 1, 1);
    const { qname, qtype, qclass, data, canonName, rcode, haveData, nxDomain, secure, bogus, whyBogus } = result;
    const { wasRateLimited, ttl, answerPacket } = result;
    expect({
      qname,
      qtype,
      qclass,
      data,
      canonName,
      rcode,
      answerPacket: answerPacket && answerPacket.length > 12,
      haveData,
      nxDomain,
      secure,
      bogus,
      whyBogus,
      wasRateLimited,
      ttl,
    }).toEqual({
      qname: 'goose.feathers',
      qtype: 1,
      qclass: 1,
      data: [Buffer.from([127, 0, 0, 2])],
      canonName: null, // libunbound sets it only when a CNAME was followed
      rcode: 0,
      answerPacket: true,
      haveData: true,
      nxDomain: false,
      secure: false,
      bogus: false,
      whyBogus: null,
      wasRateLimited: false,
      ttl: 300,
    });
  });

  it('a libunbound error rejects with LibunboundError, libunbound words and number', async () => {
    const error = await local()
      .resolve('a..b.feathers', 1, 1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LibunboundError);
    expect(error).toMatchObject({ code: 'ERR_UNBOUND', unboundCode: -3, message: 'libunbound: syntax error (-3)' });
  });

  it('an aborted signal before the question: AbortError, nothing asked', async () => {
    const context = local();
    const controller = new AbortController();
    controller.abort();
    await expect(context.resolve('goose.feathers', 1, 1, controller.signal)).rejects.toBeInstanceOf(AbortError);
    expect(context.inFlight).toBe(0);
  });

  it('local answers come back inside resolve() or through the callback, each once', async () => {
    // The native context directly, to see every callback libunbound makes.
    const calls: number[] = [];
    const onResult = (token: number): void => {
      calls.push(token);
    };
    const native = new addon.Context(onResult);
    closing.push(native);
    for (const step of planContext(LOCAL).steps) step.apply(native as never);
    native.removeZone('dnscore-finalize-probe.invalid.');
    const direct = new Set<number>();
    const cancelled = new Set<number>();
    const answered = new Set<number>();
    for (let round = 0; round < 200; round++) {
      const token = round + 1;
      const sent = native.resolve(round % 2 ? 'goose.feathers' : 'duck.feathers', 1, 1, token);
      if (typeof sent !== 'number') {
        // Answered inside the call from local data: no error, rcode NOERROR, a packet.
        expect([sent[0], sent[1], (sent[2]?.length ?? 0) > 12]).toEqual([0, 0, true]);
        direct.add(token);
        continue;
      }
      const cancel = (): void => {
        if (native.cancel(sent)) cancelled.add(token);
        else answered.add(token);
      };
      const when = round % 4;
      if (when === 0) cancel();
      else if (when === 1) queueMicrotask(cancel);
      else if (when === 2) setImmediate(cancel);
      else answered.add(token);
      if (round % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    while (native.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(direct.size).toBeGreaterThan(0);
    expect(calls.filter((token) => cancelled.has(token) || direct.has(token))).toEqual([]);
    expect(new Set(calls).size).toBe(calls.length); // once each
    expect(calls.sort((a, b) => a - b)).toEqual([...answered].sort((a, b) => a - b));
    expect(direct.size + cancelled.size + answered.size).toBe(200);
    expect(typeof onResult).toBe('function'); // kept reachable until here, as the addon asks
  });

  it('cancel racing the answer, through promises: resolved with the answer or rejected with AbortError', async () => {
    // Local data is mostly answered inside resolve(), before any abort: the answer wins then.
    const context = local();
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const controller = new AbortController();
        const pending = context.resolve('goose.feathers', 1, 1, controller.signal);
        if (i % 3 === 0) controller.abort();
        else if (i % 3 === 1) setImmediate(() => controller.abort());
        return pending.then(
          (result) => ipv4(result).join(),
          (error: unknown) => (error instanceof AbortError ? 'aborted' : String(error)),
        );
      }),
    );
    expect(outcomes.filter((o) => o !== '127.0.0.2' && o !== 'aborted')).toEqual([]);
    expect(outcomes.filter((o, i) => i % 3 === 2 && o !== '127.0.0.2')).toEqual([]);
    expect(context.inFlight).toBe(0);
  });
});

describe('UnboundContext against a server (a relay holds queries on the wire)', () => {
  let nsd: NsdServer;
  let proxy: HoldProxy;
  beforeAll(async () => {
    nsd = await startNsd([
      {
        name: 'lab.test',
        text: [
          '$ORIGIN lab.test.',
          '$TTL 300',
          '@ IN SOA ns hm 1 7200 900 1209600 60',
          ' IN NS ns',
          'ns IN A 127.0.0.1',
          'one IN A 192.0.2.1',
          '',
        ].join('\n'),
      },
    ]);
  });
  afterAll(async () => {
    await nsd?.stop();
  });
  afterEach(async () => {
    await proxy?.close();
  });

  it('cancel racing answers from the server: each settles once, a cancelled one never calls back', async () => {
    const calls: number[] = [];
    const onResult = (token: number): void => {
      calls.push(token);
    };
    const native = new addon.Context(onResult);
    closing.push(native);
    const steps = planContext({
      hosts: false,
      resolvConf: false,
      trustAnchors: [],
      qnameMinimisation: false,
      localZones: [{ name: 'test', type: 'transparent' }],
      stubZones: [{ name: 'lab.test', addresses: [`127.0.0.1@${nsd.port}`] }],
      options: { 'do-not-query-localhost': 'no' },
    }).steps;
    for (const step of steps) step.apply(native as never);
    native.removeZone('dnscore-finalize-probe.invalid.');
    const cancelled = new Set<number>();
    const answered = new Set<number>();
    // Distinct names: each goes to nsd, whose answer comes back within a millisecond: cancel at
    // once, after a microtask, after a macrotask, after a timer, or never.
    for (let round = 0; round < 200; round++) {
      const token = round + 1;
      const id = native.resolve(`r${round}.lab.test`, 1, 1, token);
      expect(typeof id).toBe('number');
      const cancel = (): void => {
        if (native.cancel(id as number)) cancelled.add(token);
        else answered.add(token);
      };
      const when = round % 5;
      if (when === 0) cancel();
      else if (when === 1) queueMicrotask(cancel);
      else if (when === 2) setImmediate(cancel);
      else if (when === 3) setTimeout(cancel, 1);
      else answered.add(token);
    }
    while (native.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cancelled.size).toBeGreaterThan(0);
    expect(calls.filter((token) => cancelled.has(token))).toEqual([]);
    expect(new Set(calls).size).toBe(calls.length); // once each
    expect(calls.sort((a, b) => a - b)).toEqual([...answered].sort((a, b) => a - b));
    expect(cancelled.size + answered.size).toBe(200);
    expect(typeof onResult).toBe('function');
  });

  async function held(): Promise<UnboundContext> {
    proxy = await startHoldProxy(nsd);
    const context = createContext(addon, planContext(labOptions(proxy.server)).steps);
    closing.push(context);
    return context;
  }

  it('50 identical questions at once reach the server as one query (libunbound merges them)', async () => {
    const context = await held();
    const pending = Array.from({ length: 50 }, () => context.resolve('one.lab.test', 1, 1));
    await proxy.waitFor('one.lab.test');
    proxy.release();
    const results = await Promise.all(pending);
    expect(new Set(results.map((r) => ipv4(r).join()))).toEqual(new Set(['192.0.2.1']));
    expect(proxy.questions.filter((q) => q === 'one.lab.test 1')).toEqual(['one.lab.test 1']);
  });

  it('close() with questions in flight settles each with StateError; later questions are refused', async () => {
    const context = await held();
    const pending = Array.from({ length: 5 }, (_, i) => context.resolve(`q${i}.lab.test`, 1, 1));
    await proxy.waitFor('q0.lab.test');
    context.close();
    const outcomes = await Promise.allSettled(pending);
    expect(outcomes.map((o) => o.status === 'rejected' && o.reason instanceof StateError)).toEqual(Array(5).fill(true));
    expect(context.inFlight).toBe(0);
    await expect(context.resolve('one.lab.test', 1, 1)).rejects.toBeInstanceOf(StateError);
    context.close(); // idempotent
    proxy.release();
  });

  it('retire(): questions in flight are answered, then the context closes', async () => {
    const context = await held();
    const pending = context.resolve('one.lab.test', 1, 1);
    await proxy.waitFor('one.lab.test');
    context.retire();
    await expect(context.resolve('one.lab.test', 1, 1)).rejects.toBeInstanceOf(StateError);
    expect(context.closed).toBe(false);
    proxy.release();
    expect(ipv4(await pending)).toEqual(['192.0.2.1']);
    expect(context.closed).toBe(true);
  });
});

describe('validated questions in flight', () => {
  const held = rigBehindHoldProxy();

  it('six validated questions at once: the zone DNSKEY asked once (primed at construction), each secure', async () => {
    const { proxy } = held;
    const resolver = new UnboundResolver(held.options());
    closing.push(resolver);
    await proxy.waitFor('biloxi.test'); // the anchor's DNSKEY, primed at construction
    expect(proxy.questions).toEqual(['biloxi.test 48']);
    const names = BILOXI_QUESTIONS;
    const answers = await held.resolveAtOnce(resolver, names);
    expect(answers.map((a) => [a.rcode, a.secure, a.bogus])).toEqual(names.map(() => [0, true, false]));
    expect(proxy.questions.filter((q) => q === 'biloxi.test 48')).toEqual(['biloxi.test 48']);
  });
});
