import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core/plugin';
import { InvalidServerAddressError } from '../src/errors.js';
import { resolveSettings } from '../src/settings.js';

const dir = mkdtempSync(join(tmpdir(), 'settings-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const resolvConf = join(dir, 'resolv.conf');
writeFileSync(
  resolvConf,
  'nameserver 192.0.2.1\nnameserver 192.0.2.2\nsearch biloxi.example\noptions ndots:3 timeout:2 attempts:3 rotate ' +
    'use-vc\n',
);
const empty = join(dir, 'missing.conf');

describe('resolveSettings, nominal', () => {
  it('takes resolv.conf when nothing is given', () => {
    const s = resolveSettings({ resolvConf }, {});
    expect(s.nameservers.map((n) => `${n.address}:${n.port}`)).toEqual(['192.0.2.1:53', '192.0.2.2:53']);
    expect(s).toMatchObject({
      search: ['biloxi.example'],
      ndots: 3,
      timeoutMs: 2000,
      attempts: 3,
      rotate: true,
      forceTcp: true,
    });
  });

  it('lets config and options replace resolv.conf', () => {
    const s = resolveSettings(
      { resolvConf, nameservers: ['127.0.0.1:5300', '[::1]:5301'], search: [], ndots: 1 },
      { timeoutMs: 250, attempts: 1, rotate: false, forceTcp: false },
    );
    expect(s.nameservers).toEqual([
      { address: '127.0.0.1', port: 5300, family: 4 },
      { address: '::1', port: 5301, family: 6 },
    ]);
    expect(s).toMatchObject({ search: [], ndots: 1, timeoutMs: 250, attempts: 1, rotate: false, forceTcp: false });
  });

  it('uses the documented defaults', () => {
    const s = resolveSettings({ resolvConf: empty }, { hostname: 'pbx' });
    expect(s).toMatchObject({
      nameservers: [{ address: '127.0.0.1', port: 53, family: 4 }],
      search: [],
      ndots: 1,
      timeoutMs: 5000,
      attempts: 2,
      rotate: false,
      forceTcp: false,
      maxInFlight: 256,
      trustAd: false,
      useHosts: false,
      hostsFile: '/etc/hosts',
      hostsTtl: 0,
      udpPayloadSize: 1232,
      recursionDesired: true,
      dnssecRecords: false,
      tcpMemoryMs: 600_000,
      tcpMemorySize: 1024,
    });
  });

  it('turns EDNS off with edns: false', () => {
    expect(
      resolveSettings({ resolvConf: empty }, { edns: false, udpPayloadSize: 4096 }).udpPayloadSize,
    ).toBeUndefined();
  });

  it('freezes what it returns', () => {
    const s = resolveSettings({ resolvConf: empty }, {});
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.nameservers)).toBe(true);
  });
});

describe('resolveSettings, off-nominal', () => {
  it('refuses a bad nameserver address with InvalidServerAddressError', () => {
    expect(() => resolveSettings({ resolvConf: empty, nameservers: ['127.0.0.1', 'ns1.example'] }, {})).toThrow(
      InvalidServerAddressError,
    );
  });

  it('refuses bad options before reading any file', () => {
    expect(() => resolveSettings({ resolvConf: dir }, { attempts: 0 })).toThrow(InvalidArgumentError);
    expect(() => resolveSettings({ resolvConf: dir }, { attempts: 0 })).toThrow(/attempts/);
  });

  it('reports resolv.conf lines it could not use', () => {
    const odd = join(dir, 'odd.conf');
    writeFileSync(odd, 'nameserver bogus\n');
    const s = resolveSettings({ resolvConf: odd }, {});
    expect(s.skipped).toHaveLength(1);
    expect(s.nameservers.map((n) => n.address)).toEqual(['127.0.0.1']);
  });
});
