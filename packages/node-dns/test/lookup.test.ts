/**
 * createLookup over the zone backend (and a scripted one for failures): every option of
 * dns.lookup, the callback, promise and promisify forms, undici's interceptor form, and the errors
 * node:dns gives, compared with node:dns itself where node:dns needs no DNS server.
 */
import dns from 'node:dns';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';
import { Rcode } from '@dnscore/core';
import { describe, expect, test } from 'vitest';
import { createLookup, type LookupCallback, type NodeDnsLookup } from '../src/index.js';
import { numericIPv4 } from '../src/numeric-ipv4.js';
import { scriptedCore } from './support/scripted-plugin.js';

type Outcome = { error: Record<string, unknown> | null; address?: unknown; family?: unknown };

/** Calls a lookup in callback form and gathers what the callback got. */
function call(lookup: (...args: never[]) => void, ...args: unknown[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const cb: LookupCallback = (error, address, family) =>
      resolve({
        error: error ? { ...error, message: error.message, ctor: error.constructor.name } : null,
        address,
        family,
      });
    (lookup as (...a: unknown[]) => void)(...args, cb);
  });
}

/** What an argument error looks like (thrown synchronously by both). */
function thrown(fn: () => unknown): { name: string; code: unknown } | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return { name: (error as Error).name, code: (error as { code?: unknown }).code };
  }
}

const hasIpv6 = Object.values(networkInterfaces()).some((list) =>
  (list ?? []).some((a) => !a.internal && a.family === 'IPv6' && !a.address.startsWith('fe80:')),
);

