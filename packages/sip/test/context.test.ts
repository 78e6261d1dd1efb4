/** ResolutionContext: warnings once, failed answers, bogus answers, negative horizons, expiry. */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver } from '@dnscore/core';
import { ResolutionContext } from '../src/context.js';
import { Lookups } from '../src/lookups.js';
import { BogusAnswerError } from '../src/errors.js';
import { recording } from './support/recording-plugin.js';
import { ALL_ZONES } from './support/fixtures.js';

function context(options: Parameters<typeof recording>[1] = {}): ResolutionContext {
  const lookups = new Lookups(new DnsCore([recording(new ZoneResolver({ files: ALL_ZONES }), options)]), undefined);
  return new ResolutionContext(
    lookups,
    { transports: new Set(['udp']), ipv4: true, ipv6: true, preferIpv6: true, dnssec: 'off', sipsDnssec: 'off' },
    10_000,
    8,
  );
}

describe('ResolutionContext: nominal', () => {
  it('the same warning is kept once', () => {
    const ctx = context();
    ctx.warn('no-srv', 'x');
    ctx.warn('no-srv', 'x');
    ctx.warn('no-srv', 'y');
    expect(ctx.warnings).toEqual([
      { code: 'no-srv', message: 'x' },
      { code: 'no-srv', message: 'y' },
    ]);
  });

  it('a negative answer bounds the expiry of what follows (SOA minimum 300 s)', async () => {
    const ctx = context();
    expect(ctx.expires(3600)).toBe(10_000 + 3_600_000);
    ctx.negative(ctx.use(await ctx.lookups.ask('nosrv.cases.example', 'NAPTR', 0)));
    expect(ctx.horizon).toBe(300);
    expect(ctx.expires(3600)).toBe(10_000 + 300_000);
    expect(ctx.expires(60)).toBe(10_000 + 60_000);
  });

  it('step() puts the query steps of answers obtained so far before its own step', async () => {
    const ctx = context();
    await ctx.lookups.ask('biloxi.example', 'A', 0);
    ctx.step({ kind: 'note', message: 'after' });
    expect(ctx.steps.map((s) => s.kind)).toEqual(['query', 'note']);
  });
});

describe('ResolutionContext: off-nominal', () => {
  it('use() of a bogus answer throws BogusAnswerError', async () => {
    const ctx = context({ bogus: ['biloxi.example A'] });
    const answer = await ctx.lookups.ask('biloxi.example', 'A', 0);
    expect(() => ctx.use(answer)).toThrow(BogusAnswerError);
  });

  it('use() of a failed answer is undefined, recorded once', async () => {
    const ctx = context({ fail: { 'biloxi.example A': new Error('down') } });
    const answer = await ctx.lookups.ask('biloxi.example', 'A', 0);
    expect(ctx.use(answer)).toBeUndefined();
    expect(ctx.use(answer)).toBeUndefined();
    expect(ctx.dnsErrors).toHaveLength(1);
    expect(ctx.warnings).toEqual([
      { code: 'dns-error', message: 'biloxi.example A: no answer (down); treated as no records' },
    ]);
  });
});
