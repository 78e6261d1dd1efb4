/**
 * The PJSIP callback contract (asterisk-core-dns.md section 5): exactly once, never
 * synchronously, never while a query is still out, count >= 1 on success, PJSIP's types and
 * flags, priority and weight filled; setServerFailed() puts a server last.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DnsCore,
  InvalidArgumentError,
  ZoneResolver,
  seededRandom,
  type Clock,
  type ResolverPlugin,
} from '@dnscore/core';
import { hostInfoFromUri } from '../src/host-info.js';
import { createPjsipAdapter, type PjsipAdapterOptions, type PjsipAdapter } from '../src/pjsip-adapter.js';
import {
  PjStatus,
  PjsipTransportFlag as Flag,
  PjsipTransportType as Type,
  type PjsipHostInfo,
  type PjsipServerAddresses,
} from '../src/pjsip-types.js';
import { gated } from './support/gated-plugin.js';

const BILOXI = fileURLToPath(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url));

function biloxi(options: PjsipAdapterOptions = {}, seed = 1): PjsipAdapter {
  return createPjsipAdapter(
    new DnsCore([new ZoneResolver({ files: [BILOXI] })], { random: seededRandom(seed) }),
    options,
  );
}

interface Called {
  readonly status: number;
  readonly token: unknown;
  readonly addresses: PjsipServerAddresses | null;
  /** Calls counted one turn of the event loop after the first. */
  readonly calls: number;
  /** The callback ran before resolve() returned. */
  readonly synchronous: boolean;
}

function call(
  adapter: PjsipAdapter,
  target: PjsipHostInfo,
  token: unknown = { id: 7 },
  onCallback?: () => void,
): Promise<Called> {
  return new Promise((resolve) => {
    let calls = 0;
    let returned = false;
    adapter.resolve({ opaque: 'resolver' }, { opaque: 'pool' }, target, token, (status, back, addresses) => {
      calls++;
      onCallback?.();
      const synchronous = !returned;
      if (calls === 1)
        setImmediate(() => setImmediate(() => resolve({ status, token: back, addresses, calls, synchronous })));
    });
    returned = true;
  });
}

const entries = (addresses: PjsipServerAddresses | null) =>
  addresses!.entry.map(
    (e) => `${e.type} ${e.addr.address}:${e.addr.port} ${e.name} ${e.priority}/${e.weight} len ${e.addr_len}`,
  );

