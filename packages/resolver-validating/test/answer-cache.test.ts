/**
 * The validated answers (src/validated-answers.ts, src/validated-ttl.ts): a question asked
 * again within its lifetime is answered from them, neither asked nor validated again, with its
 * TTLs counted down and its verdict as it validated. Lifetimes: the record TTLs, bounded by the
 * RRSIG's original TTL and expiration (RFC 4035 5.3.3); negative answers by the SOA (RFC 2308);
 * bogus ones 5 s (RFC 9520). A fake clock drives the signature windows and the cache; nsd
 * serves zones signed here by ldns, through a proxy that counts the questions and can tamper.
 */
import * as dnsPacket from 'dns-packet';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DnsCore, questionKey, makeQuery, withCache, type DnsResult } from '@dnscore/core';
import { startDnsProxy, type DnsProxy } from '../../../test/support/dns-proxy.js';
import { forgeAddresses } from '../../../test/support/dns-tamper.js';
import { signZone, type SignedZone } from '../../../test/support/dnssec.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { recordQueryTraces } from '../../../test/support/query-trace.js';
import {
  InsecureAnswerError,
  ValidatingOptionError,
  ValidatingResolver,
  type ValidatingResolverOptions,
} from '../src/index.js';

const A = 1;
const TXT = 16;
/** The fake clock's start: a whole second, so that every TTL below is exact. */
const T0 = Math.floor(Date.now() / 1000) * 1000;
const SECOND = 1000;

const CACHE_ZONE = `$ORIGIN cache.example.
$TTL 3600
@ IN SOA ns1.cache.example. hostmaster.cache.example. 1 7200 900 1209600 120
  IN NS ns1.cache.example.
ns1 IN A 127.0.0.1
www 300 IN A 192.0.2.1
`;
/** Signed to expire 100 s after T0: its data cannot be kept longer, whatever its TTL. */
const SOON_ZONE = `$ORIGIN soon.example.
$TTL 3600
@ IN SOA ns1.cache.example. hostmaster.soon.example. 1 7200 900 1209600 300
  IN NS ns1.cache.example.
www IN A 192.0.2.2
`;
const PLAIN_ZONE = `$ORIGIN plain.test.
$TTL 600
@ IN SOA ns1.cache.example. hostmaster.plain.test. 1 7200 900 1209600 60
  IN NS ns1.cache.example.
www IN A 192.0.2.3
`;

let cache: SignedZone;
let soon: SignedZone;
let nsd: NsdServer;
let proxy: DnsProxy;
let now = T0;
const clock = { now: () => now };
const open: { close(): unknown }[] = [];

beforeAll(async () => {
  [cache, soon] = await Promise.all([
    signZone('cache.example', CACHE_ZONE),
    signZone('soon.example', SOON_ZONE, {
      inception: new Date(T0 - 3600 * SECOND),
      expiration: new Date(T0 + 100 * SECOND),
    }),
  ]);
  nsd = await startNsd([
    { name: cache.name, text: cache.text },
    { name: soon.name, text: soon.text },
    { name: 'plain.test', text: PLAIN_ZONE },
  ]);
  proxy = await startDnsProxy(nsd);
}, 60_000);
afterAll(async () => {
  for (const item of open) await item.close();
  await proxy?.close();
  await nsd?.stop();
});
beforeEach(() => {
  now = T0;
  proxy.rewrite = (_q, answer) => answer;
  proxy.queries.length = 0;
});

function backend(options: ValidatingResolverOptions = {}): { resolver: ValidatingResolver; core: DnsCore } {
  const resolver = new ValidatingResolver(
    { nameservers: [proxy.endpoint], resolvConf: '/nonexistent/resolv.conf' },
    { trustAnchors: [cache.ds, soon.ds], clock, timeoutMs: 2000, attempts: 1, ...options },
  );
  const core = new DnsCore([resolver]);
  open.push(core);
  return { resolver, core };
}

/** Data questions the upstream got for `name`/`type` (the chain questions left out). */
function asked(name: string, type: number): number {
  return proxy.queries.filter((q) => q.name === name && q.type === type).length;
}

function status(result: DnsResult): string {
  return result.bogus ? 'bogus' : result.secure ? 'secure' : 'insecure';
}

/** What a result says, TTLs included. */
function seen(result: DnsResult): { status: string; rcode: number; records: string[]; negativeTtl: number } {
  return {
    status: status(result),
    rcode: result.rcode,
    records: result.records.map((r) => `${r.name} ${r.ttl} ${r.type} ${String(r.data)}`),
    negativeTtl: result.negativeTtl,
  };
}

