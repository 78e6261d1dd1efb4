/**
 * Per-target DNSSEC status: a target is as secure as its weakest link (the NAPTR, SRV and
 * A/AAAA answers that led to it, and the negative answers that decided the rule), and the
 * policy 'off' | 'prefer' | 'require', separately for sips: URIs. The backend here is a zone
 * resolver whose answers a fake validator marks secure by name, so each link can be chosen.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, typeName, withCache, type ResolverPlugin } from '@dnscore/core';
import {
  InsecureTargetsError,
  SipLocator,
  renderStepThrough,
  resolutionToJson,
  type SipLocatorOptions,
} from '../src/index.js';

const ZONE = `$ORIGIN signed.example.
$TTL 300
@          IN SOA ns hostmaster 1 7200 900 1209600 60
           IN NS  ns
ns         IN A   192.0.2.53
@          IN NAPTR 10 10 "s" "SIP+D2U" "" _sip._udp
@          IN NAPTR 20 10 "s" "SIPS+D2T" "" _sips._tcp
_sip._udp  IN SRV 10 60 5060 sip1
           IN SRV 20 10 5060 sip2
_sips._tcp IN SRV 10 60 5061 sip1
sip1       IN A   192.0.2.11
sip2       IN A   192.0.2.12
`;
const NONAPTR = `$ORIGIN nonaptr.example.
$TTL 300
@          IN SOA ns hostmaster 1 7200 900 1209600 60
           IN NS  ns
ns         IN A   192.0.2.53
_sip._udp  IN SRV 10 60 5060 sip1
sip1       IN A   192.0.2.21
`;

/** Every answer secure except the "TYPE name" listed as insecure; `asked` counts the questions. */
function validator(insecure: readonly string[]): ResolverPlugin & { asked: number } {
  const zone = new ZoneResolver({ zones: [{ text: ZONE }, { text: NONAPTR }] });
  const plugin = {
    name: 'validator',
    priority: 0,
    asked: 0,
    available: () => true,
    close: () => undefined,
    async resolve(query: Parameters<ResolverPlugin['resolve']>[0], signal: AbortSignal) {
      plugin.asked++;
      const answer = await zone.resolve(query, signal);
      return { ...answer, secure: !insecure.includes(`${typeName(query.type)} ${query.name}`) };
    },
  };
  return plugin;
}

function core(insecure: readonly string[]): DnsCore {
  return new DnsCore([validator(insecure)]);
}

function locator(insecure: readonly string[], options: SipLocatorOptions = {}): SipLocator {
  return new SipLocator(core(insecure), { transports: ['udp', 'tcp', 'tls'], ipv6: false, ...options });
}

const NAPTR = { name: 'signed.example', type: 'NAPTR', dnssec: 'secure' } as const;
const SRV = { name: '_sip._udp.signed.example', type: 'SRV', dnssec: 'secure' } as const;
const A1 = { name: 'sip1.signed.example', type: 'A', dnssec: 'secure' } as const;
const A2 = { name: 'sip2.signed.example', type: 'A', dnssec: 'secure' } as const;