describe('createLookup', () => {
  const { core, plugin } = scriptedCore({
    'servfail.node.example': { rcode: Rcode.SERVFAIL },
    'dead.node.example': { silent: true },
    'signed.node.example': { secure: true },
    'bogus.node.example': { bogus: 'signature expired' },
  });
  const lookup = createLookup(core);
  // asks the core every time, so a test can count the questions
  const unmemoized = createLookup(core, { resultMemoEntries: 0 });

  test('one address by default, with its family; every address with all', async () => {
    expect(await call(lookup, 'v4.node.example')).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect(await call(lookup, 'v4.node.example', { all: true })).toEqual({
      error: null,
      address: [
        { address: '127.0.0.1', family: 4 },
        { address: '127.0.0.2', family: 4 },
      ],
      family: undefined,
    });
    expect(await call(lookup, 'v6.node.example', 6)).toEqual({ error: null, address: '::1', family: 6 });
  });

  test('family 4, 6, IPv4, IPv6 ask one family; 0 asks both', async () => {
    const asked = (from: number) => plugin.asked.slice(from);
    let from = plugin.asked.length;
    expect((await call(unmemoized, 'both.node.example', { family: 4, all: true })).address).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(asked(from)).toEqual(['both.node.example A']);
    from = plugin.asked.length;
    expect((await call(unmemoized, 'both.node.example', { family: 'IPv6', all: true })).address).toEqual([
      { address: '::1', family: 6 },
    ]);
    expect(asked(from)).toEqual(['both.node.example AAAA']);
    expect((await call(lookup, 'both.node.example', { family: 'IPv4' })).address).toBe('127.0.0.1');
    from = plugin.asked.length;
    await call(unmemoized, 'both.node.example', { family: 0, all: true });
    expect(asked(from).sort()).toEqual(['both.node.example A', 'both.node.example AAAA']);
  });

  test('order and verbatim put the families in the order node:dns does', async () => {
    const v4 = { address: '127.0.0.1', family: 4 };
    const v6 = { address: '::1', family: 6 };
    const all = (options: object) => call(lookup, 'both.node.example', { all: true, ...options });
    expect((await all({ order: 'ipv4first' })).address).toEqual([v4, v6]);
    expect((await all({ order: 'ipv6first' })).address).toEqual([v6, v4]);
    expect((await all({ verbatim: false })).address).toEqual([v4, v6]);
    // order wins over verbatim, as in node:dns
    expect((await all({ verbatim: false, order: 'ipv6first' })).address).toEqual([v6, v4]);
    // verbatim: what getaddrinfo's RFC 6724 sort gives, IPv6 first when this host has IPv6
    expect((await all({ order: 'verbatim' })).address).toEqual(hasIpv6 ? [v6, v4] : [v4, v6]);
    expect((await call(lookup, 'both.node.example', { order: 'ipv6first' })).address).toBe('::1');
  });

  test('V4MAPPED maps IPv4 addresses when IPv6 has none; with ALL it adds them', async () => {
    const { V4MAPPED, ALL } = dns;
    expect(await call(lookup, 'v4.node.example', { family: 6, hints: V4MAPPED, all: true })).toMatchObject({
      address: [
        { address: '::ffff:127.0.0.1', family: 6 },
        { address: '::ffff:127.0.0.2', family: 6 },
      ],
    });
    expect(await call(lookup, 'both.node.example', { family: 6, hints: V4MAPPED, all: true })).toMatchObject({
      address: [{ address: '::1', family: 6 }],
    });
    expect(await call(lookup, 'both.node.example', { family: 6, hints: V4MAPPED | ALL, all: true })).toMatchObject({
      address: [
        { address: '::1', family: 6 },
        { address: '::ffff:127.0.0.1', family: 6 },
      ],
    });
    // without V4MAPPED, an IPv4-only name has no IPv6 address
    expect((await call(lookup, 'v4.node.example', { family: 6 })).error).toMatchObject({ code: 'ENOTFOUND' });
  });

  test('ADDRCONFIG asks only the families this host has an address of', async () => {
    const from = plugin.asked.length;
    const { address } = await call(unmemoized, 'both.node.example', {
      hints: dns.ADDRCONFIG,
      all: true,
      order: 'ipv4first',
    });
    const hasIpv4 = Object.values(networkInterfaces()).some((l) =>
      (l ?? []).some((a) => !a.internal && a.family === 'IPv4'),
    );
    const expected = [
      ...(hasIpv4 || !hasIpv6 ? [{ address: '127.0.0.1', family: 4 }] : []),
      ...(hasIpv6 || !hasIpv4 ? [{ address: '::1', family: 6 }] : []),
    ];
    expect(address).toEqual(expected);
    expect(plugin.asked.length - from).toBe(expected.length);
  });

  test('a CNAME leads to its target addresses', async () => {
    expect(await call(lookup, 'alias.node.example', { family: 4 })).toEqual({
      error: null,
      address: '127.0.0.1',
      family: 4,
    });
  });

  test('IP literals, the empty name and argument errors: exactly what node:dns does', async () => {
    for (const args of [
      ['127.0.0.9'],
      ['::1', { family: 4 }],
      ['fe80::1%lo', { all: true }],
      ['192.0.2.1', 6],
      ['', { all: true }],
      ['', { family: 6 }],
      [''],
    ]) {
      expect(await call(lookup, ...args), JSON.stringify(args)).toEqual(await call(dns.lookup as never, ...args));
    }
    for (const args of [
      [5],
      [{}],
      ['x.example', { family: 5 }],
      ['x.example', 7],
      ['x.example', { family: 'ipv4' }],
      ['x.example', { hints: 99999 }],
      ['x.example', { hints: '1' }],
      ['x.example', { all: 'yes' }],
      ['x.example', { verbatim: 1 }],
      ['x.example', { order: 'random' }],
      ['x.example', 'options'],
    ]) {
      const ours = thrown(() => (lookup as (...a: unknown[]) => void)(...args, () => {}));
      expect(ours, JSON.stringify(args)).toBeDefined();
      expect(ours, JSON.stringify(args)).toEqual(
        thrown(() => (dns.lookup as (...a: unknown[]) => void)(...args, () => {})),
      );
    }
    // no callback
    expect(thrown(() => (lookup as (...a: unknown[]) => void)('x.example', {}))).toEqual(
      thrown(() => (dns.lookup as (...a: unknown[]) => void)('x.example', {})),
    );
  });

  test("the numeric IPv4 forms getaddrinfo takes ('127.1', '0x7f000001') are addresses, never asked", async () => {
    const numeric: [string, string][] = [
      ['127.1', '127.0.0.1'],
      ['2130706433', '127.0.0.1'],
      ['0x7f000001', '127.0.0.1'],
      ['017700000001', '127.0.0.1'],
      ['127.0.0.01', '127.0.0.1'],
      ['1.0x10.0377.4', '1.16.255.4'],
      ['1.2.65535', '1.2.255.255'],
      ['1.16777215', '1.255.255.255'],
      ['0', '0.0.0.0'],
      ['00', '0.0.0.0'],
    ];
    const notNumeric = ['127.0.0.1.', '1.2.3.4.5', '4294967296', '0x100000000', '08.1.1.1', '1.256.1.1', '1.2.65536'];
    const asked = plugin.asked.length;
    for (const [name, address] of numeric) {
      expect(numericIPv4(name), name).toBe(address);
      expect(await call(unmemoized, name), name).toEqual({ error: null, address, family: 4 });
    }
    for (const name of [...notNumeric, '0x', '.1.2.3', '1..2', '127.1 ', 'cafe'])
      expect(numericIPv4(name), name).toBe(undefined);
    expect(plugin.asked.length).toBe(asked);
    expect(await call(lookup, '127.1', { all: true })).toEqual({
      error: null,
      address: [{ address: '127.0.0.1', family: 4 }],
      family: undefined,
    });
    expect(await call(lookup, '127.1', { family: 6, hints: dns.V4MAPPED })).toEqual({
      error: null,
      address: '::ffff:127.0.0.1',
      family: 6,
    });
    expect((await call(lookup, '127.1', { family: 6 })).error).toMatchObject({
      code: 'EAI_ADDRFAMILY',
      errno: -3000,
      syscall: 'getaddrinfo',
      hostname: '127.1',
      message: 'getaddrinfo EAI_ADDRFAMILY 127.1',
    });
    expect(await lookup.promise('0x7f000001')).toEqual({ address: '127.0.0.1', family: 4 });
    // Not numeric: asked as a name.
    await call(unmemoized, '1.256.1.1');
    expect(plugin.asked.slice(asked)).toEqual(['1.256.1.1 A', '1.256.1.1 AAAA']);
  });

  test('localhost and names under it are loopback, never asked', async () => {
    const from = plugin.asked.length;
    expect(await call(lookup, 'localhost')).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect(await call(lookup, 'app.localhost.', { all: true })).toMatchObject({
      address: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect(await call(lookup, 'LOCALHOST', 6)).toEqual({ error: null, address: '::1', family: 6 });
    expect(plugin.asked.length).toBe(from);
  });

  test('no address is ENOTFOUND with errno, syscall and hostname; never an empty list', async () => {
    const expected = { errno: -3008, code: 'ENOTFOUND', syscall: 'getaddrinfo', ctor: 'NodeDnsError' };
    for (const [name, options] of [
      ['nx.node.example', {}],
      ['nx.node.example', { all: true }],
      ['text.node.example', { all: true }], // NODATA for A and AAAA
      ['v6.node.example', { family: 4 }],
      ['bad..name', {}],
    ] as const) {
      const { error, address } = await call(lookup, name, options);
      expect(error, name).toEqual({ ...expected, hostname: name, message: `getaddrinfo ENOTFOUND ${name}` });
      expect(address).toBeNull();
    }
  });

  test('SERVFAIL is EAI_AGAIN; the result behind it is on the error', async () => {
    const { error } = await call(lookup, 'servfail.node.example', { family: 4 });
    expect(error).toMatchObject({
      errno: -3001,
      code: 'EAI_AGAIN',
      syscall: 'getaddrinfo',
      hostname: 'servfail.node.example',
    });
    const rejected = await lookup.promise('servfail.node.example', 4).catch((e: unknown) => e);
    expect((rejected as { result: { rcode: number } }).result.rcode).toBe(Rcode.SERVFAIL);
  });

  test('the per-call timeout ends a call no server answers with EAI_AGAIN, the cause a TimeoutError', async () => {
    const timed = createLookup(core, { timeoutMs: 50 });
    const error = await timed.promise('dead.node.example').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'EAI_AGAIN',
      errno: -3001,
      syscall: 'getaddrinfo',
      hostname: 'dead.node.example',
    });
    expect((error as Error).cause).toMatchObject({ code: 'ABORT_ERR' });
    expect(((error as Error).cause as Error).cause).toMatchObject({ code: 'DNS_ERR_TIMEOUT' });
  });

  test("a call's own timeout option wins over the lookup's; it is checked like the lookup's", async () => {
    const patient = createLookup(core, { timeoutMs: 60_000 });
    // the lookup's minute is past the test's time limit: only the call's 50 ms can end it in time
    const error = await patient.promise('dead.node.example', { timeout: 50 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EAI_AGAIN', syscall: 'getaddrinfo', hostname: 'dead.node.example' });
    expect(((error as Error).cause as Error).cause).toMatchObject({ code: 'DNS_ERR_TIMEOUT' });
    // without a timeout of the lookup, the call's own still applies
    expect((await call(lookup, 'dead.node.example', { timeout: 20 })).error).toMatchObject({ code: 'EAI_AGAIN' });
    // an answer at hand needs no timer
    expect((await call(lookup, 'v4.node.example', { timeout: 1 })).address).toBe('127.0.0.1');
    for (const [timeout, code] of [
      [0, 'ERR_INVALID_ARG_VALUE'],
      [1.5, 'ERR_INVALID_ARG_VALUE'],
      [2 ** 31, 'ERR_INVALID_ARG_VALUE'],
      ['100', 'ERR_INVALID_ARG_TYPE'],
    ] as const) {
      expect(thrown(() => lookup('v4.node.example', { timeout } as never, () => {}))).toEqual({
        name: 'TypeError',
        code,
      });
    }
  });

  test('a signal cancels: ECANCELLED at once, already aborted or later', async () => {
    const controller = new AbortController();
    const pending = call(lookup, 'dead.node.example', { signal: controller.signal });
    controller.abort();
    expect((await pending).error).toMatchObject({
      code: 'ECANCELLED',
      syscall: 'getaddrinfo',
      hostname: 'dead.node.example',
    });
    expect((await call(lookup, 'v4.node.example', { signal: AbortSignal.abort() })).error).toMatchObject({
      code: 'ECANCELLED',
    });
  });

  test('a bogus answer is never used, whatever the options: EBOGUS with the reason', async () => {
    // the zone holds an address for the name: only the DNSSEC status stops it
    expect(await call(createLookup(scriptedCore().core), 'bogus.node.example', { family: 4 })).toEqual({
      error: null,
      address: '127.0.0.6',
      family: 4,
    });
    for (const l of [lookup, createLookup(core, { requireSecure: true })]) {
      const { error } = await call(l, 'bogus.node.example', { family: 4 });
      expect(error).toMatchObject({ code: 'EBOGUS', syscall: 'getaddrinfo', hostname: 'bogus.node.example' });
      expect(error!.message).toBe(
        'getaddrinfo EBOGUS bogus.node.example: DNSSEC validation failed (signature expired)',
      );
    }
  });

  test('requireSecure gives only DNSSEC-secure addresses, else EINSECURE', async () => {
    const secureOnly = createLookup(core, { requireSecure: true });
    expect(await call(secureOnly, 'signed.node.example', { all: true, order: 'ipv4first' })).toEqual({
      error: null,
      address: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
      family: undefined,
    });
    expect(await call(secureOnly, 'v4.node.example')).toMatchObject({
      error: { code: 'EINSECURE', syscall: 'getaddrinfo', hostname: 'v4.node.example' },
    });
    expect(await call(secureOnly, 'nx.node.example')).toMatchObject({ error: { code: 'ENOTFOUND' } });
  });

  test('promise and promisify forms give what dns.promises.lookup gives', async () => {
    expect(await lookup.promise('v4.node.example')).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await lookup.promise('both.node.example', { all: true, order: 'ipv4first' })).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    // util.promisify reads the custom form, as it does for dns.lookup
    const promisified = promisify(lookup) as unknown as (hostname: string) => Promise<unknown>;
    expect(await promisified('v6.node.example')).toEqual({ address: '::1', family: 6 });
    expect(await lookup.promise('127.0.0.1')).toEqual(await dns.promises.lookup('127.0.0.1'));
    expect(await lookup.addresses('both.node.example', { order: 'ipv4first' })).toEqual([
      { address: '127.0.0.1', family: 4, ttl: 300 },
      { address: '::1', family: 6, ttl: 120 },
    ]);
    await expect(lookup.promise('nx.node.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  test("undici's interceptor form: an origin URL in, every address with its TTL in ms out", async () => {
    const viaOrigin = (origin: URL, options: object) =>
      new Promise<unknown>((resolve) =>
        (lookup as NodeDnsLookup)(origin, options, (error, addresses) => resolve(error ?? addresses)),
      );
    expect(await viaOrigin(new URL('http://both.node.example:8080/x'), { dualStack: true, affinity: null })).toEqual([
      { address: '127.0.0.1', family: 4, ttl: 300_000 },
      { address: '::1', family: 6, ttl: 120_000 },
    ]);
    expect(await viaOrigin(new URL('https://both.node.example/'), { dualStack: false, affinity: 6 })).toEqual([
      { address: '::1', family: 6, ttl: 120_000 },
    ]);
    expect(await viaOrigin(new URL('http://[::1]:80/'), {})).toEqual([{ address: '::1', family: 6, ttl: 0 }]);
    expect(await viaOrigin(new URL('http://nx.node.example/'), {})).toMatchObject({ code: 'ENOTFOUND' });
  });

  test('answers are kept for their TTL: a warm call asks nothing and answers at once; TTLs age', async () => {
    let now = 1_000_000;
    const clock = { now: () => now };
    const { core: fresh, plugin: counted } = scriptedCore({ 'servfail.node.example': { rcode: Rcode.SERVFAIL } });
    const memoized = createLookup(fresh, { clock });
    expect(await memoized.addresses('both.node.example', { order: 'ipv4first' })).toEqual([
      { address: '127.0.0.1', family: 4, ttl: 300 },
      { address: '::1', family: 6, ttl: 120 },
    ]);
    const asked = counted.asked.length;
    now += 30_500;
    expect(await memoized.addresses('BOTH.node.example', { order: 'ipv4first' })).toEqual([
      { address: '127.0.0.1', family: 4, ttl: 270 },
      { address: '::1', family: 6, ttl: 90 },
    ]);
    // the callback still comes on a later tick
    let sync = true;
    const later = new Promise((resolve) => {
      memoized('both.node.example', { family: 4 }, (_e, address) => resolve(sync ? 'at once' : address));
      sync = false;
    });
    expect(await later).toBe('127.0.0.1');
    expect(counted.asked.length).toBe(asked);
    // past the lowest TTL (AAAA, 120 s) that answer is asked again, the A answer is not
    now += 90_000;
    await memoized.addresses('both.node.example');
    expect(counted.asked.slice(asked)).toEqual(['both.node.example AAAA']);
    // NXDOMAIN is kept for its negative TTL (the SOA's 60 s); SERVFAIL is never kept
    await call(memoized, 'nx.node.example', 4);
    await call(memoized, 'nx.node.example', 4);
    await call(memoized, 'servfail.node.example', 4);
    await call(memoized, 'servfail.node.example', 4);
    expect(counted.asked.slice(asked + 1)).toEqual([
      'nx.node.example A',
      'servfail.node.example A',
      'servfail.node.example A',
    ]);
    now += 61_000;
    expect((await call(memoized, 'nx.node.example', 4)).error).toMatchObject({ code: 'ENOTFOUND' });
    expect(counted.asked.at(-1)).toBe('nx.node.example A');
    expect(counted.asked.length).toBe(asked + 5);
  });

  test('every call gets arrays and objects of its own: changing one changes no later answer', async () => {
    const memoized = createLookup(scriptedCore().core);
    const first = (await call(memoized, 'both.node.example', { all: true, order: 'ipv4first' })).address as {
      address: string;
      family: number;
    }[];
    first[0]!.address = '192.0.2.1';
    first.push({ address: '192.0.2.2', family: 4 });
    const withTtls = await memoized.addresses('both.node.example', { order: 'ipv6first' });
    (withTtls[0] as { ttl: number }).ttl = 1;
    withTtls.length = 0;
    const localhost = (await call(memoized, 'localhost', { all: true })).address as { address: string }[];
    localhost[0]!.address = '192.0.2.3';
    expect((await call(memoized, 'both.node.example', { all: true, order: 'ipv4first' })).address).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(await memoized.addresses('both.node.example', { order: 'ipv6first' })).toEqual([
      { address: '::1', family: 6, ttl: 120 },
      { address: '127.0.0.1', family: 4, ttl: 300 },
    ]);
    expect((await call(memoized, 'localhost', { all: true })).address).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect((await call(memoized, 'v4.node.example', 4)).address).toBe('127.0.0.1');
  });

  test('bad options of createLookup are refused', () => {
    expect(thrown(() => createLookup(core, { timeoutMs: 0 }))).toEqual({
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_VALUE',
    });
    expect(thrown(() => createLookup(core, { requireSecure: 'yes' as never }))).toEqual({
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_TYPE',
    });
    expect(thrown(() => createLookup({} as never))).toEqual({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    expect(thrown(() => createLookup(core, { resultMemoEntries: -1 }))).toEqual({
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_VALUE',
    });
  });
});
