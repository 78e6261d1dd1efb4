/**
 * A man in the middle between real libunbound and nsd, on a signed tree with real delegations
 * (test/support/signed-tree-behind-proxy.ts): every answer the attacker alters on the signed
 * path is reported bogus, with its EDE code, and never falls back to the non-validating system
 * backend, whose queries (no DO bit) the attacker answers with forged data; a chain is as
 * secure as its weakest link. Through the API (cached and uncached), the CLI, a SIP resolution
 * and the PJSIP-style adapter.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DnsCore, Ede, withCache, type DnsResult } from '@dnscore/core';
import { createPjsipAdapter } from '@dnscore/pjsip-adapter';
import { SystemResolver } from '@dnscore/resolver-system';
import { UnboundResolver, type UnboundOptions } from '@dnscore/resolver-unbound';
import { SipLocator } from '@dnscore/sip';
import { dnscore } from '../packages/cli/test/support.js';
import type { Rewrite } from './support/dns-proxy.js';
import {
  appendOctetToCname,
  dropDs,
  forgeAddresses,
  forgedAnswer,
  setAuthenticData,
  stripRrsigs,
} from './support/dns-tamper.js';
import { resolveOnce } from './support/pjsip-consumer.js';
import { signedTreeBehindProxy } from './support/signed-tree-behind-proxy.js';

const FORGED = '6.6.6.6';
const A = 1;
const DS = 43;

const mitm = signedTreeBehindProxy();

/** The attacker: `signed` rewrites what the validator (DO bit) gets; plain queries get forged data. */
function attack(signed: Rewrite = (_q, answer) => answer): void {
  mitm.proxy.rewrite = (query, answer) => (query.dnssecOk ? signed(query, answer) : forgedAnswer(query, FORGED));
}
beforeEach(() => attack());

interface Stack {
  readonly core: DnsCore;
  readonly system: SystemResolver;
}

/** libunbound (a fresh context, so a fresh cache) with the system backend behind it, both via the proxy. */
function stack(cached: boolean, options: UnboundOptions = {}): Stack {
  const unbound = new UnboundResolver({ ...mitm.unboundOptions, ...options });
  const system = new SystemResolver({ nameservers: [mitm.proxy.endpoint] });
  const core = mitm.closeAtEnd(new DnsCore(cached ? [withCache(unbound), withCache(system)] : [unbound, system]));
  return { core, system };
}

const cliFlags = (resolver = 'auto') => [
  '--resolver',
  resolver,
  '--server',
  mitm.proxy.endpoint,
  '--trust-anchor',
  mitm.tree.anchor,
];

function addresses(result: DnsResult): unknown[] {
  return result.records.map((r) => r.data);
}