describe('a target is as secure as its weakest link', () => {
  it('NAPTR, SRV and A all secure: secure, with its links in order', async () => {
    const resolution = await locator([]).resolve('sip:bob@signed.example');
    expect(resolution.targets.map((t) => [t.address, t.dnssec, t.links])).toEqual([
      ['192.0.2.11', 'secure', [NAPTR, SRV, A1]],
      ['192.0.2.12', 'secure', [NAPTR, SRV, A2]],
    ]);
  });

  it.each([
    ['the NAPTR answer', 'NAPTR signed.example', ['insecure', 'insecure']],
    ['the SRV answer', 'SRV _sip._udp.signed.example', ['insecure', 'insecure']],
    ["one target's A answer", 'A sip2.signed.example', ['secure', 'insecure']],
  ])('%s insecure: the targets resting on it are insecure', async (_name, link, expected) => {
    const resolution = await locator([link]).resolve('sip:bob@signed.example');
    expect(resolution.targets.map((t) => t.dnssec)).toEqual(expected);
  });

  it('no NAPTR: the negative answer that chose SRV is a link too', async () => {
    const secure = await locator([]).resolve('sip:bob@nonaptr.example');
    expect(secure.targets.map((t) => [t.dnssec, t.links.map((l) => `${l.type} ${l.name}`)])).toEqual([
      ['secure', ['NAPTR nonaptr.example', 'SRV _sip._udp.nonaptr.example', 'A sip1.nonaptr.example']],
    ]);
    // An attacker who strips NAPTR on an unsigned path chooses the rule: the target says so.
    const stripped = await locator(['NAPTR nonaptr.example']).resolve('sip:bob@nonaptr.example');
    expect(stripped.targets.map((t) => t.dnssec)).toEqual(['insecure']);
  });

  it('additional-section addresses are never secure', async () => {
    const zone = `$ORIGIN add.example.
$TTL 300
@ IN SOA ns hostmaster 1 7200 900 1209600 60
  IN NS ns
ns IN A 192.0.2.53
_sip._udp IN SRV 10 60 5060 sip1
sip1 IN A 192.0.2.31
`;
    const backend = new ZoneResolver({ zones: [{ text: zone }] });
    const resolution = await new SipLocator(new DnsCore([backend]), {
      transports: ['udp'],
      ipv6: false,
    }).resolve('sip:bob@add.example;transport=udp');
    expect(resolution.targets.map((t) => [t.dnssec, t.links])).toEqual([
      [
        'insecure',
        [
          { name: '_sip._udp.add.example', type: 'SRV', dnssec: 'insecure' },
          {
            name: 'sip1.add.example',
            type: 'A',
            dnssec: 'insecure',
            note: 'additional section of _sip._udp.add.example',
          },
        ],
      ],
    ]);
  });

  it('an IP literal: no DNS, nothing validated (insecure), and no link', async () => {
    const resolution = await locator([]).resolve('sip:bob@192.0.2.99');
    expect(resolution.targets.map((t) => [t.dnssec, t.links])).toEqual([['insecure', []]]);
  });
});

describe("the policy: 'off', 'prefer', 'require'", () => {
  it("'off' (the default): every target kept, no warning", async () => {
    const resolution = await locator(['A sip2.signed.example']).resolve('sip:bob@signed.example');
    expect(resolution.targets).toHaveLength(2);
    expect(resolution.warnings.filter((w) => w.code.startsWith('dnssec'))).toEqual([]);
  });

  it("'prefer': the same targets in the same order, and a warning naming the link", async () => {
    const resolution = await locator(['A sip2.signed.example'], { dnssec: 'prefer' }).resolve('sip:bob@signed.example');
    expect(resolution.targets.map((t) => [t.address, t.dnssec])).toEqual([
      ['192.0.2.11', 'secure'],
      ['192.0.2.12', 'insecure'],
    ]);
    expect(resolution.warnings.filter((w) => w.code.startsWith('dnssec'))).toEqual([
      { code: 'dnssec-insecure', message: 'targets through A sip2.signed.example (insecure) are not DNSSEC-secure' },
    ]);
  });

  it("'require': the target that is not secure is dropped, with a warning and a step naming the link", async () => {
    const resolution = await locator(['A sip2.signed.example'], { dnssec: 'require' }).resolve(
      'sip:bob@signed.example',
      { stepThrough: true },
    );
    expect(resolution.targets.map((t) => [t.address, t.dnssec])).toEqual([['192.0.2.11', 'secure']]);
    expect(resolution.error).toBeUndefined();
    expect(resolution.warnings.filter((w) => w.code.startsWith('dnssec'))).toEqual([
      {
        code: 'dnssec-dropped',
        message:
          'targets through A sip2.signed.example (insecure) dropped: DNSSEC policy "require" needs every link secure',
      },
    ]);
    expect(resolution.steps).toContainEqual({
      kind: 'skip',
      host: 'sip2.signed.example',
      port: 5060,
      transport: 'udp',
      reason:
        '192.0.2.12:5060 UDP (sip2.signed.example) is insecure: it rests on A sip2.signed.example (insecure); DNSSEC ' +
        'policy "require"',
    });
  });

  it("'require' with nothing secure: no target, SIP_ERR_INSECURE naming the link", async () => {
    const resolution = await locator(['NAPTR signed.example'], { dnssec: 'require' }).resolve('sip:bob@signed.example');
    expect(resolution.targets).toEqual([]);
    expect(resolution.error).toBeInstanceOf(InsecureTargetsError);
    expect(resolution.error?.code).toBe('SIP_ERR_INSECURE');
    expect((resolution.error as InsecureTargetsError).links).toEqual(['NAPTR signed.example (insecure)']);
  });

  it("'require' keeps no IP literal out: it needs no DNS", async () => {
    const resolution = await locator([], { dnssec: 'require' }).resolve('sip:bob@192.0.2.99');
    expect(resolution.targets.map((t) => t.address)).toEqual(['192.0.2.99']);
  });

  it('sips: URIs have their own policy', async () => {
    const options: SipLocatorOptions = { dnssec: 'off', sipsDnssec: 'require' };
    const insecure = ['SRV _sips._tcp.signed.example'];
    const sips = await locator(insecure, options).resolve('sips:bob@signed.example');
    expect(sips.error?.code).toBe('SIP_ERR_INSECURE');
    const sip = await locator(insecure, options).resolve('sip:bob@signed.example');
    expect(sip.targets.length).toBeGreaterThan(0);
  });

  it('a bad policy is refused', () => {
    expect(() => locator([], { dnssec: 'strict' as never })).toThrow(
      `dnssec must be 'off', 'prefer' or 'require', not "strict"`,
    );
  });
});

