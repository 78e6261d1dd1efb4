/**
 * Issue 21 item 3: each fan-out bound held (16 NAPTR, 16 SRV, 8 CNAME hops, 32 targets) but
 * not their product: one URI made 4,630 queries in about 160 rounds. A resolution now has a
 * budget of queries and of time; past it, questions are refused (SIP_ERR_QUERY_BUDGET), those
 * out are cancelled, the resolution ends with what it found, and it warns `query-budget`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DnsCore,
  ZoneResolver,
  seededRandom,
  systemTimers,
  type DnsApi,
  type DnsQuery,
  type DnsResult,
} from '@dnscore/core';
import type { PluginAnswer } from '@dnscore/core/plugin';
import { QueryBudgetError, SipLocator } from '../src/index.js';
import { QueryBudget } from '../src/query-budget.js';
import { recording } from './support/recording-plugin.js';

// 16 NAPTR -> 16 SRV sets of 16 targets in another zone (no additional data), each target an
// A and an AAAA question: 1 + 16 + 512 questions unbounded.
const ZONE = [
  '$ORIGIN product.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\n',
  ...Array.from({ length: 16 }, (_, i) => `@ IN NAPTR 10 ${i} "s" "SIP+D2U" "" _sip._udp.n${i}\n`),
  ...Array.from({ length: 16 }, (_, i) =>
    Array.from({ length: 16 }, (_, j) => `_sip._udp.n${i} IN SRV 10 1 5060 t${i}-${j}.hosts.example.\n`).join(''),
  ),
].join('');
const HOSTS = [
  '$ORIGIN hosts.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\n',
  ...Array.from({ length: 16 }, (_, i) =>
    Array.from({ length: 16 }, (_, j) => `t${i}-${j} IN A 192.0.2.${i + 1}\n`).join(''),
  ),
].join('');
const zones = () => new ZoneResolver({ zones: [{ text: ZONE }, { text: HOSTS }] });

afterEach(() => vi.useRealTimers());

describe('the DNS budget of one resolution', () => {
  it('stops at maxQueries with what it found, and warns', async () => {
    // Unbounded, this URI asks 52 questions (NAPTR, 17 SRV, A and AAAA of 16 targets, the host).
    const plugin = recording(zones());
    const locator = new SipLocator(new DnsCore([plugin], { random: seededRandom(5) }), {
      transports: ['udp'],
      maxQueries: 40,
    });
    expect(new SipLocator(new DnsCore([plugin])).maxQueries).toBe(128);
    const resolution = await locator.resolve('sip:bob@product.example');
    expect(plugin.asked).toHaveLength(40);
    expect(resolution.warnings).toContainEqual({
      code: 'query-budget',
      message: 'the resolution needed more than 40 DNS queries: the targets are those found by then',
    });
    expect(resolution.targets.length).toBeGreaterThan(0);
    expect(resolution.targets.every((t) => t.address.startsWith('192.0.2.'))).toBe(true);
  });

  it('within the budget nothing is cut', async () => {
    const plugin = recording(zones());
    const resolution = await new SipLocator(new DnsCore([plugin]), { transports: ['udp'] }).resolve(
      'sip:bob@product.example',
    );
    expect(plugin.asked).toHaveLength(52);
    expect(resolution.warnings.map((w) => w.code)).not.toContain('query-budget');
  });

  it('stops at maxResolutionMs when answers never come, cancelling what is out', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const signals: AbortSignal[] = [];
    const silent = {
      name: 'silent',
      priority: 0,
      available: () => true,
      close() {},
      resolve: (_query: DnsQuery, signal: AbortSignal) =>
        new Promise<PluginAnswer>((_resolve, reject) => {
          signals.push(signal);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    };
    const locator = new SipLocator(new DnsCore([silent]), { transports: ['udp'], maxResolutionMs: 1_000 });
    const pending = locator.resolve('sip:bob@product.example');
    await vi.advanceTimersByTimeAsync(999);
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.some((s) => s.aborted)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const resolution = await pending;
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(resolution.targets).toEqual([]);
    expect(resolution.error?.code).toBe('SIP_ERR_NO_TARGETS');
    expect(resolution.warnings).toContainEqual({
      code: 'query-budget',
      message: 'the resolution took longer than 1000 ms: the targets are those found by then',
    });
  });

  it("passes the resolver's current() and random through (target plans and their draws)", () => {
    const random = seededRandom(3);
    const seen: (readonly DnsResult[])[] = [];
    const inner: DnsApi = {
      resolve: (() => Promise.reject(new Error('not asked'))) as DnsApi['resolve'],
      current: (results) => {
        seen.push(results);
        return results.length === 0;
      },
      random,
    };
    const budget = new QueryBudget(inner, 4, 1_000, undefined, systemTimers);
    expect(budget.dns.random).toBe(random);
    expect([budget.dns.current?.([]), seen]).toEqual([true, [[]]]);
    budget.close();
    const bare = new QueryBudget({ resolve: inner.resolve }, 4, 1_000, undefined, systemTimers);
    expect([bare.dns.current, bare.dns.random]).toEqual([undefined, undefined]);
    bare.close();
  });

  it('QueryBudgetError is a typed SIP error', () => {
    const error = new QueryBudgetError('the resolution needed more than 1 DNS queries', 'x.example');
    expect([error.code, error.message]).toEqual([
      'SIP_ERR_QUERY_BUDGET',
      'x.example not asked: the resolution needed more than 1 DNS queries',
    ]);
  });
});
