/**
 * The contract: the same questions asked of nsd on loopback by node:dns's Resolver and by
 * NodeDnsPromiseResolver over dnscore's system backend give the same records, shapes and errors
 * (code, errno, syscall, hostname, message). SRV and NAPTR are compared as sets: dnscore gives
 * them in RFC 2782 / RFC 3403 order, c-ares in the order of the answer.
 */
import dns from 'node:dns';
import { DnsCore } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../../../test/support/ports.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { NodeDnsPromiseResolver, NodeDnsResolver, createLookup, type NodeRrtype } from '../src/index.js';
import { startRcodeServer, startSilentServer, type StubServer } from './support/stub-servers.js';
import { testZones } from './support/zone.js';

let nsd: NsdServer;
const stubs: StubServer[] = [];

beforeAll(async () => {
  nsd = await startNsd(testZones());
});
afterAll(async () => {
  await nsd?.stop();
  await Promise.all(stubs.map((s) => s.stop()));
});

/** dnscore's system backend asking only `endpoint`, once, without the hosts file or search list. */
function systemCore(endpoint: string): DnsCore {
  return new DnsCore([
    new SystemResolver(
      { nameservers: [endpoint], search: [], ndots: 1, resolvConf: '/dev/null' },
      { timeoutMs: 300, attempts: 1 },
    ),
  ]);
}

function nodeResolver(endpoint: string): dns.promises.Resolver {
  const resolver = new dns.promises.Resolver({ timeout: 300, tries: 1 });
  resolver.setServers([endpoint]);
  return resolver;
}

/** What a call gave: the records (SRV/NAPTR sorted) or the error's node:dns fields. */
async function outcome(call: () => Promise<unknown>, sort = false): Promise<unknown> {
  try {
    const value = await call();
    return sort && Array.isArray(value)
      ? [...value].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
      : value;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { hostname?: string };
    return { error: { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, hostname: e.hostname } };
  }
}

/** Equal, and with the objects' keys in the same order (they print so: console.log, JSON). */
function expectSame(ours: unknown, theirs: unknown, what?: string): void {
  expect(ours, what).toEqual(theirs);
  expect(JSON.stringify(ours), what).toBe(JSON.stringify(theirs));
}

const QUESTIONS: [string, NodeRrtype][] = [
  ['both.node.example', 'A'],
  ['v4.node.example', 'A'],
  ['alias.node.example', 'A'],
  ['both.node.example.', 'A'],
  ['nx.node.example', 'A'],
  ['text.node.example', 'A'],
  ['both.node.example', 'AAAA'],
  ['v4.node.example', 'AAAA'],
  ['alias.node.example', 'CNAME'],
  ['v4.node.example', 'CNAME'],
  ['mail.node.example', 'MX'],
  ['nomail.node.example', 'MX'],
  ['nx.node.example', 'MX'],
  ['text.node.example', 'TXT'],
  ['bytes.node.example', 'TXT'], // not UTF-8: node:dns gives a character per byte
  ['bytes.node.example', 'ANY'],
  ['_sip._udp.node.example', 'SRV'],
  ['v4.node.example', 'SRV'],
  ['node.example', 'NAPTR'],
  ['node.example', 'SOA'],
  ['nx.node.example', 'SOA'],
  ['node.example', 'NS'],
  ['ca.node.example', 'CAA'],
  ['v4.node.example', 'CAA'],
  ['1.0.0.127.in-addr.arpa', 'PTR'],
  ['both.node.example', 'ANY'],
  ['ca.node.example', 'ANY'],
  ['text.node.example', 'ANY'],
  ['mail.node.example', 'ANY'],
  ['alias.node.example', 'ANY'],
  ['1.0.0.127.in-addr.arpa', 'ANY'],
  ['_sip._udp.node.example', 'ANY'],
  ['outside.example', 'A'], // nsd serves no such zone: REFUSED
  ['a..node.example', 'A'],
  ['a b.node.example', 'A'], // c-ares refuses the name: EBADNAME, nothing asked
  ['a+b.node.example', 'MX'],
  ['a\\ b.node.example', 'A'],
  ['a@b.node.example', 'TXT'],
  ['a\tb.node.example', 'A'],
  ['a_b.node.example', 'A'], // c-ares asks these: NXDOMAIN
  ['a/b.node.example', 'A'],
  ['a\\.b.node.example', 'A'],
  ['*.node.example', 'A'],
  ['', 'A'], // c-ares asks the root, which nsd does not serve: REFUSED
  ['', 'NS'],
  ['.', 'SOA'],
];