describe('createPjsipAdapter: nominal', () => {
  it('resolves RFC 3263 (NAPTR -> SIPS SRV) with PJSIP types, priority and weight filled, once and later', async () => {
    const { status, token, addresses, calls, synchronous } = await call(
      biloxi(),
      hostInfoFromUri('sip:bob@biloxi.example'),
    );
    expect([status, calls, synchronous]).toEqual([PjStatus.PJ_SUCCESS, 1, false]);
    expect(token).toEqual({ id: 7 });
    expect(addresses!.count).toBe(3);
    expect(entries(addresses)).toEqual([
      `${Type.TLS} 203.0.113.11:5061 sip1.biloxi.example 10/60 len 16`,
      `${Type.TLS} 203.0.113.12:5061 sip2.biloxi.example 10/40 len 16`,
      `${Type.TLS} 198.51.100.50:5061 backup.biloxi.example 20/0 len 16`,
    ]);
  });

  it('follows the type PJSIP gives: transport=udp is UDP SRV, an explicit port is A at that port', async () => {
    const udp = await call(biloxi(), hostInfoFromUri('sip:bob@biloxi.example;transport=udp'));
    expect(entries(udp.addresses).map((e) => e.split(' ').slice(0, 2).join(' '))).toEqual([
      `${Type.UDP} 203.0.113.11:5060`,
      `${Type.UDP} 203.0.113.12:5060`,
      `${Type.UDP} 198.51.100.50:5060`,
    ]);
    const port = await call(biloxi(), {
      flag: 0,
      type: Type.UNSPECIFIED,
      addr: { host: 'sip1.biloxi.example', port: 5070 },
    });
    expect(entries(port.addresses)).toEqual([`${Type.UDP} 203.0.113.11:5070 sip1.biloxi.example 0/0 len 16`]);
  });

  it('an IP literal is one entry, still called back asynchronously (pjproject #2641)', async () => {
    const v4 = await call(biloxi(), hostInfoFromUri('sip:192.0.2.9:5080'));
    expect([v4.synchronous, entries(v4.addresses)]).toEqual([
      false,
      [`${Type.UDP} 192.0.2.9:5080 192.0.2.9 0/0 len 16`],
    ]);
    const v6 = await call(biloxi(), hostInfoFromUri('sips:[2001:db8::9]'));
    expect(entries(v6.addresses)).toEqual([`${Type.TLS6} 2001:db8::9:5061 2001:db8::9 0/0 len 28`]);
  });

  it('setServerFailed puts a server last in the next callbacks until its time is up', async () => {
    let now = 1_700_000_000_000;
    const clock: Clock = { now: () => now };
    const adapter = biloxi({ clock });
    const target = hostInfoFromUri('sips:bob@biloxi.example');
    adapter.setServerFailed({ address: '203.0.113.11', port: 5061, type: Type.TLS }, 30_000);
    expect(adapter.isServerFailed({ address: '203.0.113.11', port: 5061 })).toBe(true);
    expect(entries((await call(adapter, target)).addresses).map((e) => e.split(' ')[1])).toEqual([
      '203.0.113.12:5061',
      '198.51.100.50:5061',
      '203.0.113.11:5061',
    ]);
    now += 30_001;
    expect(adapter.isServerFailed({ address: '203.0.113.11', port: 5061 })).toBe(false);
    expect(entries((await call(adapter, target)).addresses)[0]).toContain('203.0.113.11:5061');
  });

  it('a failed server without a type is failed for every transport; clearFailedServers forgets them all', async () => {
    const adapter = biloxi();
    adapter.setServerFailed({ address: '203.0.113.12', port: 5060 }, 60_000);
    for (const type of [Type.UDP, Type.TCP, Type.TLS])
      expect(adapter.isServerFailed({ address: '203.0.113.12', port: 5060, type })).toBe(true);
    expect(adapter.isServerFailed({ address: '203.0.113.12', port: 5061, type: Type.TLS })).toBe(false);
    expect(adapter.locator.penaltyBox.size).toBe(3);
    adapter.clearFailedServers();
    expect(adapter.isServerFailed({ address: '203.0.113.12', port: 5060 })).toBe(false);
  });

  it('hands over at most maxAddresses entries', async () => {
    const { addresses } = await call(biloxi({ maxAddresses: 2 }), hostInfoFromUri('sips:bob@biloxi.example'));
    expect([addresses!.count, addresses!.entry.length]).toEqual([2, 2]);
  });
});

/**
 * NAPTR for UDP at order 10 and TCP at order 20, each to its own SRV owner; the plain SRV owners
 * of RFC 3263's fallback name other servers, so the entries show which walk ran.
 */
const POOL = `$ORIGIN pool.example.
$TTL 300
@ IN SOA ns h 1 3600 600 86400 300
@ IN NAPTR 10 10 "s" "SIP+D2U" "" _sip._udp.edge
@ IN NAPTR 20 10 "s" "SIP+D2T" "" _sip._tcp.edge
_sip._udp.edge IN SRV 10 0 5070 edge-udp
_sip._tcp.edge IN SRV 10 0 5070 edge-tcp
_sip._tcp.edge IN SRV 20 0 5070 edge-tcp2
_sip._udp IN SRV 10 0 5060 plain
_sip._tcp IN SRV 10 0 5060 plain
edge-udp IN A 192.0.2.71
edge-tcp IN A 192.0.2.72
edge-tcp2 IN A 192.0.2.73
plain IN A 192.0.2.60
`;

