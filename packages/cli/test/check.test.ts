/** `dnscore check`: findings as text and JSON, and the exit codes 0, 1, 2 and 5. */
import { fileURLToPath } from 'node:url';
import { DnsCore, silentLogger, ZoneResolver } from '@dnscore/core';
import { runCheck } from '@dnscore/serve';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_ZONE, dnscore } from './support.js';

const MISTAKES = fileURLToPath(new URL('../../serve/test/zones/mistakes.example.zone', import.meta.url));

describe('dnscore check: nominal', () => {
  it('exits 0 on the walk-through zone, which has nothing to fix', async () => {
    const { code, stdout, stderr } = await dnscore('check', 'biloxi.example', '--zone', EXAMPLE_ZONE);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe('SIP DNS check of biloxi.example\n  13 questions asked\n\nNo findings: nothing to fix.\n');
  });

  it('exits 1 when a warning or an error is found, and prints each with its record and fix', async () => {
    const { code, stdout } = await dnscore('check', 'mistakes.example', '--zone', MISTAKES);
    expect(code).toBe(1);
    expect(stdout).toContain(
      'ERROR [srv-target-no-address] the SRV target noaddr.mistakes.example has no A or AAAA record: ' +
        'clients skip it\n' +
        '  record: _sip._tcp.mistakes.example. 3600 IN SRV 10 0 5060 noaddr.mistakes.example.\n' +
        '  fix:    publish an A (and AAAA) record for noaddr.mistakes.example, or remove this SRV record\n',
    );
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('4 error(s), 6 warning(s), 1 info(s)');
  });

  it('a URI with a port exits 1 even on a good zone: the port hides SRV', async () => {
    const { code, stdout } = await dnscore('check', 'sip:bob@biloxi.example:5060', '--zone', EXAMPLE_ZONE);
    expect(code).toBe(1);
    expect(stdout).toContain('WARNING [uri-port] the URI gives port 5060');
  });

  it('--json prints the report runCheck makes, as one document', async () => {
    const { code, stdout } = await dnscore('check', 'mistakes.example', '--zone', MISTAKES, '--json');
    expect(code).toBe(1);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const core = new DnsCore([new ZoneResolver({ files: [MISTAKES] })], { logger: silentLogger });
    expect(JSON.parse(stdout)).toEqual(JSON.parse(JSON.stringify(await runCheck(core, 'mistakes.example'))));
    expect(Object.keys(JSON.parse(stdout))).toEqual([
      'input',
      'uri',
      'domain',
      'answered',
      'queries',
      'findings',
      'counts',
    ]);
  });

  it('infos alone exit 0', async () => {
    const dot = fileURLToPath(new URL('../../serve/test/zones/dot.example.zone', import.meta.url));
    const { code, stdout } = await dnscore('check', 'dot.example', '--zone', dot);
    expect(code).toBe(0);
    expect(stdout).toContain('0 error(s), 0 warning(s), 2 info(s)');
  });
});

describe('dnscore check: off-nominal', () => {
  it.each([
    [['check'], /check takes one domain or URI/],
    [['check', 'a.example', 'b.example'], /check takes one domain or URI/],
    [['check', 'bad..example'], /is not a domain/],
    [['check', 'sip:bob@'], /dnscore: /],
    [['check', 'biloxi.example', '--frobnicate'], /Unknown option '--frobnicate'/],
  ])('exits 2 for bad input: %j', async (argv, message) => {
    const { code, stdout, stderr } = await dnscore(...argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });

  it('exits 5 when the DNS gave no answer to any question', async () => {
    const { code, stdout, stderr } = await dnscore('check', 'elsewhere.test', '--zone', EXAMPLE_ZONE, '--json');
    expect(code).toBe(5);
    const report = JSON.parse(stdout);
    expect(report.answered).toBe(false);
    expect(report.findings[0]).toMatchObject({ code: 'dns-error', record: 'elsewhere.test. NAPTR' });
    expect(report.findings[0].message).toContain('[DNS_ERR_NOT_AUTHORITATIVE]');
    expect(stderr).toBe('dnscore: elsewhere.test: no question got an answer\n');
  });
});