/** Every A record's TTL and its RRSIG's record TTL (not the original TTL they sign) set to `ttl`. */
function stretchTtls(answer: Uint8Array, ttl: number): Uint8Array {
  const packet = dnsPacket.decode(Buffer.from(answer));
  packet.answers = (packet.answers ?? []).map((r) => (r.type === 'A' || r.type === 'RRSIG' ? { ...r, ttl } : r));
  return dnsPacket.encode(packet);
}

describe('a positive answer', () => {
  it('is answered from the cache within its TTL, counted down, and asked again when it runs out', async () => {
    const { core, resolver } = backend();
    const secureA = (ttl: number) => ({
      status: 'secure',
      rcode: 0,
      records: [`www.cache.example ${ttl} A 192.0.2.1`],
      negativeTtl: 0,
    });
    expect(seen(await core.resolve('www.cache.example', 'A'))).toEqual(secureA(300));
    now = T0 + 100.5 * SECOND;
    const warm = await core.resolve('www.cache.example', 'A');
    expect([seen(warm), warm.age]).toEqual([secureA(200), 100]);
    now = T0 + 299.9 * SECOND;
    expect(seen(await core.resolve('www.cache.example', 'A'))).toEqual(secureA(1));
    expect(asked('www.cache.example', A)).toBe(1);
    now = T0 + 300 * SECOND;
    expect(seen(await core.resolve('www.cache.example', 'A'))).toEqual(secureA(300));
    expect(asked('www.cache.example', A)).toBe(2);
    expect(resolver.answerCacheStats).toMatchObject({ entries: 1, hits: 2 });
  });

  it('is one entry for the name in any case, apart from other types', async () => {
    const { core, resolver } = backend();
    expect(seen(await core.resolve('WWW.Cache.Example', 'A')).records).toEqual(['WWW.Cache.Example 300 A 192.0.2.1']);
    // The kept packet, as the first asker's case wrote it (names compare without case).
    expect(seen(await core.resolve('www.cache.example', 'A')).records).toEqual(['WWW.Cache.Example 300 A 192.0.2.1']);
    expect(asked('www.cache.example', A)).toBe(1);
    await core.resolve('www.cache.example', 'TXT');
    expect([asked('www.cache.example', TXT), resolver.answerCacheStats.entries]).toEqual([1, 2]);
  });

  it('lives no longer than its RRSIG: expiring 100 s after T0, with TTL 3600', async () => {
    const { core } = backend();
    const secureA = (ttl: number) => ['secure', [`www.soon.example ${ttl} A 192.0.2.2`]];
    const view = (r: DnsResult) => [status(r), seen(r).records];
    expect(view(await core.resolve('www.soon.example', 'A'))).toEqual(secureA(100));
    now = T0 + 60 * SECOND;
    expect(view(await core.resolve('www.soon.example', 'A'))).toEqual(secureA(40));
    expect(asked('www.soon.example', A)).toBe(1);
    // Expired now, but within the clock skew allowance: still secure, kept for nothing (TTL 0).
    now = T0 + 100 * SECOND;
    expect(view(await core.resolve('www.soon.example', 'A'))).toEqual(secureA(0));
    expect(view(await core.resolve('www.soon.example', 'A'))).toEqual(secureA(0));
    expect(asked('www.soon.example', A)).toBe(3);
  });

  it("hands the core TTLs bounded by the RRSIG, so the core's cache in front keeps it no longer", async () => {
    const resolver = new ValidatingResolver(
      { nameservers: [proxy.endpoint], resolvConf: '/nonexistent/resolv.conf' },
      { trustAnchors: [cache.ds, soon.ds], clock, timeoutMs: 2000, attempts: 1 },
    );
    const core = new DnsCore([withCache(resolver, { clock })]);
    open.push(core);
    const view = async () => {
      const result = await core.resolve('www.soon.example', 'A');
      return [status(result), seen(result).records, asked('www.soon.example', A)];
    };
    expect(await view()).toEqual(['secure', ['www.soon.example 100 A 192.0.2.2'], 1]);
    now = T0 + 99 * SECOND;
    expect(await view()).toEqual(['secure', ['www.soon.example 1 A 192.0.2.2'], 1]);
    now = T0 + 100 * SECOND;
    expect(await view()).toEqual(['secure', ['www.soon.example 0 A 192.0.2.2'], 2]);
  });

  it("lives no longer than the RRSIG's original TTL, whatever TTL the records come with", async () => {
    const { core } = backend();
    proxy.rewrite = (q, answer) =>
      q.name === 'www.cache.example' && q.type === A ? stretchTtls(answer, 7200) : answer;
    expect(seen(await core.resolve('www.cache.example', 'A')).records).toEqual(['www.cache.example 300 A 192.0.2.1']);
    now = T0 + 299 * SECOND;
    expect(seen(await core.resolve('www.cache.example', 'A')).records).toEqual(['www.cache.example 1 A 192.0.2.1']);
    now = T0 + 300 * SECOND;
    await core.resolve('www.cache.example', 'A');
    expect(asked('www.cache.example', A)).toBe(2);
  });
});