function pool(options: PjsipAdapterOptions = {}): PjsipAdapter {
  return createPjsipAdapter(new DnsCore([new ZoneResolver({ zones: [{ text: POOL }] })]), { ipv6: false, ...options });
}

const where = async (adapter: PjsipAdapter, info: PjsipHostInfo) =>
  entries((await call(adapter, info)).addresses).map((e) => e.split(' ').slice(0, 2).join(' '));

describe('createPjsipAdapter: which RFC 3263 walk a host info gets', () => {
  const host = (type: number, flag: number, port = 0): PjsipHostInfo => ({
    type,
    flag,
    addr: { host: 'pool.example', port },
  });

  it('no type and no port (sip:domain): the NAPTR walk, as @dnscore/sip does for the URI', async () => {
    expect(await where(pool(), host(Type.UNSPECIFIED, 0))).toEqual([`${Type.UDP} 192.0.2.71:5070`]);
  });

  it('a type with its flag came from transport= in the URI: no NAPTR, that SRV owner (RFC 3263 4.1)', async () => {
    expect(await where(pool(), hostInfoFromUri('sip:pool.example;transport=tcp'))).toEqual([
      `${Type.TCP} 192.0.2.60:5060`,
    ]);
  });

  it('a type without its flag is the transport selector (pjsip_process_route_set): NAPTR over it', async () => {
    // A sip: URI without transport=: PJSIP sets the selector's type and leaves flag 0. The URI asks
    // for NAPTR; only the transport the account is bound to may be used (RFC 3263 4.1).
    expect(await where(pool(), host(Type.TCP, 0))).toEqual([
      `${Type.TCP} 192.0.2.72:5070`,
      `${Type.TCP} 192.0.2.73:5070`,
    ]);
    expect(await where(pool(), host(Type.UNSPECIFIED, Flag.RELIABLE))).toEqual([
      `${Type.TCP} 192.0.2.72:5070`,
      `${Type.TCP} 192.0.2.73:5070`,
    ]);
    expect(await where(pool(), host(Type.UDP, 0))).toEqual([`${Type.UDP} 192.0.2.71:5070`]);
    // A sip: URI over a TLS selector: the SIPS+D2T NAPTR, still a sip: resolution (its DNSSEC policy).
    const tls = await call(biloxi(), { type: Type.TLS, flag: 0, addr: { host: 'biloxi.example', port: 0 } });
    expect(entries(tls.addresses).map((e) => e.split(' ').slice(0, 2).join(' '))).toEqual([
      `${Type.TLS} 203.0.113.11:5061`,
      `${Type.TLS} 203.0.113.12:5061`,
      `${Type.TLS} 198.51.100.50:5061`,
    ]);
    // With a port there is no NAPTR or SRV whatever set the type: A at that port.
    expect(await where(pool(), { type: Type.TCP, flag: 0, addr: { host: 'plain.pool.example', port: 5080 } })).toEqual([
      `${Type.TCP} 192.0.2.60:5080`,
    ]);
  });

  it('setServerFailed counts for the selector walk too: one penalty box', async () => {
    const adapter = pool();
    adapter.setServerFailed({ address: '192.0.2.72', port: 5070, type: Type.TCP }, 30_000);
    expect(await where(adapter, host(Type.TCP, 0))).toEqual([
      `${Type.TCP} 192.0.2.73:5070`,
      `${Type.TCP} 192.0.2.72:5070`,
    ]);
    adapter.clearFailedServers();
    expect(await where(adapter, host(Type.TCP, 0))).toEqual([
      `${Type.TCP} 192.0.2.72:5070`,
      `${Type.TCP} 192.0.2.73:5070`,
    ]);
  });

  it('an IPv6 type (an IPv6 transport selector, UDP6/TCP6) gets IPv6 addresses only, as pjsip_resolve()', async () => {
    const zone =
      '$ORIGIN v.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\n_sip._udp IN SRV 10 0 5060 dual\n' +
      '_sip._tcp IN SRV 10 0 5060 dual\ndual IN A 192.0.2.1\ndual IN AAAA 2001:db8::1\n';
    const adapter = createPjsipAdapter(new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })]));
    const at = (type: number, flag: number, host = 'v.example', port = 0) =>
      where(adapter, { type, flag, addr: { host, port } });
    expect(await at(Type.UDP6, 0)).toEqual([`${Type.UDP6} 2001:db8::1:5060`]);
    expect(await at(Type.TCP6, 0)).toEqual([`${Type.TCP6} 2001:db8::1:5060`]);
    expect(await at(Type.UDP6, Flag.DATAGRAM, 'dual.v.example', 5070)).toEqual([`${Type.UDP6} 2001:db8::1:5070`]);
    // An IPv4 type (no IPV6 bit) keeps both families.
    expect(await at(Type.UDP, 0)).toEqual([`${Type.UDP6} 2001:db8::1:5060`, `${Type.UDP} 192.0.2.1:5060`]);
    // An IPv4 literal cannot go over an IPv6 transport; nor anything when the adapter has IPv6 off.
    const v4 = await call(adapter, { type: Type.UDP6, flag: 0, addr: { host: '192.0.2.5', port: 5060 } });
    expect([v4.status, v4.addresses, v4.calls]).toEqual([PjStatus.PJ_EAFNOTSUP, null, 1]);
    const off = createPjsipAdapter(new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })]), { ipv6: false });
    const none = await call(off, { type: Type.UDP6, flag: 0, addr: { host: 'v.example', port: 0 } });
    expect([none.status, none.addresses, none.calls]).toEqual([PjStatus.PJ_EAFNOTSUP, null, 1]);
  });

  it('a selector transport the adapter was not given is refused as before', async () => {
    const { status } = await call(pool({ transports: ['udp'] }), host(Type.TCP, 0));
    expect(status).toBe(PjStatus.PJSIP_EUNSUPTRANSPORT);
  });
});

