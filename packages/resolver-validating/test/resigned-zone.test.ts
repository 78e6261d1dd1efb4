/**
 * Chain answers (DNSKEY, DS) are kept no longer than their RRSIGs' expiration (RFC 4035
 * section 5.3.3): a zone re-signed on its server before its old signatures expire is judged by
 * the new ones once the old ones have, never bogus from a kept answer whose signatures expired.
 * One zone, signed twice by ldns with the same keys (the first time to expire 100 s after T0),
 * each version served by its own nsd behind one proxy; a fake clock.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DnsCore, type DnsResult } from '@dnscore/core';
import { ldnsTime } from '../../../test/support/dnssec.js';
import { startDnsProxy, type DnsProxy } from '../../../test/support/dns-proxy.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { ValidatingResolver } from '../src/index.js';

const run = promisify(execFile);
const T0 = Math.floor(Date.now() / 1000) * 1000;
const SECOND = 1000;
const ZONE = `$ORIGIN resign.example.
$TTL 3600
@ IN SOA ns1.resign.example. hostmaster.resign.example. 1 7200 900 1209600 300
  IN NS ns1.resign.example.
ns1 IN A 127.0.0.1
www IN A 192.0.2.5
`;

let first: NsdServer;
let second: NsdServer;
let proxy: DnsProxy;
let anchor: string;
/** Where the proxy forwards: the first signing, then the second. */
const target = { address: '127.0.0.1', port: 0 };
let now = T0;
const clock = { now: () => now };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-resign-'));
  try {
    const keygen = async (ksk: boolean): Promise<string> =>
      (
        await run('ldns-keygen', ['-a', 'ECDSAP256SHA256', ...(ksk ? ['-k'] : []), 'resign.example'], { cwd: dir })
      ).stdout.trim();
    const ksk = await keygen(true);
    const zsk = await keygen(false);
    writeFileSync(join(dir, 'zone'), ZONE);
    const sign = async (expiration: number, out: string): Promise<string> => {
      const window = ['-i', ldnsTime(new Date(T0 - 3600 * SECOND)), '-e', ldnsTime(new Date(expiration))];
      await run('ldns-signzone', [...window, '-o', 'resign.example.', '-f', out, 'zone', ksk, zsk], { cwd: dir });
      return readFileSync(join(dir, out), 'utf8');
    };
    const [soon, later] = [await sign(T0 + 100 * SECOND, 'soon'), await sign(T0 + 30 * 86_400 * SECOND, 'later')];
    anchor = readFileSync(join(dir, `${ksk}.ds`), 'utf8').trim();
    first = await startNsd([{ name: 'resign.example', text: soon }]);
    second = await startNsd([{ name: 'resign.example', text: later }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  target.port = first.port;
  proxy = await startDnsProxy(target);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await first?.stop();
  await second?.stop();
});

function verdict(result: DnsResult): [string, string, string[]] {
  const status = result.bogus ? 'bogus' : result.secure ? 'secure' : 'insecure';
  return [result.rcodeName, status, result.records.map((r) => String(r.data))];
}

it('a zone re-signed before its signatures expired stays secure once they have', async () => {
  const resolver = new ValidatingResolver(
    { nameservers: [proxy.endpoint], resolvConf: '/nonexistent/resolv.conf' },
    { trustAnchors: [anchor], clock, timeoutMs: 2000, attempts: 1 },
  );
  const core = new DnsCore([resolver]);
  try {
    expect(verdict(await core.resolve('www.resign.example', 'A'))).toEqual(['NOERROR', 'secure', ['192.0.2.5']]);
    // The zone is re-signed; the first signatures expire (the clock skew allowance of 300 s passed too).
    target.port = second.port;
    now = T0 + 500 * SECOND;
    const result = await core.resolve('www.resign.example', 'A');
    expect([...verdict(result), result.whyBogus]).toEqual(['NOERROR', 'secure', ['192.0.2.5'], undefined]);
    expect(proxy.queries.filter((q) => q.type === 48).length).toBe(2);
  } finally {
    await core.close();
  }
});
