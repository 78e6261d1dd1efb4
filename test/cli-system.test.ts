/**
 * `dnscore resolve --resolver system` against nsd on loopback: real answers, real rcodes, and
 * exit 5 when no answer is obtained. One test runs the built executable itself.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnscore } from '../packages/cli/test/support.js';
import { startNsd, type NsdServer } from './support/nsd.js';
import { freePort } from './support/ports.js';

const ZONE = readFileSync(new URL('../examples/zones/biloxi.example.zone', import.meta.url), 'utf8');
const BIN = fileURLToPath(new URL('../packages/cli/dist/main.cjs', import.meta.url));

let nsd: NsdServer;
beforeAll(async () => {
  nsd = await startNsd([{ name: 'biloxi.example', text: ZONE }]);
});
afterAll(async () => {
  await nsd?.stop();
});

describe('dnscore resolve --resolver system', () => {
  it('answers from nsd, with the additional section nsd sends', async () => {
    const { code, stdout } = await dnscore(
      'resolve',
      '_sip._udp.biloxi.example',
      '--type',
      'SRV',
      '--resolver',
      'system',
      '--server',
      nsd.endpoint,
    );
    expect(code).toBe(0);
    expect(stdout).toContain(';; resolver: system');
    expect(stdout).toContain('_sip._udp.biloxi.example.\t3600\tIN\tSRV\t20 0 5060 backup.biloxi.example.');
    expect(stdout).toContain(';; ADDITIONAL SECTION:\n');
    expect(stdout).toContain('sip1.biloxi.example.\t3600\tIN\tA\t203.0.113.11');
  });

  it('--json gives the NAPTR records in order', async () => {
    const { code, stdout } = await dnscore(
      'resolve',
      'biloxi.example',
      '--type',
      'NAPTR',
      '--resolver',
      'system',
      '--server',
      nsd.endpoint,
      '--json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout).records.map((r: { data: { services: string } }) => r.data.services)).toEqual([
      'SIPS+D2T',
      'SIP+D2T',
      'SIP+D2U',
    ]);
  });

  it('exits 3 for NXDOMAIN and for NODATA', async () => {
    expect(
      (await dnscore('resolve', 'nobody.biloxi.example', '--resolver', 'system', '--server', nsd.endpoint)).code,
    ).toBe(3);
    expect(
      (await dnscore('resolve', 'sip1.biloxi.example', '-t', 'AAAA', '--resolver', 'system', '--server', nsd.endpoint))
        .code,
    ).toBe(3);
  });

  it('exits 5 for REFUSED (a zone the server does not serve)', async () => {
    const { code, stderr } = await dnscore(
      'resolve',
      'www.other.example',
      '--resolver',
      'system',
      '--server',
      nsd.endpoint,
    );
    expect(code).toBe(5);
    expect(stderr).toBe('dnscore: www.other.example: the server answered REFUSED\n');
  });

  it('exits 5 with the timeout code when no server answers', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const { code, stderr, stdout } = await dnscore(
      'resolve',
      'sip1.biloxi.example',
      '--resolver',
      'system',
      '--server',
      dead,
      '--timeout',
      '200',
      '--attempts',
      '1',
    );
    expect(code).toBe(5);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^dnscore: no answer: .*\[DNS_ERR_TIMEOUT\]\n$/);
  });

  it('exits 2 for a bad --server', async () => {
    const { code, stderr } = await dnscore(
      'resolve',
      'sip1.biloxi.example',
      '--resolver',
      'system',
      '--server',
      'not an address',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/not an address/);
  });

  it('the built executable prints one JSON document on stdout and exits with the code', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      BIN,
      'resolve',
      'sip2.biloxi.example',
      '--resolver',
      'system',
      '--server',
      nsd.endpoint,
      '--json',
    ]);
    expect(JSON.parse(stdout).records).toEqual([
      { name: 'sip2.biloxi.example', type: 'A', ttl: 3600, data: '203.0.113.12' },
    ]);
    const failure = await promisify(execFile)(process.execPath, [
      BIN,
      'resolve',
      'nobody.biloxi.example',
      '--resolver',
      'system',
      '--server',
      nsd.endpoint,
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(failure).toMatchObject({ code: 3, stderr: 'dnscore: nobody.biloxi.example: no such name (NXDOMAIN)\n' });
  });
});