describe('createPjsipAdapter: off-nominal', () => {
  it('nothing found: PJLIB_UTIL_EDNSNOANSWERREC, no addresses, once', async () => {
    const { status, addresses, calls } = await call(biloxi(), hostInfoFromUri('sip:bob@nowhere.biloxi.example'));
    expect([status, addresses, calls]).toEqual([PjStatus.PJLIB_UTIL_EDNSNOANSWERREC, null, 1]);
  });

  it('nothing found because a server said SERVFAIL: PJLIB_UTIL_EDNS_SERVFAIL, as PJSIP says an rcode 2', async () => {
    const zone = new ZoneResolver({ files: [BILOXI] });
    const plugin: ResolverPlugin = {
      name: 'servfail-for-broken',
      priority: 1,
      available: () => true,
      close: () => zone.close(),
      resolve: (query, signal) =>
        query.name.endsWith('broken.example') || (query.name === 'biloxi.example' && query.type === 35)
          ? Promise.resolve({ rcode: 2 })
          : zone.resolve(query, signal),
    };
    const adapter = createPjsipAdapter(new DnsCore([plugin]));
    // Two calls at once: the SERVFAIL of one is not the other's.
    const [broken, missing] = await Promise.all([
      call(adapter, hostInfoFromUri('sip:bob@broken.example')),
      call(adapter, hostInfoFromUri('sip:bob@nowhere.biloxi.example')),
    ]);
    expect([broken.status, broken.addresses, broken.calls]).toEqual([PjStatus.PJLIB_UTIL_EDNS_SERVFAIL, null, 1]);
    expect([missing.status, missing.addresses, missing.calls]).toEqual([PjStatus.PJLIB_UTIL_EDNSNOANSWERREC, null, 1]);
    // A SERVFAIL that the walk got past (NAPTR, then SRV found targets) is no failure.
    const found = await call(adapter, hostInfoFromUri('sip:bob@biloxi.example'));
    expect([found.status, found.addresses?.count]).toEqual([PjStatus.PJ_SUCCESS, 9]);
  });

  it('no adapter could answer: PJ_ERESOLVE', async () => {
    const { status } = await call(biloxi(), hostInfoFromUri('sip:bob@other.example'));
    expect(status).toBe(PjStatus.PJ_ERESOLVE);
  });

  it('a host info PJSIP could not have built: PJ_EINVAL, called back once, later', async () => {
    const bad = await call(biloxi(), { flag: 0, type: 0, addr: { host: '', port: 0 } });
    expect([bad.status, bad.addresses, bad.calls, bad.synchronous]).toEqual([PjStatus.PJ_EINVAL, null, 1, false]);
    expect((await call(biloxi(), null as unknown as PjsipHostInfo)).status).toBe(PjStatus.PJ_EINVAL);
  });

  it('a transport dnscore cannot reach: PJSIP_EUNSUPTRANSPORT', async () => {
    expect(
      (await call(biloxi(), { flag: Flag.RELIABLE, type: Type.SCTP, addr: { host: 'biloxi.example', port: 0 } }))
        .status,
    ).toBe(PjStatus.PJSIP_EUNSUPTRANSPORT);
    expect(
      (await call(biloxi({ transports: ['udp', 'tcp'] }), hostInfoFromUri('sips:bob@biloxi.example'))).status,
    ).toBe(PjStatus.PJSIP_EUNSUPTRANSPORT);
  });

  it(
    'never calls back while a query is still out: a bogus AAAA ends the resolution, the held A is waited ' + 'for',
    async () => {
      const zone =
        '$ORIGIN h.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\nhost IN A 192.0.2.1\nhost IN AAAA 2001:db8::1\n';
      const plugin = gated(zone, { bogus: ['host.h.example AAAA'] });
      const adapter = createPjsipAdapter(new DnsCore([plugin]));
      plugin.hold('host.h.example A');
      let pendingAtCallback = -1;
      const called = call(
        adapter,
        { flag: 0, type: 0, addr: { host: 'host.h.example', port: 5060 } },
        't',
        () => (pendingAtCallback = plugin.pending),
      );
      await new Promise((r) => setImmediate(() => setImmediate(r)));
      expect(plugin.asked).toEqual(['host.h.example AAAA', 'host.h.example A']);
      expect(pendingAtCallback).toBe(-1); // the bogus answer is in, the A is not: no callback yet
      plugin.release('host.h.example A');
      const { status, calls } = await called;
      expect([status, calls, pendingAtCallback]).toEqual([PjStatus.PJLIB_UTIL_EDNS_SERVFAIL, 1, 0]);
    },
  );

  it('refuses a missing callback and bad options at once', () => {
    const adapter = biloxi();
    expect(() => adapter.resolve(null, null, hostInfoFromUri('sip:biloxi.example'), 1, undefined as never)).toThrow(
      InvalidArgumentError,
    );
    expect(() => biloxi({ maxAddresses: 0 })).toThrow(/maxAddresses/);
    expect(() => createPjsipAdapter(undefined as never)).toThrow(/DnsApi/);
  });

  it('refuses bad failed-server reports', () => {
    const adapter = biloxi();
    expect(() => adapter.setServerFailed({ address: 'not-an-ip', port: 5060 }, 1000)).toThrow(/not an IP address/);
    expect(() => adapter.setServerFailed({ address: '192.0.2.1', port: 5060 }, -1)).toThrow(/non-negative/);
    expect(() => adapter.setServerFailed({ address: '192.0.2.1', port: 0 }, 1000)).toThrow(/port 0/);
    expect(() => adapter.setServerFailed({ address: '192.0.2.1', port: 5060, type: Type.SCTP }, 1000)).toThrow(
      /not UDP, TCP or TLS/,
    );
  });
});