describe("issue 17's attack: one octet appended to a signed CNAME's RDATA", () => {
  const tamper: Rewrite = (query, answer) =>
    query.name === 'alias.secure.example' || query.name === 'tagged.secure.example'
      ? appendOctetToCname(answer)
      : answer;
  beforeEach(() => attack(tamper));

  it.each([false, true])('API (cached: %s): bogus, EDE 6, no data, the system backend never asked', async (cached) => {
    const { core, system } = stack(cached);
    for (let round = 0; round < 2; round++) {
      const result = await core.resolve('alias.secure.example', 'A');
      expect(result).toMatchObject({
        resolver: 'unbound',
        dnssec: 'bogus',
        secure: false,
        records: [],
        additional: [],
        ede: Ede.DNSSEC_BOGUS,
      });
      expect(result.whyBogus).toMatch(/^validation failure <alias\.secure\.example\. A IN>: .*CNAME/);
    }
    expect(system.stats.queries).toBe(0);
  });

  it.each(['auto', 'unbound'])(
    'CLI --resolver %s: exit 4, the reason with its EDE, no forged address',
    async (resolver) => {
      const text = await dnscore('resolve', 'alias.secure.example', ...cliFlags(resolver));
      expect(text.code).toBe(4);
      expect(text.stdout).not.toContain(FORGED);
      expect(text.stdout).toContain(
        'dnssec: bogus (EDE 6 DNSSEC Bogus: validation failure <alias.secure.example. A IN>',
      );
      expect(text.stderr).toMatch(
        /alias\.secure\.example: bogus DNSSEC answer: EDE 6 DNSSEC Bogus: validation failure/,
      );
      const json = await dnscore('resolve', 'alias.secure.example', '--json', ...cliFlags(resolver));
      expect(json.code).toBe(4);
      expect(JSON.parse(json.stdout)).toMatchObject({
        secure: false,
        bogus: true,
        ede: { code: 6, name: 'DNSSEC Bogus' },
        records: [],
      });
    },
  );

  it('SIP: no target, SIP_ERR_BOGUS; CLI sip exits 4', async () => {
    const { core, system } = stack(true);
    const locator = new SipLocator(core, { transports: ['udp'], ipv6: false });
    for (let round = 0; round < 2; round++) {
      const resolution = await locator.resolve('sip:bob@tagged.secure.example');
      expect(resolution.targets).toEqual([]);
      expect(resolution.error?.code).toBe('SIP_ERR_BOGUS');
    }
    expect(system.stats.queries).toBe(0);
    const sip = await dnscore(
      'sip',
      'sip:bob@tagged.secure.example',
      '--transports',
      'udp',
      '--no-ipv6',
      ...cliFlags(),
    );
    expect(sip.code).toBe(4);
    expect(sip.stdout).not.toContain(FORGED);
  });

  it('PJSIP-style adapter: an error status and no address', async () => {
    const { core, system } = stack(false);
    const { status, addresses } = await resolveOnce(createPjsipAdapter(core), 'sip:bob@tagged.secure.example');
    expect(status).not.toBe(0);
    expect(addresses?.count ?? 0).toBe(0);
    expect(system.stats.queries).toBe(0);
  });
});

describe('other attacks on the signed path: bogus with the EDE code, never a fallback', () => {
  const www = (q: { name: string; type: number }) => q.name === 'www.secure.example' && q.type === A;
  it.each<[string, Rewrite, number, RegExp]>([
    ['RRSIGs stripped', (q, a) => (www(q) ? stripRrsigs(a) : a), Ede.RRSIGS_MISSING, /no signatures/],
    ['address forged', (q, a) => (www(q) ? forgeAddresses(a, FORGED) : a), Ede.DNSSEC_BOGUS, /signature/],
    [
      'DS of the zone dropped',
      (q, a) => (q.name === 'secure.example' && q.type === DS ? dropDs(a) : a),
      Ede.RRSIGS_MISSING,
      /for DS secure\.example\. while building chain of trust/,
    ],
    [
      'address forged and AD set',
      (q, a) => (www(q) ? setAuthenticData(forgeAddresses(a, FORGED)) : setAuthenticData(a)),
      Ede.DNSSEC_BOGUS,
      /signature/,
    ],
  ])('%s', async (_name, signed, ede, why) => {
    attack(signed);
    for (const cached of [false, true]) {
      const { core, system } = stack(cached);
      const result = await core.resolve('www.secure.example', 'A');
      expect(result).toMatchObject({ dnssec: 'bogus', records: [], ede });
      expect(result.whyBogus).toMatch(why);
      expect(system.stats.queries).toBe(0);
    }
  });

  it('AD set by the attacker on forged unsigned data: insecure, never secure', async () => {
    attack((q, a) => (q.name === 'www.insecure.example' ? setAuthenticData(forgeAddresses(a, FORGED)) : a));
    const { core } = stack(false);
    const result = await core.resolve('www.insecure.example', 'A');
    expect(result.dnssec).toBe('insecure');
    expect(addresses(result)).toEqual([FORGED]);
  });

  it('the untouched signed answer is secure through the same proxy', async () => {
    const { core } = stack(false);
    const result = await core.resolve('www.secure.example', 'A');
    expect(result.dnssec).toBe('secure');
    expect(addresses(result)).toEqual(['192.0.2.80']);
  });
});