describe('NodeDnsPromiseResolver against node:dns, both asking nsd', () => {
  test.each(QUESTIONS)('resolve(%s, %s)', async (name, rrtype) => {
    const ours = new NodeDnsPromiseResolver(systemCore(nsd.endpoint));
    const theirs = nodeResolver(nsd.endpoint);
    const sort = rrtype === 'SRV' || rrtype === 'NAPTR';
    const expected = await outcome(() => theirs.resolve(name, rrtype), sort);
    expectSame(await outcome(() => ours.resolve(name, rrtype), sort), expected);
  });

  test('each resolveX method and its options give what node:dns gives', async () => {
    const ours = new NodeDnsPromiseResolver(systemCore(nsd.endpoint));
    const theirs = nodeResolver(nsd.endpoint);
    const calls: [string, (r: dns.promises.Resolver | NodeDnsPromiseResolver) => Promise<unknown>][] = [
      ['resolve4 ttl', (r) => r.resolve4('both.node.example', { ttl: true })],
      ['resolve6 ttl', (r) => r.resolve6('both.node.example', { ttl: true })],
      ['resolve6 ttl NODATA', (r) => r.resolve6('v4.node.example', { ttl: true })],
      ['resolve4 alias ttl', (r) => r.resolve4('alias.node.example', { ttl: true })],
      ['resolve4 short-lived alias ttl', (r) => r.resolve4('brief.node.example', { ttl: true })],
      ['resolve6 short-lived alias ttl', (r) => r.resolve6('brief.node.example', { ttl: true })],
      ['resolve4', (r) => r.resolve4('v4.node.example')],
      ['resolve6', (r) => r.resolve6('v6.node.example')],
      ['resolveAny', (r) => r.resolveAny('node.example')],
      ['resolveCaa', (r) => r.resolveCaa('ca.node.example')],
      ['resolveCname', (r) => r.resolveCname('alias.node.example')],
      ['resolveMx', (r) => r.resolveMx('mail.node.example')],
      ['resolveNs', (r) => r.resolveNs('node.example')],
      ['resolvePtr', (r) => r.resolvePtr('1.0.0.127.in-addr.arpa')],
      ['resolveSoa', (r) => r.resolveSoa('node.example')],
      ['resolveTxt', (r) => r.resolveTxt('text.node.example')],
      ['resolveTxt nx', (r) => r.resolveTxt('nx.node.example')],
      ['resolveTxt bytes', (r) => r.resolveTxt('bytes.node.example')],
      // 127.0.0.2: c-ares reads /etc/hosts before asking, and 127.0.0.1 is in it
      ['reverse', (r) => r.reverse('127.0.0.2')],
      ['reverse ::1', (r) => r.reverse('::1')],
      ['reverse not an address', (r) => r.reverse('zz')],
      ['resolve default type', (r) => r.resolve('v4.node.example')],
    ];
    for (const [what, run] of calls) {
      expectSame(await outcome(() => run(ours)), await outcome(() => run(theirs)), what);
    }
    for (const [what, run] of [
      ['resolveSrv', (r: dns.promises.Resolver | NodeDnsPromiseResolver) => r.resolveSrv('_sip._udp.node.example')],
      ['resolveNaptr', (r: dns.promises.Resolver | NodeDnsPromiseResolver) => r.resolveNaptr('node.example')],
    ] as const) {
      expectSame(await outcome(() => run(ours), true), await outcome(() => run(theirs), true), what);
    }
  });

  test('SRV comes in RFC 2782 order: priority first, the weight-0 record of its priority last or first', async () => {
    const ours = new NodeDnsPromiseResolver(systemCore(nsd.endpoint));
    const srv = await ours.resolveSrv('_sip._udp.node.example');
    expect(srv.map((r) => r.priority)).toEqual([10, 10, 20]);
    expect(srv[2]).toEqual({ name: 'sip3.node.example', port: 5064, priority: 20, weight: 0 });
    const naptr = await ours.resolveNaptr('node.example');
    expect(naptr.map((r) => r.order)).toEqual([10, 20]);
  });

  test("argument errors are node:dns's, thrown at once", () => {
    const ours = new NodeDnsPromiseResolver(systemCore(nsd.endpoint));
    const theirs = nodeResolver(nsd.endpoint);
    const thrown = (fn: () => unknown) => {
      try {
        fn();
        return undefined;
      } catch (error) {
        return {
          name: (error as Error).name,
          code: (error as { code?: string }).code,
          message: (error as Error).message,
        };
      }
    };
    for (const run of [
      (r: dns.promises.Resolver | NodeDnsPromiseResolver) => r.resolve('x.example', 'FOO' as 'A'),
      (r: dns.promises.Resolver | NodeDnsPromiseResolver) => r.resolve4(5 as never),
      (r: dns.promises.Resolver | NodeDnsPromiseResolver) => r.resolveMx(undefined as never),
      (r: dns.promises.Resolver | NodeDnsPromiseResolver) => r.setServers(['x']),
      (r: dns.promises.Resolver | NodeDnsPromiseResolver) => r.setServers('1.2.3.4' as never),
    ]) {
      const expected = thrown(() => run(theirs));
      expect(expected).toBeDefined();
      expect(thrown(() => run(ours))).toEqual(expected);
    }
    // node:dns takes port 99999 as 34463 (modulo 65536); a port outside 1..65535 is refused here
    expect(thrown(() => ours.setServers(['1.2.3.4:99999']))).toEqual({
      name: 'TypeError',
      code: 'ERR_INVALID_IP_ADDRESS',
      message: 'Invalid IP address: 1.2.3.4:99999',
    });
  });

  test('SERVFAIL, REFUSED, NOTIMP and FORMERR servers: ESERVFAIL, EREFUSED, ENOTIMP, EFORMERR', async () => {
    for (const rcode of ['SERVFAIL', 'REFUSED', 'NOTIMP', 'FORMERR'] as const) {
      const server = await startRcodeServer(rcode);
      stubs.push(server);
      const ours = new NodeDnsPromiseResolver(systemCore(server.endpoint));
      const expected = await outcome(() => nodeResolver(server.endpoint).resolve4('x.node.example'));
      expect(expected).toMatchObject({ error: { code: `E${rcode}` } });
      expect(await outcome(() => ours.resolve4('x.node.example'))).toEqual(expected);
    }
  });

  test('a server that never answers: ETIMEOUT, as node:dns', async () => {
    const silent = await startSilentServer();
    stubs.push(silent);
    const expected = await outcome(() => nodeResolver(silent.endpoint).resolve4('x.node.example'));
    expect(expected).toMatchObject({ error: { code: 'ETIMEOUT' } });
    expect(
      await outcome(() => new NodeDnsPromiseResolver(systemCore(silent.endpoint)).resolve4('x.node.example')),
    ).toEqual(expected);
  });

  test('a closed port: node:dns sees ICMP (ECONNREFUSED), the system backend times out (ETIMEOUT)', async () => {
    const closed = `127.0.0.1:${await freePort()}`;
    const refused = await outcome(() => nodeResolver(closed).resolveTxt('x.node.example'));
    expect(refused).toMatchObject({ error: { code: 'ECONNREFUSED', syscall: 'queryTxt' } });
    // resolver-system sends from unconnected UDP sockets, which never see ICMP port unreachable
    expect(await outcome(() => new NodeDnsPromiseResolver(systemCore(closed)).resolveTxt('x.node.example'))).toEqual({
      error: {
        code: 'ETIMEOUT',
        errno: undefined,
        syscall: 'queryTxt',
        hostname: 'x.node.example',
        message: 'queryTxt ETIMEOUT x.node.example',
      },
    });
  });

  test('cancel() ends every call in flight with ECANCELLED, in both forms, as node:dns does', async () => {
    const silent = await startSilentServer();
    stubs.push(silent);
    const ours = new NodeDnsPromiseResolver(systemCore(silent.endpoint));
    const theirs = nodeResolver(silent.endpoint);
    const pending = [ours, theirs].map((r) => outcome(() => r.resolveSrv('_sip._tcp.node.example')));
    ours.cancel();
    theirs.cancel();
    const [a, b] = await Promise.all(pending);
    expect(b).toMatchObject({ error: { code: 'ECANCELLED', syscall: 'querySrv' } });
    expect(a).toEqual(b);
    // later calls are not cancelled
    const again = new NodeDnsPromiseResolver(systemCore(nsd.endpoint));
    again.cancel();
    expect(await again.resolve4('v4.node.example')).toEqual(['127.0.0.1', '127.0.0.2']);

    const callbackForm = new NodeDnsResolver(systemCore(silent.endpoint));
    const cancelled = new Promise<unknown>((resolve) =>
      callbackForm.resolve4('x.node.example', (error) => resolve(error)),
    );
    callbackForm.cancel();
    expect(await cancelled).toMatchObject({ code: 'ECANCELLED', syscall: 'queryA', hostname: 'x.node.example' });
  });

  test('the per-call timeout of the Resolver ends a call with ETIMEOUT', async () => {
    const silent = await startSilentServer();
    stubs.push(silent);
    const core = new DnsCore([
      new SystemResolver({ nameservers: [silent.endpoint], search: [], resolvConf: '/dev/null' }, { timeoutMs: 5000 }),
    ]);
    const ours = new NodeDnsPromiseResolver(core, { timeout: 100 });
    await expect(ours.resolveTxt('x.node.example')).rejects.toMatchObject({
      code: 'ETIMEOUT',
      syscall: 'queryTxt',
      hostname: 'x.node.example',
      message: 'queryTxt ETIMEOUT x.node.example',
    });
  });

  test('the callback form gives the same records and errors as dns.Resolver', async () => {
    const ours = new NodeDnsResolver(systemCore(nsd.endpoint));
    const theirs = new dns.Resolver({ timeout: 300, tries: 1 });
    theirs.setServers([nsd.endpoint]);
    const viaCallback = (r: NodeDnsResolver | dns.Resolver, method: string, ...args: unknown[]) =>
      new Promise((resolve) =>
        (r as unknown as Record<string, (...a: unknown[]) => void>)[method]!(
          ...args,
          (error: Error | null, value: unknown) =>
            resolve(error ? { code: (error as NodeJS.ErrnoException).code, message: error.message } : value),
        ),
      );
    for (const [method, ...args] of [
      ['resolve4', 'both.node.example'],
      ['resolve4', 'both.node.example', { ttl: true }],
      ['resolve6', 'both.node.example', { ttl: true }],
      ['resolve', 'text.node.example', 'TXT'],
      ['resolve', 'v4.node.example'],
      ['resolveMx', 'mail.node.example'],
      ['resolveCaa', 'ca.node.example'],
      ['resolveSoa', 'node.example'],
      ['resolveAny', 'both.node.example'],
      ['reverse', '127.0.0.2'],
      ['resolveTxt', 'nx.node.example'],
      ['resolveCname', 'v4.node.example'],
    ] as [string, ...unknown[]][]) {
      expect(await viaCallback(ours, method, ...args), method).toEqual(await viaCallback(theirs, method, ...args));
    }
  });

  test('setServers through useServers moves the questions; getServers reads like node:dns', async () => {
    const silent = await startSilentServer();
    stubs.push(silent);
    const ours = new NodeDnsPromiseResolver(systemCore(silent.endpoint), {
      servers: [silent.endpoint],
      useServers: (servers) => systemCore(`${servers[0]!.address}:${servers[0]!.port}`),
    });
    expect(ours.getServers()).toEqual([silent.endpoint]);
    ours.setServers([nsd.endpoint, '[::1]:53', '::1', '192.0.2.1:53']);
    const theirs = new dns.Resolver();
    theirs.setServers([nsd.endpoint, '[::1]:53', '::1', '192.0.2.1:53']);
    expect(ours.getServers()).toEqual(theirs.getServers());
    expect(await ours.resolve4('v4.node.example')).toEqual(['127.0.0.1', '127.0.0.2']);
    expect(silent.received).toBe(0);
    expect(() => new NodeDnsPromiseResolver(systemCore(nsd.endpoint)).setServers(['127.0.0.1'])).toThrow(
      expect.objectContaining({ code: 'ERR_METHOD_NOT_IMPLEMENTED' }),
    );
  });

  test('lookup over nsd gives the addresses node:dns resolves, and its errors', async () => {
    const lookup = createLookup(systemCore(nsd.endpoint));
    const theirs = nodeResolver(nsd.endpoint);
    for (const name of ['both.node.example', 'v4.node.example', 'v6.node.example', 'alias.node.example']) {
      const fours = await theirs.resolve4(name).catch(() => []);
      const sixes = await theirs.resolve6(name).catch(() => []);
      expect(await lookup.promise(name, { all: true, order: 'ipv4first' }), name).toEqual([
        ...fours.map((address) => ({ address, family: 4 })),
        ...sixes.map((address) => ({ address, family: 6 })),
      ]);
    }
    await expect(lookup.promise('nx.node.example')).rejects.toMatchObject({ code: 'ENOTFOUND', errno: -3008 });
    await expect(lookup.promise('outside.example')).rejects.toMatchObject({ code: 'EAI_AGAIN', errno: -3001 });
  });

  test('resolveDetailed and errors carry the dnscore result: DNSSEC status and the raw answer', async () => {
    const ours = new NodeDnsPromiseResolver(systemCore(nsd.endpoint));
    const { records, result } = await ours.resolveDetailed('mail.node.example', 'MX');
    expect(records).toEqual(await ours.resolveMx('mail.node.example'));
    expect(result.secure).toBe(false);
    expect(result.bogus).toBe(false);
    expect(result.answer.length).toBeGreaterThan(12);
    const error = (await ours.resolve4('nx.node.example').catch((e: unknown) => e)) as {
      result: { nxDomain: boolean; negativeTtl: number };
    };
    expect(error.result.nxDomain).toBe(true);
    expect(error.result.negativeTtl).toBe(60);
    expect(Object.keys(error)).toEqual(['errno', 'code', 'syscall', 'hostname']);
  });
});
