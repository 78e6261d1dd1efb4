/**
 * ADDRCONFIG on hosts of every kind, with os.networkInterfaces() replaced: which families are
 * asked, and getaddrinfo's ENOTFOUND for a family the host has no address of (RFC 3493 section
 * 6.1; loopback and IPv6 link-local addresses do not count; a loopback-only host asks both).
 */
import type { NetworkInterfaceInfo } from 'node:os';
import dns from 'node:dns';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import type { LookupCallback } from '../src/index.js';
import { scriptedCore } from './support/scripted-plugin.js';

const interfaces = vi.hoisted(() => ({ current: {} as Record<string, NetworkInterfaceInfo[]> }));
vi.mock('node:os', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:os')>()),
  networkInterfaces: () => interfaces.current,
}));

function address(family: 'IPv4' | 'IPv6', text: string, internal = false): NetworkInterfaceInfo {
  return { address: text, family, internal, netmask: '', mac: '00:00:00:00:00:00', cidr: null, scopeid: 0 } as never;
}

const LOOPBACK = { lo: [address('IPv4', '127.0.0.1', true), address('IPv6', '::1', true)] };
const HOSTS: [string, Record<string, NetworkInterfaceInfo[]>, { ipv4: boolean; ipv6: boolean }][] = [
  ['IPv4 only', { ...LOOPBACK, eth0: [address('IPv4', '192.0.2.10')] }, { ipv4: true, ipv6: false }],
  ['IPv6 only', { ...LOOPBACK, eth0: [address('IPv6', '2001:db8::10')] }, { ipv4: false, ipv6: true }],
  [
    'IPv4 and IPv6 link-local',
    { ...LOOPBACK, eth0: [address('IPv4', '192.0.2.10'), address('IPv6', 'fe80::10')] },
    { ipv4: true, ipv6: false },
  ],
  [
    'both',
    { ...LOOPBACK, eth0: [address('IPv4', '192.0.2.10'), address('IPv6', '2001:db8::10')] },
    { ipv4: true, ipv6: true },
  ],
  ['loopback only', LOOPBACK, { ipv4: false, ipv6: false }],
];

type Got = { error?: string; addresses?: unknown };

describe.each(HOSTS)('ADDRCONFIG on a host with %s', (_kind, nics, has) => {
  let lookup: (hostname: string, options: object) => Promise<Got>;
  let asked: () => string[];
  beforeEach(async () => {
    interfaces.current = nics;
    vi.resetModules(); // a fresh module: no families kept from another host
    const { createLookup } = await import('../src/index.js');
    const { core, plugin } = scriptedCore();
    const ours = createLookup(core, { resultMemoEntries: 0 });
    const from = plugin.asked.length;
    asked = () => plugin.asked.slice(from);
    lookup = (hostname, options) =>
      new Promise((resolve) => {
        const cb: LookupCallback = (error, addresses) =>
          resolve(error ? { error: `${error.code} ${error.errno}` } : { addresses });
        ours(hostname, { all: true, order: 'ipv4first', hints: dns.ADDRCONFIG, ...options }, cb);
      });
  });

  test('family 0 asks the families the host has (both when it has neither)', async () => {
    const four = { address: '127.0.0.1', family: 4 };
    const six = { address: '::1', family: 6 };
    const askA = has.ipv4 || !has.ipv6;
    const askAaaa = has.ipv6 || !has.ipv4;
    expect(await lookup('both.node.example', {})).toEqual({
      addresses: [...(askA ? [four] : []), ...(askAaaa ? [six] : [])],
    });
    expect(asked()).toEqual([...(askA ? ['both.node.example A'] : []), ...(askAaaa ? ['both.node.example AAAA'] : [])]);
  });

  test('family 4 or 6 without an address of it is ENOTFOUND, asking nothing, as getaddrinfo', async () => {
    const notFound = { error: 'ENOTFOUND -3008' };
    expect(await lookup('both.node.example', { family: 4 })).toEqual(
      has.ipv4 ? { addresses: [{ address: '127.0.0.1', family: 4 }] } : notFound,
    );
    expect(await lookup('both.node.example', { family: 6, hints: dns.ADDRCONFIG | dns.V4MAPPED })).toEqual(
      has.ipv6 ? { addresses: [{ address: '::1', family: 6 }] } : notFound,
    );
    expect(await lookup('localhost', { family: 6 })).toEqual(
      has.ipv6 ? { addresses: [{ address: '::1', family: 6 }] } : notFound,
    );
    expect(asked()).toEqual([
      ...(has.ipv4 ? ['both.node.example A'] : []),
      // V4MAPPED with family 6 asks A as well
      ...(has.ipv6 ? ['both.node.example A', 'both.node.example AAAA'] : []),
    ]);
  });

  test('without ADDRCONFIG every family is asked, whatever the host has', async () => {
    expect(await lookup('both.node.example', { hints: 0 })).toEqual({
      addresses: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect(await lookup('v6.node.example', { hints: 0, family: 6 })).toEqual({
      addresses: [{ address: '::1', family: 6 }],
    });
  });
});