describe('a CNAME chain is as secure as its weakest link (the validators agree: delv, unbound)', () => {
  const cases: [string, string, 'secure' | 'insecure' | 'bogus', string, string[], number][] = [
    // name, status, rcode, addresses, CLI exit
    ['secure -> secure', 'to-other.secure.example', 'secure', 'NOERROR', ['192.0.2.70'], 0],
    ['secure -> insecure', 'to-insecure.secure.example', 'insecure', 'NOERROR', ['192.0.2.90'], 0],
    ['insecure -> secure', 'alias.insecure.example', 'insecure', 'NOERROR', ['192.0.2.80'], 0],
    ['insecure -> nonexistent in a secure zone', 'gone.insecure.example', 'insecure', 'NXDOMAIN', [], 3],
    ['secure -> bogus', 'to-bogus.secure.example', 'bogus', 'NOERROR', [], 4],
    ['insecure -> bogus', 'to-bogus.insecure.example', 'bogus', 'NOERROR', [], 4],
  ];

  it.each(cases)('%s: API, cache miss and hit', async (_name, qname, status, rcode, expected) => {
    for (const cached of [false, true]) {
      const { core, system } = stack(cached);
      for (let round = 0; round < (cached ? 2 : 1); round++) {
        const result = await core.resolve(qname, 'A');
        expect([result.dnssec, result.rcodeName, addresses(result)]).toEqual([status, rcode, expected]);
        expect(result.secure).toBe(status === 'secure');
      }
      expect(system.stats.queries).toBe(0);
    }
  });

  it.each(cases)('%s: CLI --json and exit code', async (_name, qname, status, rcode, expected, exit) => {
    const ran = await dnscore('resolve', qname, '--json', ...cliFlags());
    expect(ran.code).toBe(exit);
    expect(JSON.parse(ran.stdout)).toMatchObject({
      rcode,
      secure: status === 'secure',
      bogus: status === 'bogus',
      records: expected.map((data) => ({ data })),
    });
  });
});

describe('SIP: each target as secure as the NAPTR, SRV and A answers it rests on', () => {
  const sipFlags = ['--transports', 'udp', '--no-ipv6'];

  it('signed NAPTR -> signed SRV -> signed A: a secure target, kept under require (cache miss and hit)', async () => {
    const { core, system } = stack(true);
    const locator = new SipLocator(core, { transports: ['udp'], ipv6: false, dnssec: 'require' });
    for (let round = 0; round < 2; round++) {
      const resolution = await locator.resolve('sip:bob@secure.example');
      expect(resolution.error).toBeUndefined();
      expect(resolution.targets.map((t) => [t.address, t.port, t.dnssec])).toEqual([['192.0.2.81', 5060, 'secure']]);
      expect(resolution.targets[0]!.links.map((l) => `${l.type} ${l.name} ${l.dnssec}`)).toEqual([
        'NAPTR secure.example secure',
        'SRV _sip._udp.secure.example secure',
        'A sip1.secure.example secure',
      ]);
    }
    expect(system.stats.queries).toBe(0);
  });

  it('unsigned NAPTR -> signed SRV -> signed A: insecure, named by its weakest link', async () => {
    const { core } = stack(false);
    const prefer = await new SipLocator(core, { transports: ['udp'], ipv6: false, dnssec: 'prefer' }).resolve(
      'sip:bob@insecure.example',
    );
    expect(prefer.targets.map((t) => [t.address, t.dnssec])).toEqual([['192.0.2.81', 'insecure']]);
    expect(prefer.warnings).toContainEqual({
      code: 'dnssec-insecure',
      message: 'targets through NAPTR insecure.example (insecure) are not DNSSEC-secure',
    });
    const require = await new SipLocator(core, { transports: ['udp'], ipv6: false, dnssec: 'require' }).resolve(
      'sip:bob@insecure.example',
    );
    expect(require.targets).toEqual([]);
    expect(require.error?.code).toBe('SIP_ERR_INSECURE');
  });

  it(
    'CLI: --dnssec require exits 4 for the unsigned NAPTR and 0 for the signed chain; --json shows each ' + 'status',
    async () => {
      const insecure = await dnscore(
        'sip',
        'sip:bob@insecure.example',
        '--dnssec',
        'require',
        ...sipFlags,
        ...cliFlags(),
      );
      expect(insecure.code).toBe(4);
      expect(insecure.stderr).toMatch(/NAPTR insecure\.example \(insecure\).*\[SIP_ERR_INSECURE\]/);
      const secure = await dnscore(
        'sip',
        'sip:bob@secure.example',
        '--dnssec',
        'require',
        '--json',
        ...sipFlags,
        ...cliFlags(),
      );
      expect(secure.code).toBe(0);
      expect(JSON.parse(secure.stdout).targets).toMatchObject([{ address: '192.0.2.81', dnssec: 'secure' }]);
      const text = await dnscore('sip', 'sip:bob@insecure.example', ...sipFlags, ...cliFlags());
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('  DNSSEC: target 1 through NAPTR insecure.example (insecure)');
    },
  );

  it(
    'PJSIP-style adapter under require: an error status for the insecure chain, the address for the secure ' + 'one',
    async () => {
      const { core } = stack(false);
      const adapter = createPjsipAdapter(core, { transports: ['udp'], ipv6: false, dnssec: 'require' });
      const bad = await resolveOnce(adapter, 'sip:bob@insecure.example');
      expect(bad.status).not.toBe(0);
      expect(bad.addresses?.count ?? 0).toBe(0);
      const good = await resolveOnce(adapter, 'sip:bob@secure.example');
      expect(good.status).toBe(0);
      expect(good.addresses?.count).toBe(1);
    },
  );
});

