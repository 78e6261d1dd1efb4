/**
 * The system resolver against a real authoritative server: nsd on loopback, started and
 * stopped by this file. Each record type, NXDOMAIN versus NODATA, TCP for a large answer,
 * and 1,000 distinct questions in flight at once.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore, type DnsResult, type TypedRecord } from '@dnscore/core';
import { buildResult } from '@dnscore/core/plugin';
import { nsdInstalled, startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { hasIpv6Loopback } from '../../../test/support/ports.js';
import type { SystemResolverOptions } from '../src/options.js';
import { SystemResolver } from '../src/system-resolver.js';

const HOSTS = 1000;
const BIG = 100;

function zoneText(): string {
  const lines = [readFileSync(new URL('./fixtures/system.example.zone', import.meta.url), 'utf8')];
  for (let i = 0; i < BIG; i++) lines.push(`big IN A 10.9.${i >> 8}.${i & 255}`);
  for (let i = 0; i < HOSTS; i++) lines.push(`h${i} IN A 10.1.${i >> 8}.${i & 255}`);
  return `${lines.join('\n')}\n`;
}

let nsd: NsdServer;
beforeAll(async () => {
  nsd = await startNsd([{ name: 'system.example', text: zoneText() }], { ipv6: true });
}, 30_000);
afterAll(() => nsd?.stop());

function system(options: SystemResolverOptions = {}, nameservers = [nsd.endpoint]): SystemResolver {
  return new SystemResolver(
    { nameservers, resolvConf: '/nonexistent/resolv.conf', search: [] },
    { timeoutMs: 2000, attempts: 2, ...options },
  );
}

function data(result: DnsResult): unknown[] {
  return result.records.map((r) => r.data);
}

describe.runIf(nsdInstalled())('SystemResolver against nsd', () => {
  it('answers A and AAAA', async () => {
    const core = new DnsCore([system()]);
    expect(data(await core.resolve('www.system.example', 'A'))).toEqual(['192.0.2.10']);
    expect(data(await core.resolve('www.system.example', 'AAAA'))).toEqual(['2001:db8::10']);
  });

  it('answers SRV in RFC 2782 order: priority 10 first, backup last', async () => {
    const result = await new DnsCore([system()]).resolve('_sip._udp.system.example', 'SRV');
    const srv = result.records as readonly TypedRecord<'SRV'>[];
    expect(srv).toHaveLength(3);
    expect(
      srv
        .slice(0, 2)
        .map((r) => r.data.target)
        .sort(),
    ).toEqual(['sip1.system.example', 'sip2.system.example']);
    expect(srv[2]!.data).toEqual({ priority: 20, weight: 0, port: 5060, target: 'backup.system.example' });
  });

  it('answers NAPTR in order', async () => {
    const result = await new DnsCore([system()]).resolve('system.example', 'NAPTR');
    expect(data(result)).toEqual([
      {
        order: 50,
        preference: 50,
        flags: 's',
        services: 'SIPS+D2T',
        regexp: '',
        replacement: '_sips._tcp.system.example',
      },
      {
        order: 90,
        preference: 50,
        flags: 's',
        services: 'SIP+D2T',
        regexp: '',
        replacement: '_sip._tcp.system.example',
      },
      {
        order: 100,
        preference: 50,
        flags: 's',
        services: 'SIP+D2U',
        regexp: '',
        replacement: '_sip._udp.system.example',
      },
    ]);
  });

  it('follows a CNAME chain to its end', async () => {
    const result = await new DnsCore([system()]).resolve('alias.system.example', 'A');
    expect(result.canonical).toBe('www.system.example');
    expect(data(result)).toEqual(['192.0.2.10']);
  });

  it('tells NXDOMAIN from NODATA, with the SOA negative TTL', async () => {
    const core = new DnsCore([system()]);
    const nx = await core.resolve('missing.system.example', 'A');
    expect([nx.rcodeName, nx.nxDomain, nx.negativeTtl]).toEqual(['NXDOMAIN', true, 300]);
    const nodata = await core.resolve('www.system.example', 'SRV');
    expect([nodata.rcodeName, nodata.noData, nodata.negativeTtl]).toEqual(['NOERROR', true, 300]);
  });

  it('asks over TCP for an answer over 1232 bytes, then goes to TCP directly', async () => {
    const r = system();
    const core = new DnsCore([r]);
    const result = await core.resolve('big.system.example', 'A');
    expect(result.answer.length).toBeGreaterThan(1232);
    expect(result.records).toHaveLength(BIG);
    expect(new Set(data(result))).toEqual(new Set(Array.from({ length: BIG }, (_, i) => `10.9.${i >> 8}.${i & 255}`)));
    expect(r.stats).toMatchObject({ udpSent: 1, truncated: 1, tcpSent: 1 });
    await core.resolve('big.system.example', 'A');
    expect(r.stats).toMatchObject({ udpSent: 1, tcpSent: 2, tcpRemembered: 1 });
  });

  it('asks only over TCP with forceTcp (use-vc)', async () => {
    const r = system({ forceTcp: true });
    expect(data(await new DnsCore([r]).resolve('www.system.example', 'A'))).toEqual(['192.0.2.10']);
    expect(r.stats).toMatchObject({ udpSent: 0, tcpSent: 1 });
  });

  it.runIf(hasIpv6Loopback())('asks over IPv6 loopback', async () => {
    const r = system({}, [`[::1]:${nsd.port}`]);
    expect(data(await new DnsCore([r]).resolve('www.system.example', 'AAAA'))).toEqual(['2001:db8::10']);
  });

  it('finds a short name through the search list', async () => {
    const r = new SystemResolver(
      { nameservers: [nsd.endpoint], resolvConf: '/nonexistent', search: ['system.example'] },
      { attempts: 1 },
    );
    const found = await r.resolveName('sip1', 'A');
    expect(found.query.name).toBe('sip1.system.example');
    expect(data(buildResult(found.query, found.answer))).toEqual(['192.0.2.11']);
  });

  it('resolves 1,000 distinct questions in flight at once, each correctly', async () => {
    const r = system({ attempts: 3 });
    const core = new DnsCore([r]);
    const results = await Promise.all(
      Array.from({ length: HOSTS }, (_, i) => core.resolve(`h${i}.system.example`, 'A')),
    );
    results.forEach((result, i) => {
      expect(result.query.name).toBe(`h${i}.system.example`);
      expect(data(result)).toEqual([`10.1.${i >> 8}.${i & 255}`]);
    });
    expect(r.stats.queries).toBe(HOSTS);
    expect(r.stats.peakInFlight).toBe(HOSTS);
    expect(r.stats).toMatchObject({ inFlight: 0, wrongId: 0, wrongSource: 0, wrongQuestion: 0, malformed: 0 });
  });

  it('answers a question asked with odd letter case', async () => {
    const result = await new DnsCore([system()]).resolve('WwW.SyStEm.ExAmPlE', 'A');
    expect(data(result)).toEqual(['192.0.2.10']);
    expect(result.records[0]!.name).toBe('WwW.SyStEm.ExAmPlE');
  });
});
