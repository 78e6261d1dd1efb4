/**
 * The command line itself: `--help` for every command (its usage on stdout, exit 0), no command
 * at all (bad input: the usage on stderr, exit 2), and a failure is one line on stderr even when
 * the input that caused it holds a newline.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_USAGE } from '../src/commands/check.js';
import { PING_USAGE } from '../src/commands/ping.js';
import { RESOLVE_USAGE } from '../src/commands/resolve.js';
import { SERVE_USAGE } from '../src/commands/serve.js';
import { SIP_USAGE } from '../src/commands/sip.js';
import { EXAMPLE_ZONE, dnscore } from './support.js';

describe('--help', () => {
  it.each([
    ['resolve', RESOLVE_USAGE],
    ['sip', SIP_USAGE],
    ['ping', PING_USAGE],
    ['check', CHECK_USAGE],
    ['serve', SERVE_USAGE],
  ])('dnscore %s --help prints its usage on stdout and exits 0', async (command, usage) => {
    for (const argv of [
      [command, '--help'],
      [command, 'x', '-h'],
      [command, '--zone', EXAMPLE_ZONE, '--help'],
    ]) {
      expect(await dnscore(...argv)).toEqual({ code: 0, stdout: `${usage}\n`, stderr: '' });
    }
  });

  it('after "--", --help is the positional it says it is', async () => {
    const { code, stdout, stderr } = await dnscore('resolve', '--zone', EXAMPLE_ZONE, '--', '--help');
    expect([code, stdout]).toEqual([5, '']);
    expect(stderr).toBe('dnscore: no answer: zone: no zone holds --help IN A [DNS_ERR_NOT_AUTHORITATIVE]\n');
  });

  it('dnscore with no command is bad input: the usage goes to stderr, exit 2', async () => {
    const { code, stdout, stderr } = await dnscore();
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr).toMatch(/^dnscore: no command given\nusage: dnscore <command> \[options\]\n/);
  });

  it('dnscore --help prints the usage on stdout, exit 0', async () => {
    const { code, stdout, stderr } = await dnscore('--help');
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toMatch(/^usage: dnscore <command> \[options\]\n/);
  });
});

describe('a failure is one line on stderr', () => {
  it('a newline in a URI is shown escaped (\\x0a)', async () => {
    const { code, stdout, stderr } = await dnscore('sip', 'sip:bob@biloxi\nexample', '--zone', EXAMPLE_ZONE);
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr).toMatch(/^dnscore: invalid SIP URI "sip:bob@biloxi\\x0aexample": [^\n]*\n$/);
  });

  it("a newline in a flag's value is shown as \\n; the usage after a usage error keeps its lines", async () => {
    expect(await dnscore('sip', 'sip:bob@biloxi.example', '--seed', '1\n2', '--zone', EXAMPLE_ZONE)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'dnscore: --seed takes a whole number in -2147483648..4294967295, not "1\\n2"\n',
    });
    const { stderr } = await dnscore('sip');
    expect(stderr).toBe(`dnscore: sip takes one URI\n${SIP_USAGE}\n`);
  });

  it("node's explanation of an option value that looks like an option is joined on one line", async () => {
    const { code, stderr } = await dnscore('resolve', 'x.example', '--timeout', '-5');
    expect(code).toBe(2);
    expect(stderr).toMatch(/^dnscore: Option '--timeout' argument is ambiguous\. Did you forget [^\n]*\n$/);
  });
});
