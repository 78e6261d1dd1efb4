/**
 * SipLocator: options, the one-round-trip first round, questions asked once, bogus DNSSEC,
 * failed queries, cancel, the cap and the family options.
 */
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  DnsCore,
  InvalidArgumentError,
  TimeoutError,
  ZoneResolver,
  type DnsQuery,
  type ResolverPlugin,
} from '@dnscore/core';
import { BogusAnswerError, InvalidSipUriError, NoTargetsError } from '../src/errors.js';
import { SipLocator } from '../src/locator.js';
import { ALL_ZONES, CASES_ZONE, OTHER_ZONE, lines, setup } from './support/fixtures.js';

describe('options: nominal', () => {
  it('defaults: udp, tcp, tls; IPv4 and IPv6, AAAA first; 32 targets; 6 s per target', () => {
    const { locator } = setup();
    expect([...locator.client.transports]).toEqual(['udp', 'tcp', 'tls']);
    expect(locator.client).toMatchObject({ ipv4: true, ipv6: true, preferIpv6: true });
    expect(locator.maxTargets).toBe(32);
    expect(locator.targetTimeoutMs).toBe(6000);
    expect(locator.maxUdpRequestBytes).toBe(1300);
    expect(locator.penaltyBox.penaltyMs).toBe(60_000);
    expect(locator.penaltyBox.maxMs).toBe(300_000);
  });
});

describe('options: off-nominal', () => {
  const core = new DnsCore([new ZoneResolver({ files: ALL_ZONES })]);
  it.each([
    [{ transports: [] }, 'transports must be a non-empty list of udp, tcp, tls (got [])'],
    [{ transports: ['udp', 'sctp'] }, 'transports must be a non-empty list of udp, tcp, tls (got ["udp","sctp"])'],
    [{ ipv4: false, ipv6: false }, 'IPv4 and IPv6 cannot both be off'],
    [{ maxTargets: 0 }, 'maxTargets must be a positive integer, not 0'],
    [{ maxTargets: 1.5 }, 'maxTargets must be a positive integer, not 1.5'],
    [{ targetTimeoutMs: -1 }, 'targetTimeoutMs must be a positive integer, not -1'],
    [{ maxUdpRequestBytes: Number.NaN }, 'maxUdpRequestBytes must be a positive integer, not NaN'],
    [{ penaltyMs: -5 }, 'penaltyMs must be a non-negative number, not -5'],
    [{ maxRetryAfter: Number.POSITIVE_INFINITY }, 'maxRetryAfter must be a non-negative number, not Infinity'],
    [{ callIdPersistenceMs: 0 }, 'Call-ID affinity lifetime must be a positive number of ms, not 0'],
  ])('%j is refused', (options, message) => {
    expect(() => new SipLocator(core, options as never)).toThrow(new InvalidArgumentError(message));
  });

  it('needs a resolver', () => {
    expect(() => new SipLocator({} as never)).toThrow('SipLocator needs a DnsApi (a DnsCore)');
  });

  it('an invalid URI is thrown, not returned', async () => {
    const { locator, plugin } = setup();
    await expect(locator.resolve('sip:bob@bad..host', { stepThrough: true })).rejects.toBeInstanceOf(
      InvalidSipUriError,
    );
    expect(() => locator.cursor('mailto:bob@biloxi.example')).toThrow(InvalidSipUriError);
    expect(plugin.asked).toEqual([]);
  });
});

