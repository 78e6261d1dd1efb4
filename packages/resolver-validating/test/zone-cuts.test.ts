/**
 * The bound on signed zone cuts below a trust anchor (maxZoneCuts, default 32): a hostile
 * upstream whose every name is a properly signed zone cut (test/support/deep-cuts.ts) makes the
 * chain of trust walk cut after cut. Up to the bound the answer validates; beyond it the
 * question ends with ZoneCutLimitError (definite: no unvalidated backend answers instead), and
 * the cut beyond the bound costs its DS question only: no DNSKEY question, no signature check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore, makeQuery } from '@dnscore/core';
import { DEFAULT_MAX_ZONE_CUTS, ValidatingOptionError, ValidatingResolver, ZoneCutLimitError } from '../src/index.js';
import { deepName, startDeepCuts, type DeepCutsServer } from './support/deep-cuts.js';

const DS = 43;
const DNSKEY = 48;

let server: DeepCutsServer;
const open: { close(): unknown }[] = [];

beforeAll(async () => {
  server = await startDeepCuts();
});
afterAll(async () => {
  for (const item of open) await item.close();
  await server?.close();
});

function validating(options: { maxZoneCuts?: number } = {}): ValidatingResolver {
  const resolver = new ValidatingResolver(
    { nameservers: [server.endpoint], resolvConf: '/nonexistent/resolv.conf' },
    { trustAnchors: [server.anchor], timeoutMs: 2000, attempts: 1, probe: false, ...options },
  );
  open.push(resolver);
  return resolver;
}

/** The DS and DNSKEY questions the server got during `work`. */
async function chainQuestions(work: () => Promise<unknown>): Promise<{ ds: number; dnskey: number }> {
  const before = { ds: server.asked.get(DS) ?? 0, dnskey: server.asked.get(DNSKEY) ?? 0 };
  await work();
  return { ds: (server.asked.get(DS) ?? 0) - before.ds, dnskey: (server.asked.get(DNSKEY) ?? 0) - before.dnskey };
}

const ask = (resolver: ValidatingResolver, name: string) =>
  resolver.resolve(makeQuery(name, 'A'), new AbortController().signal);

describe('signed zone cuts below a trust anchor', () => {
  it('the default bound is 32', () => {
    expect(DEFAULT_MAX_ZONE_CUTS).toBe(32);
  });

  it('32 cuts deep validates: every DS and DNSKEY of the chain asked once', async () => {
    const resolver = validating();
    let answer: Awaited<ReturnType<typeof ask>> | undefined;
    // The anchor's DNSKEY, then a DS and a DNSKEY per cut.
    expect(await chainQuestions(async () => (answer = await ask(resolver, deepName(32))))).toEqual({
      ds: 32,
      dnskey: 33,
    });
    expect([answer!.rcode, answer!.secure, answer!.bogus]).toEqual([0, true, false]);
  });

  it('33 cuts deep ends with ZoneCutLimitError, definite, after the 33rd DS and no DNSKEY of it', async () => {
    const resolver = validating();
    let error: unknown;
    const asked = await chainQuestions(async () => {
      error = await ask(resolver, deepName(33)).catch((e: unknown) => e);
    });
    expect(error).toBeInstanceOf(ZoneCutLimitError);
    const limit = error as ZoneCutLimitError;
    expect([limit.code, limit.definite, limit.zone, limit.anchor, limit.limit]).toEqual([
      'DNS_ERR_ZONE_CUT_LIMIT',
      true,
      `${deepName(33)}.`,
      'deep.example.',
      32,
    ]);
    expect(limit.message).toBe(
      `the chain of trust to ${deepName(33)}. has more than 32 signed zone cuts below the trust anchor ` +
        'deep.example. (maxZoneCuts): a tree that deep is hostile or broken, so it is not followed',
    );
    expect(asked).toEqual({ ds: 33, dnskey: 33 });
  });

  it('any deeper name fails the same way, and a core does not ask another backend', async () => {
    const core = new DnsCore([validating()]);
    open.push(core);
    await expect(core.resolve(deepName(60), 'A')).rejects.toBeInstanceOf(ZoneCutLimitError);
    // Asked again: the same error, the chain above the bound taken from the kept verdicts, and
    // nothing beyond the bound asked ahead.
    const again = await chainQuestions(() => expect(core.resolve(deepName(40), 'A')).rejects.toThrow(/more than 32/));
    expect(again).toEqual({ ds: 0, dnskey: 0 });
  });

  it('maxZoneCuts sets the bound: 4 cuts validate, 5 do not', async () => {
    const resolver = validating({ maxZoneCuts: 4 });
    expect((await ask(resolver, deepName(4))).secure).toBe(true);
    await expect(ask(resolver, deepName(5))).rejects.toThrow(
      `the chain of trust to ${deepName(5)}. has more than 4 signed zone cuts`,
    );
  });

  it('refuses a bound outside 1..126', () => {
    for (const maxZoneCuts of [0, 127, 1.5]) {
      expect(() => validating({ maxZoneCuts })).toThrow(ValidatingOptionError);
    }
  });
});
