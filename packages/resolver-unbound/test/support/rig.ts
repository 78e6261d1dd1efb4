/**
 * The DNSSEC rig on loopback: three zones under test. (RFC 6761), signed here with fresh keys,
 * served by nsd on a free port, and the libunbound options that point at it and nowhere else.
 *   biloxi.test  signed: NAPTR, SRV, A, AAAA, CNAME; its DS is a trust anchor
 *   bogus.test   signed, then sip1's A changed: that RRset is bogus, the rest secure
 *   plain.test   unsigned: insecure (no anchor covers it)
 */
import { afterAll, beforeAll } from 'vitest';
import { makeQuery, type PluginAnswer, type ResolverPlugin } from '@dnscore/core/plugin';
import { startNsd, type NsdServer } from '../../../../test/support/nsd.js';
import { alterRecord, signZone, type SignedZone } from '../../../../test/support/dnssec.js';
import type { UnboundOptions } from '../../src/options.js';
import { startHoldProxy, type HoldProxy } from './hold-proxy.js';

export const BILOXI = `$ORIGIN biloxi.test.
$TTL 3600
@           IN  SOA   ns1 hostmaster 2026112901 7200 900 1209600 300
            IN  NS    ns1
ns1         IN  A     127.0.0.1
@           IN  NAPTR 90  50 "s" "SIP+D2T"  "" _sip._tcp
            IN  NAPTR 50  50 "s" "SIPS+D2T" "" _sips._tcp
            IN  NAPTR 100 50 "s" "SIP+D2U"  "" _sip._udp
_sips._tcp  IN  SRV   10 60 5061 sip1
_sip._tcp   IN  SRV   10 60 5060 sip1
_sip._udp   IN  SRV   20 0  5060 backup
            IN  SRV   10 60 5060 sip1
            IN  SRV   10 40 5060 sip2
sip1        IN  A     192.0.2.11
sip1        IN  AAAA  2001:db8::11
sip2  600   IN  A     192.0.2.12
backup      IN  A     192.0.2.20
www         IN  CNAME sip1
`;

export const BOGUS = `$ORIGIN bogus.test.
$TTL 3600
@     IN SOA  ns1 hostmaster 1 7200 900 1209600 300
      IN NS   ns1
ns1   IN A    127.0.0.1
sip1  IN A    192.0.2.31
sip1  IN AAAA 2001:db8::31
`;

export const PLAIN = `$ORIGIN plain.test.
$TTL 600
@     IN SOA  ns1 hostmaster 1 7200 900 1209600 300
      IN NS   ns1
ns1   IN A    127.0.0.1
www   IN A    192.0.2.80
`;

export interface Rig {
  readonly nsd: NsdServer;
  /** "127.0.0.1@PORT", as libunbound wants it. */
  readonly server: string;
  readonly biloxi: SignedZone;
  readonly bogus: SignedZone;
  /** Options that ask the rig for everything (stubs, RFC 6761 test. opened, no system files). */
  options(extra?: UnboundOptions): UnboundOptions;
  stop(): Promise<void>;
}

export async function startRig(): Promise<Rig> {
  const biloxi = await signZone('biloxi.test', BILOXI);
  const bogus = alterRecord(await signZone('bogus.test', BOGUS), {
    name: 'sip1.bogus.test.',
    type: 'A',
    data: '192.0.2.66',
  });
  const nsd = await startNsd([
    { name: 'biloxi.test', text: biloxi.text },
    { name: 'bogus.test', text: bogus.text },
    { name: 'plain.test', text: PLAIN },
  ]);
  const server = `${nsd.address}@${nsd.port}`;
  return {
    nsd,
    server,
    biloxi,
    bogus,
    options: (extra = {}) => rigOptions(server, [biloxi.ds, bogus.ds], extra),
    stop: () => nsd.stop(),
  };
}

/** Hermetic options: a stub per zone and one for "." so a stray name never leaves loopback. */
export function rigOptions(server: string, anchors: readonly string[], extra: UnboundOptions = {}): UnboundOptions {
  return {
    hosts: false,
    resolvConf: false,
    qnameMinimisation: false,
    stubZones: ['biloxi.test', 'bogus.test', 'plain.test', '.'].map((name) => ({ name, addresses: [server] })),
    // RFC 6761: libunbound answers NXDOMAIN for test. itself unless the zone is opened.
    localZones: [{ name: 'test', type: 'transparent' }],
    trustAnchors: anchors,
    ...extra,
  };
}

export interface HeldRig {
  readonly rig: Rig;
  /** Between libunbound and the rig's nsd: holds each query until released. */
  readonly proxy: HoldProxy;
  /** The rig's options asking the proxy for biloxi.test and ".". `extra` wins. */
  options(extra?: UnboundOptions): UnboundOptions;
  /** Asks `questions` at once, holds them until the first reaches the proxy, then releases all. */
  resolveAtOnce(resolver: ResolverPlugin, questions: readonly (readonly [string, string])[]): Promise<PluginAnswer[]>;
}

/** Six validated questions of biloxi.test: A, AAAA and SRV, on three names and two services. */
export const BILOXI_QUESTIONS: readonly (readonly [string, string])[] = [
  ['sip1.biloxi.test', 'A'],
  ['sip1.biloxi.test', 'AAAA'],
  ['sip2.biloxi.test', 'A'],
  ['backup.biloxi.test', 'A'],
  ['_sip._udp.biloxi.test', 'SRV'],
  ['_sips._tcp.biloxi.test', 'SRV'],
];

/** The rig behind a hold proxy for the enclosing describe: started before its tests, stopped after them. */
export function rigBehindHoldProxy(): HeldRig {
  let rig: Rig | undefined;
  let proxy: HoldProxy | undefined;
  beforeAll(async () => {
    rig = await startRig();
    proxy = await startHoldProxy(rig.nsd);
  });
  afterAll(async () => {
    await proxy?.close();
    await rig?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the held rig is started in beforeAll: use it in a test');
    return value;
  };
  return {
    get rig() {
      return started(rig);
    },
    get proxy() {
      return started(proxy);
    },
    options(extra = {}) {
      const server = started(proxy).server;
      return started(rig).options({
        stubZones: [
          { name: 'biloxi.test', addresses: [server] },
          { name: '.', addresses: [server] },
        ],
        ...extra,
      });
    },
    async resolveAtOnce(resolver, questions) {
      const signal = new AbortController().signal;
      const pending = questions.map(([name, type]) => resolver.resolve(makeQuery(name, type), signal));
      await started(proxy).waitFor(questions[0]![0]);
      started(proxy).release();
      return Promise.all(pending);
    },
  };
}