describe('a negative answer', () => {
  it('NXDOMAIN is kept secure for the SOA MINIMUM (120 s, the SOA TTL is 3600), counted down', async () => {
    const { core } = backend();
    const nx = (ttl: number) => ({ status: 'secure', rcode: 3, records: [], negativeTtl: ttl });
    expect(seen(await core.resolve('nothere.cache.example', 'A'))).toEqual(nx(120));
    now = T0 + 50 * SECOND;
    expect(seen(await core.resolve('nothere.cache.example', 'A'))).toEqual(nx(70));
    expect(asked('nothere.cache.example', A)).toBe(1);
    now = T0 + 120 * SECOND;
    expect(seen(await core.resolve('nothere.cache.example', 'A'))).toEqual(nx(120));
    expect(asked('nothere.cache.example', A)).toBe(2);
  });

  it('NODATA is kept secure for the SOA MINIMUM', async () => {
    const { core } = backend();
    const nodata = (ttl: number) => ({ status: 'secure', rcode: 0, records: [], negativeTtl: ttl });
    expect(seen(await core.resolve('www.cache.example', 'TXT'))).toEqual(nodata(120));
    now = T0 + 119 * SECOND;
    expect(seen(await core.resolve('www.cache.example', 'TXT'))).toEqual(nodata(1));
    expect(asked('www.cache.example', TXT)).toBe(1);
  });

  it('an insecure NXDOMAIN is kept insecure (SOA MINIMUM 60 s); requireSecure rejects it from the cache', async () => {
    const { core } = backend();
    const nx = (ttl: number) => ({ status: 'insecure', rcode: 3, records: [], negativeTtl: ttl });
    expect(seen(await core.resolve('nothere.plain.test', 'A'))).toEqual(nx(60));
    now = T0 + 59 * SECOND;
    expect(seen(await core.resolve('nothere.plain.test', 'A'))).toEqual(nx(1));
    expect(asked('nothere.plain.test', A)).toBe(1);

    const strict = backend({ requireSecure: true }).core;
    now = T0;
    await expect(strict.resolve('www.plain.test', 'A')).rejects.toBeInstanceOf(InsecureAnswerError);
    await expect(strict.resolve('www.plain.test', 'A')).rejects.toThrow(
      'www.plain.test IN A: the answer is insecure (no trust anchor covers www.plain.test.) and requireSecure is set',
    );
    expect(asked('www.plain.test', A)).toBe(1);
  });
});

describe('a bogus answer', () => {
  it('is kept bogus for 5 s, never served as secure, and validated again after', async () => {
    const { core, resolver } = backend();
    proxy.rewrite = (q, answer) =>
      q.name === 'www.cache.example' && q.type === A ? forgeAddresses(answer, '6.6.6.6') : answer;
    const forged = await core.resolve('www.cache.example', 'A');
    expect([status(forged), forged.records, forged.ede]).toEqual(['bogus', [], 6]);
    proxy.rewrite = (_q, answer) => answer;
    now = T0 + 4.9 * SECOND;
    const again = await core.resolve('www.cache.example', 'A');
    expect([status(again), again.records, again.ede, again.whyBogus]).toEqual(['bogus', [], 6, forged.whyBogus]);
    expect([asked('www.cache.example', A), resolver.answerCacheStats.hits]).toEqual([1, 1]);
    now = T0 + 5 * SECOND;
    expect(seen(await core.resolve('www.cache.example', 'A')).records).toEqual(['www.cache.example 300 A 192.0.2.1']);
    expect(asked('www.cache.example', A)).toBe(2);
  });

  it('replaces nothing secure: after a secure answer runs out, forged data is bogus', async () => {
    const { core } = backend();
    expect(status(await core.resolve('www.cache.example', 'A'))).toBe('secure');
    proxy.rewrite = (q, answer) =>
      q.name === 'www.cache.example' && q.type === A ? forgeAddresses(answer, '6.6.6.6') : answer;
    now = T0 + 300 * SECOND;
    const forged = await core.resolve('www.cache.example', 'A');
    expect([status(forged), forged.records]).toEqual(['bogus', []]);
  });
});

