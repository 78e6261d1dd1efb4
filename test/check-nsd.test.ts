/**
 * `dnscore check --resolver system` against nsd on loopback: the same findings as from the zone
 * file (real CNAME chains, NXDOMAIN and additional sections change nothing), the walk-through
 * zone clean, and exit 5 when the nameserver never answers.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnscore } from '../packages/cli/test/support.js';
import { startNsd, type NsdServer } from './support/nsd.js';
import { freePort } from './support/ports.js';

const BILOXI = new URL('../examples/zones/biloxi.example.zone', import.meta.url);
const MISTAKES = new URL('../packages/serve/test/zones/mistakes.example.zone', import.meta.url);

let nsd: NsdServer;
beforeAll(async () => {
  nsd = await startNsd([
    { name: 'biloxi.example', text: readFileSync(BILOXI, 'utf8') },
    { name: 'mistakes.example', text: readFileSync(MISTAKES, 'utf8') },
  ]);
});
afterAll(async () => {
  await nsd?.stop();
});

const system = () => ['--resolver', 'system', '--server', nsd.endpoint];

describe('dnscore check --resolver system (nsd)', () => {
  it('the walk-through zone: nothing to fix, exit 0', async () => {
    const { code, stdout } = await dnscore('check', 'biloxi.example', ...system(), '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ domain: 'biloxi.example', answered: true, findings: [] });
  });

  it('the common mistakes: the same findings as from the zone file, exit 1', async () => {
    const live = await dnscore('check', 'mistakes.example', ...system(), '--json');
    const file = await dnscore('check', 'mistakes.example', '--zone', new URL(MISTAKES).pathname, '--json');
    expect(live.code).toBe(1);
    expect(file.code).toBe(1);
    const findings = (out: string) =>
      JSON.parse(out).findings.map((f: { code: string; record: string }) => `${f.code} ${f.record}`);
    expect(findings(live.stdout)).toEqual(findings(file.stdout));
    expect(findings(live.stdout)).toContain(
      'srv-target-alias _sip._tcp.mistakes.example. 3600 IN SRV 10 60 5060 alias.mistakes.example.',
    );
  });

  it('a nameserver that never answers: exit 5, every question a dns-error', async () => {
    const port = await freePort();
    const { code, stdout, stderr } = await dnscore(
      'check',
      'biloxi.example',
      '--resolver',
      'system',
      '--server',
      `127.0.0.1:${port}`,
      '--timeout',
      '200',
      '--attempts',
      '1',
      '--json',
    );
    expect(code).toBe(5);
    expect(stderr).toBe('dnscore: biloxi.example: no question got an answer\n');
    const report = JSON.parse(stdout);
    expect(report.answered).toBe(false);
    expect(new Set(report.findings.map((f: { code: string }) => f.code))).toEqual(new Set(['dns-error']));
  });
});
