/**
 * planContext: what each option becomes on a libunbound context, in which order, and which
 * options are refused before libunbound sees them. The steps run against a recorder of the
 * context's methods (what we ask libunbound, not how libunbound behaves: context.test.ts and
 * the integration tests cover that).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnboundOptionError } from '../src/errors.js';
import { DEFAULT_MAX_IN_FLIGHT } from '../src/defaults.js';
import { defaultRootAnchors } from '../src/trust-anchors.js';
import { planContext, unboundAddress, type UnboundOptions } from '../src/options.js';
import type { UnboundContext } from '../src/unbound-context.js';

function calls(options: UnboundOptions): string[] {
  const log: string[] = [];
  const record =
    (method: string) =>
    (...args: unknown[]): UnboundContext => {
      log.push(`${method} ${args.map(String).join(' | ')}`);
      return context;
    };
  const context = {
    setOption: record('setOption'),
    setForward: record('setForward'),
    setStub: record('setStub'),
    setResolveConf: record('setResolveConf'),
    setHosts: record('setHosts'),
    addTrustAnchor: record('addTrustAnchor'),
    addTrustAnchorFile: record('addTrustAnchorFile'),
    removeZone: record('removeZone'),
    resolve: () => Promise.reject(new Error('not here')),
  } as unknown as UnboundContext;
  for (const step of planContext(options).steps) step.apply(context);
  return log;
}

function refusal(options: UnboundOptions): string {
  try {
    planContext(options);
  } catch (error) {
    expect(error).toBeInstanceOf(UnboundOptionError);
    expect(error).toMatchObject({ code: 'DNS_ERR_UNBOUND_OPTION', definite: true });
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('planContext, nominal', () => {
  it(
    'defaults: infra-cache-max-rtt 1000, infra-host-ttl 60, qname minimisation on, system hosts and resolv.conf, ' +
      'root anchors',
    () => {
      const plan = planContext();
      expect(plan).toMatchObject({
        name: 'unbound',
        priority: 100,
        requireSecure: false,
        maxInFlight: DEFAULT_MAX_IN_FLIGHT,
        threads: 1,
        anchorSource: defaultRootAnchors().source, // root.ds, or built-in without it
      });
      expect(calls({})).toEqual([
        'setOption infra-cache-max-rtt | 1000',
        'setOption infra-host-ttl | 60',
        'setOption qname-minimisation | yes',
        'setOption harden-algo-downgrade | yes',
        'setOption outgoing-range | 1024',
        'setOption num-queries-per-thread | 1024',
        'setOption outgoing-num-tcp | 10',
        'setHosts /etc/hosts',
        'setResolveConf /etc/resolv.conf',
        'addTrustAnchor . IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D',
        'addTrustAnchor . IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16',
      ]);
    },
  );

  it('every option, in libunbound order: forwarders, then resolv.conf given beside them, generic options last', () => {
    expect(
      calls({
        hosts: '/srv/hosts',
        resolvConf: '/srv/resolv.conf',
        nameservers: ['192.0.2.53', '192.0.2.54:5353', '[2001:db8::53]:53'],
        stubZones: [{ name: 'Biloxi.Example.', addresses: ['127.0.0.1@5300', '::1'], prime: true }],
        localZones: [{ name: 'test', type: 'transparent' }],
        localData: ['goose.feathers 60 IN A 127.0.0.2'],
        insecureDomains: ['lab.example'],
        trustAnchors: ['biloxi.example. IN DS 1 13 2 AB'],
        trustAnchorFiles: ['/dev/null'],
        debugLevel: 2,
        qnameMinimisation: false,
        hardenAlgoDowngrade: false,
        infraCacheMaxRtt: 250,
        infraHostTtl: 5,
        options: {
          'val-override-date': '20300101000000',
          'do-ip6:': false,
          'edns-buffer-size': 1232,
          'domain-insecure': ['a.example', 'b.example'],
        },
      }),
    ).toEqual([
      'setOption infra-cache-max-rtt | 250',
      'setOption infra-host-ttl | 5',
      'setOption qname-minimisation | no',
      'setOption harden-algo-downgrade | no',
      'setOption outgoing-range | 1024',
      'setOption num-queries-per-thread | 1024',
      'setOption outgoing-num-tcp | 10',
      'setOption verbosity | 2',
      'setHosts /srv/hosts',
      'setForward 192.0.2.53',
      'setForward 192.0.2.54@5353',
      'setForward 2001:db8::53@53',
      'setResolveConf /srv/resolv.conf',
      'setStub Biloxi.Example. | 127.0.0.1@5300 | true',
      'setStub Biloxi.Example. | ::1 | true',
      'setOption local-zone | test. transparent',
      'setOption local-data | goose.feathers 60 IN A 127.0.0.2',
      'setOption domain-insecure | lab.example.',
      'addTrustAnchor biloxi.example. IN DS 1 13 2 AB',
      'addTrustAnchorFile /dev/null',
      'setOption val-override-date | 20300101000000',
      'setOption do-ip6 | no',
      'setOption edns-buffer-size | 1232',
      'setOption domain-insecure | a.example',
      'setOption domain-insecure | b.example',
    ]);
  });

  it('hosts: false and resolvConf: false read nothing; explicit anchors replace the root ones', () => {
    expect(calls({ hosts: false, resolvConf: false, trustAnchors: [] })).toEqual([
      'setOption infra-cache-max-rtt | 1000',
      'setOption infra-host-ttl | 60',
      'setOption qname-minimisation | yes',
      'setOption harden-algo-downgrade | yes',
      'setOption outgoing-range | 1024',
      'setOption num-queries-per-thread | 1024',
      'setOption outgoing-num-tcp | 10',
      'setOption module-config | iterator',
    ]);
    expect(planContext({ trustAnchorFiles: [] }).anchorSource).toBe('options');
  });

  it('a default hosts file or resolv.conf that cannot be read is left out; a file given must be read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dnscore-defaults-'));
    try {
      const present = { hosts: join(dir, 'hosts'), resolvConf: join(dir, 'resolv.conf') };
      writeFileSync(present.hosts, '127.0.0.2 goose.feathers\n');
      writeFileSync(present.resolvConf, 'nameserver 127.0.0.53\n');
      const missing = { hosts: join(dir, 'no-hosts'), resolvConf: join(dir, 'no-resolv.conf') };
      const files = (defaults: typeof present, options: UnboundOptions = {}): string[] =>
        planContext({ trustAnchors: [], ...options }, defaults)
          .steps.map((step) => step.option)
          .filter((option) => option === 'hosts' || option === 'resolvConf');
      expect(files(present)).toEqual(['hosts', 'resolvConf']);
      expect(files(missing)).toEqual([]);
      expect(planContext({}, missing).upstream.resolvConf).toBeUndefined();
      expect(files(missing, { hosts: present.hosts, resolvConf: missing.resolvConf })).toEqual(['hosts', 'resolvConf']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("given nameservers replace resolv.conf's; a resolvConf given beside them adds its servers", () => {
    const forwarding = (options: UnboundOptions): string[] =>
      calls({ hosts: false, trustAnchors: [], ...options }).filter((call) => /^set(Forward|ResolveConf)/.test(call));
    expect(forwarding({ nameservers: ['192.0.2.53', '192.0.2.54:5353'] })).toEqual([
      'setForward 192.0.2.53',
      'setForward 192.0.2.54@5353',
    ]);
    expect(forwarding({ nameservers: ['192.0.2.53'], resolvConf: '/srv/resolv.conf' })).toEqual([
      'setForward 192.0.2.53',
      'setResolveConf /srv/resolv.conf',
    ]);
    expect(forwarding({ nameservers: [] })).toEqual(['setResolveConf /etc/resolv.conf']);
    expect(planContext({ nameservers: ['192.0.2.53'] }).upstream).toEqual({
      stubZones: [],
      forwarders: ['192.0.2.53'],
      resolvConf: undefined,
    });
  });

  it('no trust anchor anywhere: the iterator alone; any anchor, or a module-config given, keeps the choice', () => {
    const moduleConfig = (options: UnboundOptions): string[] =>
      calls({ hosts: false, resolvConf: false, ...options }).filter((call) =>
        call.startsWith('setOption module-config'),
      );
    expect(moduleConfig({ trustAnchors: [] })).toEqual(['setOption module-config | iterator']);
    expect(moduleConfig({ trustAnchors: [], trustAnchorFiles: [] })).toEqual(['setOption module-config | iterator']);
    expect(moduleConfig({})).toEqual([]); // the root anchors
    expect(moduleConfig({ trustAnchors: ['lab.test. DS 2 13 2 CD'] })).toEqual([]);
    expect(moduleConfig({ trustAnchors: [], trustAnchorFiles: ['/dev/null'] })).toEqual([]);
    for (const key of ['trust-anchor', 'trust-anchor-file:', 'auto-trust-anchor-file', 'trusted-keys-file']) {
      expect(moduleConfig({ trustAnchors: [], options: { [key]: 'x' } })).toEqual([]);
    }
    // Applied after it, so libunbound takes the caller's.
    expect(moduleConfig({ trustAnchors: [], options: { 'module-config': 'validator iterator' } })).toEqual([
      'setOption module-config | iterator',
      'setOption module-config | validator iterator',
    ]);
  });

  it('anchorZones: the zones whose DNSKEY is primed, from the anchors given or the root', () => {
    expect(planContext().anchorZones).toEqual(['.']);
    expect(
      planContext({
        trustAnchors: [
          'Biloxi.Example. IN DS 1 13 2 AB',
          'biloxi.example 3600 IN DNSKEY 257 3 13 AA==',
          'lab.test. DS 2 13 2 CD',
        ],
      }).anchorZones,
    ).toEqual(['biloxi.example.', 'lab.test.']);
    expect(planContext({ trustAnchors: [] }).anchorZones).toEqual([]);
    expect(planContext({ trustAnchorFiles: ['/dev/null'] }).anchorZones).toEqual([]);
  });

  it('threads: 1..16, taken as given (no step on the context: each context gets the same steps)', () => {
    expect(planContext({ threads: 16 }).threads).toBe(16);
    expect(planContext({ threads: 2 }).steps.map((s) => s.option)).toEqual(planContext().steps.map((s) => s.option));
  });

  it('requireSecure with an anchor from any source: the root defaults, trustAnchors, or options', () => {
    expect(planContext({ requireSecure: true }).requireSecure).toBe(true);
    expect(planContext({ requireSecure: true, trustAnchors: ['lab.test. DS 2 13 2 CD'] }).requireSecure).toBe(true);
    const fromOptions = {
      requireSecure: true,
      trustAnchors: [],
      options: { 'trust-anchor': 'lab.test. DS 2 13 2 CD' },
    };
    expect(planContext(fromOptions).requireSecure).toBe(true);
  });

  it('name, priority, requireSecure and maxInFlight are the plugin own', () => {
    expect(planContext({ name: 'dnssec', priority: 10, requireSecure: true, maxInFlight: 7 })).toMatchObject({
      name: 'dnssec',
      priority: 10,
      requireSecure: true,
      maxInFlight: 7,
    });
  });
});

describe('planContext, val-clean-additional', () => {
  it("on by default (libunbound's default), off when options turn it off; the last setting wins", () => {
    expect(planContext().cleanAdditional).toBe(true);
    expect(planContext({ options: { 'val-clean-additional': 'yes' } }).cleanAdditional).toBe(true);
    expect(planContext({ options: { 'val-clean-additional': true } }).cleanAdditional).toBe(true);
    expect(planContext({ options: { 'val-clean-additional': 'no' } }).cleanAdditional).toBe(false);
    expect(planContext({ options: { 'val-clean-additional:': false } }).cleanAdditional).toBe(false);
    expect(planContext({ options: { 'val-clean-additional': ['yes', 'no'] } }).cleanAdditional).toBe(false);
    expect(planContext({ options: { 'val-clean-additional': ['no', 'yes'] } }).cleanAdditional).toBe(true);
    expect(planContext({ options: { 'val-permissive-mode': 'no' } }).cleanAdditional).toBe(true);
  });

  it('any other spelling or value counts as off (libunbound takes only "yes")', () => {
    expect(planContext({ options: { 'VAL-CLEAN-ADDITIONAL': 'yes ' } }).cleanAdditional).toBe(false);
    expect(planContext({ options: { 'val-clean-additional': 'YES' } }).cleanAdditional).toBe(false);
    expect(planContext({ options: { 'val-clean-additional': 1 } }).cleanAdditional).toBe(false);
  });
});

describe('planContext, process-wide settings (process-wide.ts)', () => {
  it('the ones libunbound keeps per process, each with its last value and the option it came from', () => {
    const plan = planContext({
      hosts: false,
      resolvConf: false,
      infraCacheMaxRtt: 250,
      debugLevel: 2,
      options: {
        'cache-max-ttl:': '5',
        'cache-min-ttl': ['1', '2'],
        'tcp-upstream': 'yes',
        'infra-cache-min-rtt': 400,
      },
    });
    expect(Object.fromEntries(plan.processWide)).toEqual({
      'infra-cache-max-rtt': { value: '250', option: 'infraCacheMaxRtt' },
      verbosity: { value: '2', option: 'debugLevel' },
      'cache-max-ttl': { value: '5', option: 'options["cache-max-ttl:"]' },
      'cache-min-ttl': { value: '2', option: 'options["cache-min-ttl"]' },
      'infra-cache-min-rtt': { value: '400', option: 'options["infra-cache-min-rtt"]' },
    });
  });

  it('by default, only the RTT cap the package sets', () => {
    expect([...planContext({ hosts: false, resolvConf: false }).processWide]).toEqual([
      ['infra-cache-max-rtt', { value: '1000', option: 'infraCacheMaxRtt' }],
    ]);
  });
});

describe('planContext, off-nominal: refused before libunbound', () => {
  it.each([
    [{ debugLevel: 6 }, 'unbound option debugLevel: 6 is not an integer 0..5'],
    [{ maxInFlight: 0 }, 'unbound option maxInFlight: 0 is not a positive integer'],
    [{ threads: 0 }, 'unbound option threads: 0 is not a positive integer'],
    [{ threads: 1.5 }, 'unbound option threads: 1.5 is not a positive integer'],
    [{ threads: '2' as unknown as number }, 'unbound option threads: 2 is not a positive integer'],
    [{ threads: 17 }, 'unbound option threads: 17 is more than 16'],
    [{ infraCacheMaxRtt: 1.5 }, 'unbound option infraCacheMaxRtt: 1.5 is not a positive integer'],
    [{ infraHostTtl: 0 }, 'unbound option infraHostTtl: 0 is not a positive integer'],
    [{ qnameMinimisation: 'yes' as unknown as boolean }, 'unbound option qnameMinimisation: must be true or false'],
    [{ requireSecure: 1 as unknown as boolean }, 'unbound option requireSecure: must be true or false'],
    [
      { requireSecure: true, trustAnchors: [] },
      'unbound option requireSecure: no trust anchor is given, so no answer could be secure',
    ],
    [
      { requireSecure: true, trustAnchorFiles: [], options: { 'module-config': 'validator iterator' } },
      'unbound option requireSecure: no trust anchor is given, so no answer could be secure',
    ],
    [{ name: ' ' }, 'unbound option name: must be a non-empty string'],
    [{ priority: Number.NaN }, 'unbound option priority: NaN is not a finite number'],
    [{ hosts: '' }, 'unbound option hosts: must be a non-empty string'],
    [{ nameservers: 'ns' as unknown as string[] }, 'unbound option nameservers: must be an array'],
    [
      { nameservers: ['ns.example'] },
      'unbound option nameservers[0]: "ns.example" is not an IP address (libunbound takes addresses, not host names)',
    ],
    [
      { stubZones: [{ name: 'x.test', addresses: [] }] },
      'unbound option stubZones[0].addresses: needs at least one address',
    ],
    [
      { stubZones: [{ name: 'a..b', addresses: ['127.0.0.1'] }] },
      'unbound option stubZones[0].name: empty label in name "a..b"',
    ],
    [
      { stubZones: [{ name: 'x.test', addresses: ['127.0.0.1#53'] }] },
      'unbound option stubZones[0].addresses[0]: "127.0.0.1#53" is not an IP address (libunbound takes addresses, ' +
        'not host names)',
    ],
    [
      { localZones: [{ name: 'test', type: 'see-through' }] },
      'unbound option localZones[0].type: "see-through" is not a local-zone type',
    ],
    [{ localData: [''] }, 'unbound option localData[0]: must be a non-empty string'],
    [{ trustAnchors: [' '] }, 'unbound option trustAnchors[0]: must be a non-empty string'],
    [{ insecureDomains: [''] }, 'unbound option insecureDomains[0]: needs a domain name'],
    [{ options: { 'bad name': 'x' } }, 'unbound option options["bad name"]: is not an unbound.conf option name'],
    [
      { options: { verbosity: {} as unknown as string } },
      'unbound option options["verbosity"]: [object Object] is not a string, number or boolean',
    ],
  ] as [UnboundOptions, string][])('%j', (options, message) => {
    expect(refusal(options)).toBe(message);
  });

  it('options that are not an object', () => {
    expect(refusal(null as unknown as UnboundOptions)).toBe('unbound option options: must be an object');
  });
});

describe('unboundAddress', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['192.0.2.1@5300', '192.0.2.1@5300'],
    ['192.0.2.1:5300', '192.0.2.1@5300'],
    ['::1', '::1'],
    ['::1@5353', '::1@5353'],
    ['[2001:db8::1]:53', '2001:db8::1@53'],
    ['[2001:db8::1]', '2001:db8::1'],
    [' 127.0.0.1 ', '127.0.0.1'],
  ])('%s -> %s', (input, output) => {
    expect(unboundAddress(input)).toBe(output);
  });

  it.each([
    ['', 'unbound option address: is empty'],
    [
      'sip.example',
      'unbound option address: "sip.example" is not an IP address (libunbound takes addresses, not host names)',
    ],
    ['192.0.2.1:0', 'unbound option address: port 0 is not 1..65535'],
    ['192.0.2.1@70000', 'unbound option address: port 70000 is not 1..65535'],
    [
      '192.0.2.300',
      'unbound option address: "192.0.2.300" is not an IP address (libunbound takes addresses, not host names)',
    ],
  ])('%j is refused', (input, message) => {
    expect(() => unboundAddress(input)).toThrow(message);
  });
});