describe('the first round: one round trip', () => {
  it('NAPTR, the three SRV owners and AAAA/A go out together; the walk-through zone needs nothing more', async () => {
    // The plugin holds every answer until all six questions have arrived: sequential questions would fail.
    const { locator, plugin } = setup({ recording: { barrier: 6 } });
    const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(plugin.held).toEqual([
      'biloxi.example NAPTR',
      '_sips._tcp.biloxi.example SRV',
      '_sip._tcp.biloxi.example SRV',
      '_sip._udp.biloxi.example SRV',
      'biloxi.example AAAA',
      'biloxi.example A',
    ]);
    expect(plugin.asked).toEqual(plugin.held);
    expect(resolution.roundTrips).toBe(1);
    expect(resolution.queries).toBe(6);
    expect(resolution.error).toBeUndefined();
    expect(resolution.targets).toHaveLength(3);
  });

  it('the barrier catches questions that do not go out together', async () => {
    const { locator } = setup({ recording: { barrier: 7 } });
    const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(resolution.error).toBeInstanceOf(NoTargetsError);
    expect(resolution.warnings.filter((w) => w.code === 'dns-error')).toHaveLength(6);
    expect(resolution.warnings[0]!.message).toBe(
      'biloxi.example NAPTR: no answer (only 6 of 7 questions arrived together: biloxi.example NAPTR, ' +
        '_sips._tcp.biloxi.example SRV, _sip._tcp.biloxi.example SRV, _sip._udp.biloxi.example SRV, biloxi.example ' +
        'AAAA, biloxi.example A); treated as no records',
    );
  });

  it('an SRV owner already asked is not asked again when a NAPTR points to it', async () => {
    const { locator, plugin } = setup();
    await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    const counts = new Map<string, number>();
    for (const q of plugin.asked) counts.set(q, (counts.get(q) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });

  it('a NAPTR owner outside the first round is asked in round 2, once', async () => {
    const { locator, plugin } = setup();
    const resolution = await locator.resolve('sip:bob@sameorder.cases.example', {});
    expect(plugin.asked).toEqual([
      'sameorder.cases.example NAPTR',
      '_sips._tcp.sameorder.cases.example SRV',
      '_sip._tcp.sameorder.cases.example SRV',
      '_sip._udp.sameorder.cases.example SRV',
      'sameorder.cases.example AAAA',
      'sameorder.cases.example A',
      '_sips._tcp.empty.sameorder.cases.example SRV',
    ]);
    // s1's address came with the _sip._tcp answer (additional section, inside sameorder.cases.example).
    expect(resolution.roundTrips).toBe(2);
  });

  it('only families that are on are asked about', async () => {
    const v4 = setup({ ipv6: false });
    await v4.locator.resolve('sip:bob@nonaptr.cases.example', { stepThrough: true });
    expect(v4.plugin.asked.filter((q) => q.endsWith('AAAA'))).toEqual([]);
    const v6 = setup({ ipv4: false });
    const resolution = await v6.locator.resolve('sip:bob@nonaptr.cases.example', { stepThrough: true });
    expect(v6.plugin.asked.filter((q) => q.endsWith(' A'))).toEqual([]);
    expect(lines(resolution.targets)).toEqual(['udp [2001:db8::1]:5060 u1.nonaptr.cases.example']);
    expect(resolution.warnings).toContainEqual({
      code: 'srv-target-no-address',
      message: 'SRV target t1.nonaptr.cases.example (_sip._tcp.nonaptr.cases.example) has no AAAA address: skipped',
    });
  });
});

describe('family order and the cap', () => {
  it('AAAA before A by default, A before AAAA with preferIpv6 false', async () => {
    const first = await setup().locator.resolve('sip:bob@nonaptr.cases.example;transport=udp', { stepThrough: true });
    expect(first.targets.map((t) => t.family)).toEqual([6, 4]);
    const second = await setup({ preferIpv6: false }).locator.resolve('sip:bob@nonaptr.cases.example;transport=udp', {
      stepThrough: true,
    });
    expect(second.targets.map((t) => t.family)).toEqual([4, 6]);
  });

  it('at most 32 targets by default, with a warning', async () => {
    const resolution = await setup().locator.resolve('sip:bob@big.cases.example', { stepThrough: true });
    expect(resolution.targets).toHaveLength(32);
    expect(resolution.targets[31]!.address).toBe('192.0.2.181');
    expect(resolution.warnings).toContainEqual({
      code: 'targets-capped',
      message: '40 targets found; only the first 32 are kept',
    });
  });

  it('a smaller cap', async () => {
    const resolution = await setup({ maxTargets: 2 }).locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(resolution.targets.map((t) => t.priority)).toEqual([10, 10]);
  });
});

describe('DNSSEC: a bogus answer never makes a target', () => {
  it('a bogus NAPTR fails the resolution; the SRV records are not used instead', async () => {
    const { locator } = setup({ recording: { bogus: ['biloxi.example NAPTR'] } });
    const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(resolution.targets).toEqual([]);
    expect(resolution.error).toBeInstanceOf(BogusAnswerError);
    expect(resolution.error).toMatchObject({
      code: 'SIP_ERR_BOGUS',
      qname: 'biloxi.example',
      qtype: 'NAPTR',
      whyBogus: 'signature over biloxi.example NAPTR expired',
    });
    expect(resolution.error?.message).toBe(
      'the NAPTR answer for biloxi.example is DNSSEC-bogus (signature over biloxi.example NAPTR expired): no targets ' +
        'are made from it',
    );
    expect(resolution.steps).toContainEqual(
      expect.objectContaining({ kind: 'query', name: 'biloxi.example', type: 'NAPTR', bogus: true, records: [] }),
    );
  });

  it('a bogus SRV answer chosen by NAPTR fails the resolution: no fallback to other transports', async () => {
    const { locator } = setup({ recording: { bogus: ['_sips._tcp.biloxi.example SRV'] } });
    const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(resolution.error).toBeInstanceOf(BogusAnswerError);
    expect(resolution.targets).toEqual([]);
  });

  it('a bogus address of an SRV target fails the resolution', async () => {
    // sibling.cases.example is outside bailiwick.cases.example: its address is asked, and comes back bogus.
    const { locator } = setup({ recording: { bogus: ['sibling.cases.example A'] } });
    const resolution = await locator.resolve('sip:bob@bailiwick.cases.example;transport=udp', { stepThrough: true });
    expect(resolution.error).toMatchObject({ code: 'SIP_ERR_BOGUS', qname: 'sibling.cases.example', qtype: 'A' });
    expect(resolution.targets).toEqual([]);
  });

  it('several bogus target addresses at once: one error, nothing left unobserved', async () => {
    const { locator } = setup({
      recording: { bogus: ['host.other.example A', 'ns1.other.example A', 'edge.provider.other.example AAAA'] },
    });
    const resolution = await locator.resolve('sip:bob@batch.cases.example;transport=udp', { stepThrough: true });
    expect(resolution.error).toBeInstanceOf(BogusAnswerError);
    expect(resolution.targets).toEqual([]);
  });

  it('a bogus answer that no rule needs does not matter', async () => {
    const { locator } = setup({ recording: { bogus: ['biloxi.example A'] } });
    const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(resolution.error).toBeUndefined();
    expect(resolution.targets).toHaveLength(3);
  });

  it('locate() throws the error', async () => {
    const { locator } = setup({ recording: { bogus: ['biloxi.example NAPTR'] } });
    await expect(locator.locate('sip:bob@biloxi.example')).rejects.toBeInstanceOf(BogusAnswerError);
  });
});

describe('failed queries', () => {
  it('a query with no answer counts as no records, is warned about, and the next rule applies', async () => {
    const { locator } = setup({
      recording: { fail: { 'biloxi.example NAPTR': new TimeoutError('no server answered biloxi.example NAPTR') } },
    });
    const resolution = await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(resolution.rule).toBe('srv');
    expect(resolution.transport).toBe('tls');
    expect(resolution.warnings).toContainEqual({
      code: 'dns-error',
      message: 'biloxi.example NAPTR: no answer (no server answered biloxi.example NAPTR); treated as no records',
    });
    expect(resolution.steps[1]).toMatchObject({
      kind: 'query',
      name: 'biloxi.example',
      type: 'NAPTR',
      error: { code: 'DNS_ERR_TIMEOUT', message: 'no server answered biloxi.example NAPTR' },
    });
  });

  it('when every query fails, NoTargetsError carries the DNS errors', async () => {
    const fail = Object.fromEntries(
      [
        'nosrv.cases.example NAPTR',
        '_sips._tcp.nosrv.cases.example SRV',
        '_sip._tcp.nosrv.cases.example SRV',
        '_sip._udp.nosrv.cases.example SRV',
        'nosrv.cases.example AAAA',
        'nosrv.cases.example A',
      ].map((k) => [k, new TimeoutError(`timeout: ${k}`)]),
    );
    const resolution = await setup({ recording: { fail } }).locator.resolve('sip:bob@nosrv.cases.example', {
      stepThrough: true,
    });
    expect(resolution.error).toBeInstanceOf(NoTargetsError);
    expect((resolution.error as NoTargetsError).dnsErrors.map((e) => e.message).sort()).toEqual(
      Object.values(fail)
        .map((e) => e.message)
        .sort(),
    );
  });
});

describe('cancel', () => {
  it('rejects with AbortError at once; no answer is used afterwards', async () => {
    const never: ResolverPlugin = {
      name: 'silent',
      priority: 0,
      available: () => true,
      close: () => {},
      resolve: (_query: DnsQuery, signal: AbortSignal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    };
    const locator = new SipLocator(new DnsCore([never]));
    const controller = new AbortController();
    const pending = locator.resolve('sip:bob@biloxi.example', { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it('an already aborted signal asks nothing', async () => {
    const { locator, plugin } = setup();
    await expect(locator.resolve('sip:bob@biloxi.example', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(plugin.asked).toEqual([]);
  });
});

describe('aliases across resolvers', () => {
  it('a CNAME chain that leaves the answering resolver is followed with a new question', async () => {
    const cases = new ZoneResolver({ name: 'cases', files: [CASES_ZONE] });
    const other = new ZoneResolver({ name: 'other', files: [OTHER_ZONE], priority: 60 });
    // The core's own re-ask of cross-zone chains is off here, so the locator follows the chain.
    const locator = new SipLocator(new DnsCore([cases, other], { reaskCrossZoneCnames: false }), { ipv6: false });
    const resolution = await locator.resolve('sip:bob@alias.cases.example;transport=tcp', { stepThrough: true });
    expect(lines(resolution.targets)).toEqual(['tcp 198.51.100.7:5060 far.alias.cases.example']);
    expect(resolution.steps).toContainEqual({
      kind: 'note',
      message: 'far.alias.cases.example is an alias of host.other.example; asking A for host.other.example',
    });
    expect(resolution.warnings).toContainEqual({
      code: 'srv-target-alias',
      message:
        'SRV target far.alias.cases.example (_sip._tcp.alias.cases.example) is an alias of host.other.example: RFC ' +
        '2782 forbids aliases; followed',
    });
    expect(resolution.roundTrips).toBe(3);
  });

  it("with the core re-asking a chain into another zone, the target gets the end's own addresses", async () => {
    const cases = new ZoneResolver({ name: 'cases', files: [CASES_ZONE] });
    const other = new ZoneResolver({ name: 'other', files: [OTHER_ZONE], priority: 60 });
    const resolution = await new SipLocator(new DnsCore([cases, other]), { ipv6: false }).resolve(
      'sip:bob@alias.cases.example;transport=tcp',
    );
    expect(lines(resolution.targets)).toEqual(['tcp 198.51.100.7:5060 far.alias.cases.example']);
    expect(resolution.warnings.map((w) => w.code)).toContain('srv-target-alias');
  });
});

describe('nothing stays in flight', () => {
  it(
    'resolve() returns only once every question it asked has its answer, even when a bogus one ended the rule ' +
      'early',
    async () => {
      let releaseA!: () => void;
      const heldA = new Promise<void>((resolve) => (releaseA = resolve));
      let bogusSent!: () => void;
      const bogusAnswered = new Promise<void>((resolve) => (bogusSent = resolve));
      const inner = new ZoneResolver({ files: [CASES_ZONE] });
      const gated: ResolverPlugin = {
        name: 'gated',
        priority: 0,
        available: () => true,
        close: () => {},
        async resolve(query, signal) {
          const answer = await inner.resolve(query, signal);
          if (query.type === 28) {
            bogusSent();
            return { ...answer, bogus: true, whyBogus: 'forged signature' };
          }
          if (query.type === 1) await heldA;
          return answer;
        },
      };
      const locator = new SipLocator(new DnsCore([gated]), { transports: ['udp'] });
      let settled = false;
      const pending = locator
        .resolve('sip:bob@192.0.2.1.invalid.cases.example:5060', { stepThrough: true })
        .finally(() => (settled = true));
      await bogusAnswered;
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false); // the bogus AAAA was handled, the A is still out
      releaseA();
      const resolution = await pending;
      expect(resolution.error?.code).toBe('SIP_ERR_BOGUS');
      expect(resolution.targets).toEqual([]);
    },
  );
});
