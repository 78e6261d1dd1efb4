/**
 * ready(): resolves once every libunbound context of the resolver has made its worker, rejects
 * with StateError on close, waits for the new contexts across a reload, resolves at once
 * without the addon; questions asked before it are answered all the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DnsCore } from '@dnscore/core';
import { StateError } from '@dnscore/core/plugin';
import { loadUnboundBinding } from '../src/binding.js';
import type { UnboundOptions } from '../src/options.js';
import { UnboundResolver, contextsOf, resolverOnBinding } from '../src/unbound-resolver.js';
import { requiredAddon } from './support/addon.js';
import { LOCAL_DATA as LOCAL } from './support/local-data.js';

const closing: UnboundResolver[] = [];
afterEach(() => {
  for (const resolver of closing.splice(0)) resolver.close();
});

function resolver(extra: UnboundOptions = {}): UnboundResolver {
  const made = new UnboundResolver({ ...LOCAL, ...extra });
  closing.push(made);
  return made;
}

describe('ready()', () => {
  it('resolves for one context and for two, and each context is ready then', async () => {
    for (const threads of [1, 2]) {
      const made = resolver({ threads });
      await expect(made.ready()).resolves.toBeUndefined();
      expect(contextsOf(made)).toHaveLength(threads);
      for (const context of contextsOf(made)) await expect(context.ready()).resolves.toBeUndefined();
    }
  });

  it('questions asked before it are answered, with their own records', async () => {
    const made = resolver({ threads: 2 });
    const dns = new DnsCore([made]);
    const asked = Promise.all([dns.resolve('goose.feathers', 'A'), dns.resolve('duck.feathers', 'A')]);
    await made.ready();
    const [goose, duck] = await asked;
    expect(goose.records.map((r) => r.data)).toEqual(['127.0.0.2']);
    expect(duck.records.map((r) => r.data)).toEqual(['127.0.0.4']);
    await dns.close();
  });

  it('rejects with StateError when the resolver is closed before it settles, and after close()', async () => {
    const made = resolver({ threads: 2 });
    const waiting = made.ready();
    made.close();
    await expect(waiting).rejects.toBeInstanceOf(StateError);
    await expect(made.ready()).rejects.toThrow('ready() after close()');
  });

  it("a closed context's ready() rejects", async () => {
    const made = resolver();
    const [context] = contextsOf(made);
    context!.close();
    await expect(context!.ready()).rejects.toThrow('the libunbound context was closed before it was ready');
  });

  it('a reload meanwhile: it waits for the new contexts and resolves', async () => {
    const made = resolver();
    const waiting = made.ready();
    made.reload({ ...LOCAL, threads: 2 });
    const fresh = contextsOf(made);
    await expect(waiting).resolves.toBeUndefined();
    expect(contextsOf(made)).toBe(fresh);
    for (const context of fresh) await expect(context.ready()).resolves.toBeUndefined();
  });

  it("the addon's workerMade: false until warm() starts the thread, then true once the worker is made", async () => {
    const native = new (requiredAddon().Context)(() => {});
    try {
      native.setOption('do-not-query-localhost:', 'no');
      native.removeZone('nonexistent.invalid'); // finalizes, as createContext does
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(native.workerMade).toBe(false);
      native.warm();
      for (let i = 0; i < 500 && !native.workerMade; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(native.workerMade).toBe(true);
    } finally {
      native.close();
    }
  });

  it('without the addon it resolves at once (nothing to make)', async () => {
    const binding = loadUnboundBinding('/nonexistent/dir');
    const made = resolverOnBinding(binding, LOCAL);
    closing.push(made);
    expect(made.available().available).toBe(false);
    await expect(made.ready()).resolves.toBeUndefined();
  });
});