describe('target plans keep the statuses and the policy', () => {
  it("a planned resolution has each target's status and links; 'require' still drops, with its warning", async () => {
    const backend = validator(['A sip2.signed.example']);
    const cached = new SipLocator(new DnsCore([withCache(backend)]), {
      transports: ['udp', 'tcp', 'tls'],
      ipv6: false,
      dnssec: 'require',
    });
    const first = await cached.resolve('sip:bob@signed.example');
    await cached.resolve('sip:bob@signed.example'); // every answer from the cache: the plan is made
    const asked = backend.asked;
    const planned = await cached.resolve('sip:bob@signed.example');
    expect(backend.asked).toBe(asked);
    expect(planned.steps).toEqual([]);
    for (const r of [first, planned]) {
      expect(r.targets.map((t) => [t.address, t.dnssec, t.links])).toEqual([
        ['192.0.2.11', 'secure', [NAPTR, SRV, A1]],
      ]);
      expect(r.warnings.filter((w) => w.code.startsWith('dnssec')).map((w) => w.code)).toEqual(['dnssec-dropped']);
      expect(r.error).toBeUndefined();
    }
  });

  it("'prefer': a planned target that rests on an insecure link stays insecure", async () => {
    const backend = validator(['SRV _sip._udp.signed.example']);
    const cached = new SipLocator(new DnsCore([withCache(backend)]), {
      transports: ['udp'],
      ipv6: false,
      dnssec: 'prefer',
    });
    await cached.resolve('sip:bob@signed.example');
    await cached.resolve('sip:bob@signed.example');
    const asked = backend.asked;
    const planned = await cached.resolve('sip:bob@signed.example');
    expect(backend.asked).toBe(asked);
    expect(planned.targets.map((t) => [t.address, t.dnssec])).toEqual([
      ['192.0.2.11', 'insecure'],
      ['192.0.2.12', 'insecure'],
    ]);
  });
});

describe('the step-through and the JSON show it', () => {
  it('a dnssec column, and the link that made a target insecure', async () => {
    const resolution = await locator(['A sip2.signed.example']).resolve('sip:bob@signed.example');
    const text = renderStepThrough(resolution);
    expect(text).toMatch(/ source {2}dnssec {4}expires\n/);
    expect(text).toMatch(/ 192\.0\.2\.11 .* naptr {3}secure {4}in \d+ s\n/);
    expect(text).toMatch(/ 192\.0\.2\.12 .* naptr {3}insecure {2}in \d+ s\n/);
    expect(text).toContain('  DNSSEC: target 2 through A sip2.signed.example (insecure)\n');
    const json = resolutionToJson(resolution);
    expect(json.targets.map((t) => [t.dnssec, t.links.length])).toEqual([
      ['secure', 3],
      ['insecure', 3],
    ]);
  });
});

describe('the failover cursor', () => {
  it("a Call-ID pinned to an address DNSSEC did not give is never used, under 'require' or 'prefer'", async () => {
    const pin = { transport: 'udp', address: '192.0.2.200', port: 5080 } as const;
    for (const dnssec of ['require', 'prefer'] as const) {
      const l = locator([], { dnssec });
      l.dialogs.learnIncoming('call-9', pin);
      const attempt = await l.cursor('sip:bob@signed.example', { callId: 'call-9' }).next();
      // The cursor uses a pin only when the resolution lists it (issue 14: the rule lives in one layer).
      expect(attempt).toMatchObject({ pinned: false, target: { address: '192.0.2.11', dnssec: 'secure' } });
    }
  });
});