describe('an algorithm this libunbound lacks (RFC 4035 section 5.2)', () => {
  it(
    'an Ed448-only zone is secure exactly when the probe says Ed448 validates; the CLI says why when ' + 'not',
    async () => {
      const unbound = new UnboundResolver(mitm.unboundOptions);
      const core = mitm.closeAtEnd(new DnsCore([unbound]));
      const ed448 = (await unbound.dnssecSupport()).algorithms.find((a) => a.number === 16)!;
      const result = await core.resolve('www.ed448.example', 'A');
      expect([result.dnssec, addresses(result)]).toEqual([ed448.validates ? 'secure' : 'insecure', ['192.0.2.48']]);
      const ran = await dnscore('resolve', 'www.ed448.example', ...cliFlags('unbound'));
      expect(ran.code).toBe(0);
      if (ed448.validates) expect(ran.stderr).toBe('');
      else
        expect(ran.stderr).toBe(
          'dnscore: www.ed448.example: insecure: ed448.example is signed only with algorithm 16 (ED448), which this ' +
            'libunbound cannot validate: it is treated as unsigned (RFC 4035 section 5.2)\n',
        );
      // A zone signed with an algorithm that validates gets no such note, secure or not.
      expect((await dnscore('resolve', 'www.insecure.example', ...cliFlags('unbound'))).stderr).toBe('');
    },
  );
});

describe('SHA-1 DS beside a wrong SHA-256 DS (RFC 4509 section 3)', () => {
  it('bogus by default: only the strongest digest counts (harden-algo-downgrade)', async () => {
    const result = await stack(false).core.resolve('www.sha1.example', 'A');
    expect(result).toMatchObject({ dnssec: 'bogus', ede: Ede.DNSKEY_MISSING, records: [] });
    expect(result.whyBogus).toMatch(/DS hash mismatches key .*for key sha1\.example\./);
  });

  it("secure with hardenAlgoDowngrade: false (libunbound's own default)", async () => {
    const result = await stack(false, { hardenAlgoDowngrade: false }).core.resolve('www.sha1.example', 'A');
    expect([result.dnssec, addresses(result)]).toEqual(['secure', ['192.0.2.60']]);
  });
});