describe('bounds', () => {
  it('beyond answerCacheSize the least recently used answer goes', async () => {
    const { core, resolver } = backend({ answerCacheSize: 2 });
    await core.resolve('www.cache.example', 'A');
    await core.resolve('ns1.cache.example', 'A');
    await core.resolve('www.cache.example', 'A'); // now the most recently used
    await core.resolve('nothere.cache.example', 'A'); // pushes ns1 out
    expect(resolver.answerCacheStats.entries).toBe(2);
    await core.resolve('www.cache.example', 'A');
    await core.resolve('ns1.cache.example', 'A');
    expect([asked('www.cache.example', A), asked('ns1.cache.example', A)]).toEqual([1, 2]);
  });

  it('beyond answerCacheBytes the oldest answer goes; the bytes counted are exact', async () => {
    const probe = backend();
    const www = await probe.core.resolve('www.cache.example', 'A');
    const ns1 = await probe.core.resolve('ns1.cache.example', 'A');
    const bytesOf = (r: DnsResult) => r.answer.length + 2 * questionKey(r.query).length + 256;
    expect(probe.resolver.answerCacheStats.bytes).toBe(bytesOf(www) + bytesOf(ns1));

    const { core, resolver } = backend({ answerCacheBytes: bytesOf(www) + bytesOf(ns1) - 1 });
    await core.resolve('www.cache.example', 'A');
    await core.resolve('ns1.cache.example', 'A');
    expect(resolver.answerCacheStats).toMatchObject({ entries: 1, bytes: bytesOf(ns1) });
  });

  it('answerCacheSize 0 keeps nothing: every question is asked and validated', async () => {
    const { core, resolver } = backend({ answerCacheSize: 0 });
    expect(status(await core.resolve('www.cache.example', 'A'))).toBe('secure');
    const again = await core.resolve('www.cache.example', 'A');
    expect([status(again), again.age, asked('www.cache.example', A)]).toEqual(['secure', 0, 2]);
    expect(resolver.answerCacheStats).toEqual({ entries: 0, bytes: 0, hits: 0, joined: 0 });
  });

  it('bad bounds are refused at construction', () => {
    expect(() => backend({ answerCacheSize: -1 })).toThrow(ValidatingOptionError);
    expect(() => backend({ answerCacheSize: 1.5 })).toThrow(/answerCacheSize/);
    expect(() => backend({ answerCacheBytes: Number.NaN })).toThrow(/answerCacheBytes/);
  });

  it('close() forgets every answer', async () => {
    const { core, resolver } = backend();
    await core.resolve('www.cache.example', 'A');
    await core.resolve('nothere.cache.example', 'A');
    expect(resolver.answerCacheStats.entries).toBe(2);
    resolver.close();
    expect(resolver.answerCacheStats).toMatchObject({ entries: 0, bytes: 0 });
  });
});

describe('questions in flight and the trace', () => {
  it('identical questions at once are asked and validated once', async () => {
    const { core, resolver } = backend();
    const results = await Promise.all([1, 2, 3].map(() => core.resolve('www.cache.example', 'A')));
    expect(results.map(status)).toEqual(['secure', 'secure', 'secure']);
    expect([asked('www.cache.example', A), resolver.answerCacheStats.joined]).toEqual([1, 2]);
  });

  it('a caller that gives up leaves the others their answer', async () => {
    const { resolver } = backend();
    const gone = new AbortController();
    const query = makeQuery('www.cache.example', 'A');
    const left = resolver.resolve(query, gone.signal);
    const stays = resolver.resolve(query, new AbortController().signal);
    gone.abort();
    await expect(left).rejects.toMatchObject({ name: 'AbortError' });
    expect((await stays).secure).toBe(true);
  });

  it('a cached answer says in the trace that it came from the validated answers', async () => {
    const { core } = backend();
    const ended = recordQueryTraces();
    await core.resolve('www.cache.example', 'A');
    await core.resolve('www.cache.example', 'A');
    expect(ended.map((ctx) => ctx.attempts.map((a) => [a.backend, a.servers]))).toEqual([
      [['validating', [{ server: proxy.endpoint, transport: 'udp', outcome: 'answer', rcode: 0 }]]],
      [['validating', [{ server: 'validated-answer cache', transport: 'cache', outcome: 'answer', rcode: 0 }]]],
    ]);
  });
});

afterEach(() => {
  now = T0;
});
