import { describe, expect, it } from 'vitest';
import { buildResult, makeQuery, parseMessage } from '@dnscore/core/plugin';
import { HostsTable, ipBytes } from '../src/hosts.js';

const HOSTS = [
  '127.0.0.1 localhost',
  '::1       localhost ip6-localhost  # loopback',
  '192.0.2.10 pbx.biloxi.example pbx',
  '192.0.2.11 PBX.biloxi.example',
  '192.0.2.10 pbx.biloxi.example   # duplicate line',
  '2001:db8::10 pbx.biloxi.example',
  '',
  '# only a comment',
].join('\n');

describe('HostsTable, nominal', () => {
  const hosts = new HostsTable(HOSTS);

  it('answers A in file order, case-insensitively, without duplicates', () => {
    const query = makeQuery('pbx.BILOXI.example', 'A');
    const result = buildResult(query, { rcode: 0, answer: hosts.answer(query, 0)! });
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(result.records.every((r) => r.ttl === 0)).toBe(true);
    expect(result.canonical).toBe('pbx.BILOXI.example');
  });

  it('answers AAAA and aliases', () => {
    const aaaa = makeQuery('pbx.biloxi.example', 'AAAA');
    expect(
      buildResult(aaaa, { rcode: 0, answer: hosts.answer(aaaa, 60)! }).records.map((r) => [r.data, r.ttl]),
    ).toEqual([['2001:db8::10', 60]]);
    const alias = makeQuery('ip6-localhost', 'AAAA');
    expect(buildResult(alias, { rcode: 0, answer: hosts.answer(alias, 0)! }).records.map((r) => r.data)).toEqual([
      '::1',
    ]);
    const short = makeQuery('pbx', 'A');
    expect(buildResult(short, { rcode: 0, answer: hosts.answer(short, 0)! }).records.map((r) => r.data)).toEqual([
      '192.0.2.10',
    ]);
  });

  it('writes an authoritative NOERROR response echoing the question', () => {
    const query = makeQuery('localhost', 'A');
    const message = parseMessage(hosts.answer(query, 0)!);
    expect(message.header).toMatchObject({ qr: true, aa: true, rcode: 0, tc: false, ad: false });
    expect(message.questions).toHaveLength(1);
    expect(message.questions[0]).toMatchObject({ name: 'localhost', type: 1, class: 1 });
  });

  it('converts IP literals to bytes', () => {
    expect(Array.from(ipBytes('192.0.2.1')!)).toEqual([192, 0, 2, 1]);
    expect(Buffer.from(ipBytes('2001:db8::1')!).toString('hex')).toBe('20010db8000000000000000000000001');
    expect(Buffer.from(ipBytes('::')!).toString('hex')).toBe('0'.repeat(32));
    expect(Buffer.from(ipBytes('::ffff:192.0.2.1')!).toString('hex')).toBe('00000000000000000000ffffc0000201');
    expect(Buffer.from(ipBytes('1:2:3:4:5:6:7:8')!).toString('hex')).toBe('00010002000300040005000600070008');
  });
});

describe('HostsTable, off-nominal', () => {
  it('does not answer other types, other classes, or unknown names (they go to DNS)', () => {
    const hosts = new HostsTable(HOSTS);
    expect(hosts.answer(makeQuery('pbx.biloxi.example', 'MX'), 0)).toBeUndefined();
    expect(hosts.answer(makeQuery('pbx.biloxi.example', 'A', 'CH'), 0)).toBeUndefined();
    expect(hosts.answer(makeQuery('other.biloxi.example', 'A'), 0)).toBeUndefined();
  });

  it('answers NODATA for a name it has for the other family only (glibc files dns, AF_UNSPEC)', () => {
    const hosts = new HostsTable(HOSTS);
    const a = makeQuery('IP6-localhost', 'A');
    const message = parseMessage(hosts.answer(a, 0)!);
    expect(message.header).toMatchObject({ qr: true, aa: true, rcode: 0, tc: false });
    expect(message.questions[0]).toMatchObject({ name: 'IP6-localhost', type: 1, class: 1 });
    expect(message.answers).toEqual([]);
    const v4only = new HostsTable('192.0.2.1 v4.biloxi.example\n');
    const aaaa = makeQuery('v4.biloxi.example', 'AAAA');
    expect(buildResult(aaaa, { rcode: 0, answer: v4only.answer(aaaa, 0)! }).records).toEqual([]);
    expect(v4only.answer(makeQuery('v4.biloxi.example', 'TXT'), 0)).toBeUndefined();
  });

  it('skips lines with bad addresses or names, and says why', () => {
    const hosts = new HostsTable('300.1.1.1 bad\nfe80::1%eth0 linklocal\n192.0.2.1 ok bad..name\nnot-an-address\n');
    expect(hosts.skipped).toHaveLength(3);
    expect(hosts.skipped[0]).toBe('line 1: "300.1.1.1" is not an IP address (zones are not supported)');
    expect(hosts.skipped[1]).toMatch(/^line 2: "fe80::1%eth0"/);
    expect(hosts.skipped[2]).toMatch(/^line 3: "bad\.\.name": empty label/);
    expect(hosts.answer(makeQuery('ok', 'A'), 0)).toBeDefined();
    expect(ipBytes('not an ip')).toBeUndefined();
  });
});
