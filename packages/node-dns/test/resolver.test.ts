/**
 * NodeDnsPromiseResolver and NodeDnsResolver over the zone backend and scripted failures: what
 * node:dns cannot show against nsd (DNSSEC status, bogus answers, backend errors), the reverse
 * names, and the options.
 */
import dns from 'node:dns';
import {
  DnsCore,
  NetworkError,
  NoResolverError,
  Rcode,
  StateError,
  ZoneResolver,
  type DnsApi,
  type DnsResult,
  type ResolveOptions,
} from '@dnscore/core';
import { describe, expect, test } from 'vitest';
import { NodeDnsPromiseResolver, NodeDnsResolver, createLookup, reverseName } from '../src/index.js';
import { scriptedCore } from './support/scripted-plugin.js';

function coreThatThrows(error: Error): DnsCore {
  return new DnsCore([
    {
      name: 'failing',
      priority: 0,
      available: () => ({ available: true }),
      resolve: () => Promise.reject(error),
      close: () => {},
    },
  ]);
}

describe('NodeDnsPromiseResolver', () => {
  const { core } = scriptedCore({
    'bogus.node.example': { bogus: 'no DNSKEY matches the RRSIG' },
    'signed.node.example': { secure: true },
    'servfail.node.example': { rcode: Rcode.SERVFAIL },
  });
  const resolver = new NodeDnsPromiseResolver(core);

  test('a bogus answer is ESERVFAIL, as a validating server says; the reason is on err.result', async () => {
    const error = await resolver.resolve4('bogus.node.example').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ESERVFAIL', syscall: 'queryA', hostname: 'bogus.node.example' });
    expect((error as { result: { bogus: boolean; whyBogus: string } }).result).toMatchObject({
      bogus: true,
      whyBogus: 'no DNSKEY matches the RRSIG',
    });
  });

  test('resolveDetailed says secure for a validated answer, without changing the records', async () => {
    const detailed = await resolver.resolveDetailed('signed.node.example', 'A');
    expect(detailed.records).toEqual(['127.0.0.1']);
    expect(detailed.result.secure).toBe(true);
    expect((await resolver.resolveDetailed('v4.node.example', 'A')).result.secure).toBe(false);
  });

  test('each backend failure has its node:dns code', async () => {
    const cases: [Error, string][] = [
      [new NetworkError('socket closed'), 'ECONNREFUSED'],
      [new NoResolverError('none available'), 'ECONNREFUSED'],
      [new StateError('closed'), 'EDESTRUCTION'],
    ];
    for (const [error, code] of cases) {
      const failing = new NodeDnsPromiseResolver(coreThatThrows(error));
      const rejected = await failing.resolveMx('x.node.example').catch((e: unknown) => e);
      expect(rejected).toMatchObject({
        code,
        syscall: 'queryMx',
        hostname: 'x.node.example',
        message: `queryMx ${code} x.node.example`,
      });
      expect((rejected as Error).cause).toBe(error);
    }
    expect(await resolver.resolveNaptr('servfail.node.example').catch((e: unknown) => e)).toMatchObject({
      code: 'ESERVFAIL',
      syscall: 'queryNaptr',
    });
  });

  test('a name the core refuses is EBADNAME', async () => {
    await expect(resolver.resolveTxt(`${'a'.repeat(64)}.node.example`)).rejects.toMatchObject({ code: 'EBADNAME' });
  });

  test('reverse asks the PTR name of IPv4 and IPv6 addresses', async () => {
    expect(await resolver.reverse('127.0.0.2')).toEqual(['v4.node.example', 'two.node.example']);
    expect(reverseName('192.0.2.1')).toBe('1.2.0.192.in-addr.arpa');
    expect(reverseName('2001:db8::1')).toBe('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
    expect(reverseName('::ffff:192.0.2.1')).toBe(
      '1.0.2.0.0.0.0.c.f.f.f.f.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa',
    );
    expect(reverseName('::')).toBe(`${'0.'.repeat(32)}ip6.arpa`);
    expect(reverseName('fe80::1%eth0')).toBeUndefined();
    expect(reverseName('example')).toBeUndefined();
    await expect(resolver.reverse('192.0.2.300')).rejects.toMatchObject({
      code: 'EINVAL',
      syscall: 'getHostByAddr',
      errno: -22,
    });
    await expect(resolver.reverse('127.0.0.9')).rejects.toMatchObject({ code: 'ENOTFOUND', syscall: 'getHostByAddr' });
  });

  test('a CAA record that does not parse is left out; none left is ENODATA', async () => {
    const zone = new ZoneResolver({
      zones: [
        {
          text: [
            '$ORIGIN caa.example.',
            '@ 300 IN SOA ns hostmaster 1 3600 600 86400 60',
            'bad 300 IN TYPE257 \\# 3 000500', // tag length 5, no tag
            'mixed 300 IN TYPE257 \\# 3 000500',
            'mixed 300 IN TYPE257 \\# 12 0005697373756578 2e6f7267',
          ].join('\n'),
        },
      ],
    });
    const caa = new NodeDnsPromiseResolver(new DnsCore([zone]));
    await expect(caa.resolveCaa('bad.caa.example')).rejects.toMatchObject({ code: 'ENODATA', syscall: 'queryCaa' });
    expect(await caa.resolveCaa('mixed.caa.example')).toEqual([{ critical: 0, issue: 'x.org' }]);
  });

  test('options are checked', () => {
    expect(() => new NodeDnsPromiseResolver(core, { timeout: -2 })).toThrow(
      expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' }),
    );
    expect(() => new NodeDnsPromiseResolver(core, { timeout: 1.5 })).toThrow(RangeError);
    expect(() => new NodeDnsPromiseResolver(core, { timeout: '5' as never })).toThrow(TypeError);
    expect(() => new NodeDnsPromiseResolver(core, { servers: ['nowhere'] })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_IP_ADDRESS' }),
    );
    expect(() => new NodeDnsPromiseResolver(core, { useServers: 5 as never })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
    expect(() => new NodeDnsPromiseResolver(undefined as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
  });

  test('setLocalAddress checks its arguments as node:dns does, then is refused: backends pick their sockets', () => {
    const outcome = (r: { setLocalAddress(...a: never[]): void }, args: unknown[]): string => {
      try {
        r.setLocalAddress(...(args as never[]));
        return 'accepted';
      } catch (error) {
        return `${(error as { code: string }).code} ${(error as Error).message}`;
      }
    };
    const node = new dns.promises.Resolver();
    for (const args of [[5], ['x'], ['127.0.0.1', 5], ['127.0.0.1', 'x'], ['127.0.0.1', '127.0.0.2'], ['::1', '::2']])
      expect(outcome(resolver, args), JSON.stringify(args)).toBe(outcome(node, args));
    for (const args of [['127.0.0.1'], ['::1'], ['127.0.0.1', '::1'], ['::1', '127.0.0.1']]) {
      expect(outcome(node, args)).toBe('accepted');
      expect(outcome(resolver, args)).toBe(
        'ERR_METHOD_NOT_IMPLEMENTED setLocalAddress() is not supported: ' +
          'the backends of the core given open their own sockets',
      );
      expect(outcome(new NodeDnsResolver(core), args)).toBe(outcome(resolver, args));
    }
  });

  test('resolve4 and resolve6 read options.ttl as node:dns does: any truthy value, the options unchecked', async () => {
    const withTtl = [
      { address: '127.0.0.1', ttl: 300 },
      { address: '127.0.0.2', ttl: 300 },
    ];
    expect(await resolver.resolve4('v4.node.example', { ttl: 'yes' as never })).toEqual(withTtl);
    expect(await resolver.resolve4('v4.node.example', { ttl: 1 as never })).toEqual(withTtl);
    expect(await resolver.resolve4('v4.node.example', { ttl: 0 as never })).toEqual(['127.0.0.1', '127.0.0.2']);
    expect(await resolver.resolve4('v4.node.example', 5 as never)).toEqual(['127.0.0.1', '127.0.0.2']);
    expect(await resolver.resolve4('v4.node.example', null as never)).toEqual(['127.0.0.1', '127.0.0.2']);
  });
});

describe('NodeDnsPromiseResolver and lookup over a DnsApi with and without resolveWith', () => {
  /** The scripted core, seen through a wrapper that counts which door each question took. */
  function counted(withPick: boolean) {
    const { core } = scriptedCore({ 'bogus.node.example': { bogus: 'no DNSKEY matches the RRSIG' } });
    const doors: string[] = [];
    const api: DnsApi = {
      resolve: (name: string, type?: number | string, options?: ResolveOptions) => {
        doors.push('resolve');
        return core.resolve(name, type, options);
      },
      ...(withPick
        ? {
            resolveWith: <V>(
              name: string,
              type: number | string,
              pick: (r: DnsResult) => V,
              options?: ResolveOptions,
            ) => {
              doors.push('resolveWith');
              return core.resolveWith(name, type, pick, options);
            },
          }
        : {}),
    };
    return { api, doors };
  }

  test('the same records and errors either way; the pick goes through resolveWith when the core has it', async () => {
    for (const withPick of [true, false]) {
      const { api, doors } = counted(withPick);
      const resolver = new NodeDnsPromiseResolver(api);
      expect(await resolver.resolve4('v4.node.example')).toEqual(['127.0.0.1', '127.0.0.2']);
      expect(await resolver.resolve4('v4.node.example', { ttl: true })).toEqual([
        { address: '127.0.0.1', ttl: 300 },
        { address: '127.0.0.2', ttl: 300 },
      ]);
      expect((await resolver.resolveDetailed('v4.node.example', 'A')).result.records).toHaveLength(2);
      const error = await resolver.resolve4('bogus.node.example').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'ESERVFAIL', result: { bogus: true } });
      const missing = await resolver.resolve('nothing.node.example', 'A').catch((e: unknown) => e);
      expect(missing).toMatchObject({ code: 'ENOTFOUND', syscall: 'queryA' });
      const lookup = createLookup(api);
      const found = await new Promise((resolve, reject) =>
        lookup('v4.node.example', { family: 4 }, (err, address) => (err ? reject(err) : resolve(address))),
      );
      expect(found).toBe('127.0.0.1');
      expect(new Set(doors)).toEqual(new Set([withPick ? 'resolveWith' : 'resolve']));
    }
  });
});

describe('NodeDnsResolver (callback form)', () => {
  const resolver = new NodeDnsResolver(scriptedCore().core);

  test('records and errors arrive in the callback on a later tick', async () => {
    let sync = true;
    const records = new Promise((resolve) => {
      resolver.resolve4('v4.node.example', { ttl: true }, (error, value) =>
        resolve(sync ? 'called at once' : (error ?? value)),
      );
      sync = false;
    });
    expect(await records).toEqual([
      { address: '127.0.0.1', ttl: 300 },
      { address: '127.0.0.2', ttl: 300 },
    ]);
    const error = await new Promise((resolve) => resolver.resolveSrv('nx.node.example', (e) => resolve(e)));
    expect(error).toMatchObject({ code: 'ENOTFOUND', syscall: 'querySrv', hostname: 'nx.node.example' });
    const detailed = await new Promise<unknown>((resolve) =>
      resolver.resolveDetailed('text.node.example', 'TXT', (e, d) => resolve(e ?? d.records)),
    );
    expect(detailed).toEqual([['hello', 'world'], ['v=spf1 -all']]);
  });

  test('a missing callback throws at once, as dns.Resolver does', () => {
    expect(() => resolver.resolveMx('x.example', undefined as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' }),
    );
    expect(() => (resolver.resolve as (...a: unknown[]) => void)('x.example', 'MX')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
  });
});
