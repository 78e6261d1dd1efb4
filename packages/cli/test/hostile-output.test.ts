/**
 * Issue 21 item 8: terminal escapes from DNS data or a zone file never reach the CLI's output
 * raw (ESC, BEL, U+009B through the quoting), and a huge zone token is not one huge line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../src/output/terminal.js';
import { dnscore } from './support.js';

function zoneFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dnscore-cli-')), 'hostile.zone');
  writeFileSync(file, text);
  return file;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const ZONE = zoneFile(`$ORIGIN h.example.
$TTL 60
@ IN SOA ns hostmaster 1 2 3 4 5
txt IN TXT "\\027]0;pwned\\007" "\\194\\155 31m red"
@ IN NAPTR 10 10 "\\027[2J" "SIP+D2U" "" _sip._udp.h.example.
`);

describe('what the CLI prints from DNS data', () => {
  it('TXT with ESC, BEL and U+009B is printed with \\DDD escapes', async () => {
    const { code, stdout } = await dnscore('resolve', 'txt.h.example', '-t', 'TXT', '--zone', ZONE);
    expect(code).toBe(0);
    expect(stdout).toContain('txt.h.example.\t60\tIN\tTXT\t"\\027]0;pwned\\007" "\\194\\155 31m red"');
    expect(stdout).not.toMatch(RAW_CONTROL);
  });

  it('--json keeps the data, with no raw control character', async () => {
    const { stdout } = await dnscore('resolve', 'txt.h.example', '-t', 'TXT', '--zone', ZONE, '--json');
    expect(stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(stdout).records[0].data).toEqual(['\u001b]0;pwned\u0007', '\u009b 31m red']);
  });

  it('a dropped record whose reason quotes its data is printed escaped', async () => {
    const { stdout } = await dnscore('resolve', 'h.example', '-t', 'NAPTR', '--zone', ZONE);
    expect(stdout).toContain('naptr-flags: NAPTR flags "\\x1b[2J" hold "\\x1b", not alphanumeric');
    expect(stdout).not.toMatch(RAW_CONTROL);
  });

  it('the SIP step-through prints no raw control character', async () => {
    const { stdout, stderr } = await dnscore('sip', 'sip:bob@h.example', '--zone', ZONE);
    expect(stdout).toContain('- dropped h.example NAPTR: NAPTR flags "\\x1b[2J" hold "\\x1b", not alphanumeric');
    expect(`${stdout}${stderr}`).not.toMatch(RAW_CONTROL);
  });
});

describe('what the CLI prints from a zone file', () => {
  it('a 5 MB token becomes a short, escaped quote in one short stderr line', async () => {
    const zone = zoneFile(
      `$ORIGIN big.example.\n$TTL 60\n@ IN SOA ns hostmaster 1 2 3 4 5\nx IN \u001b${'A'.repeat(5_000_000)}\n`,
    );
    const { code, stderr } = await dnscore('resolve', 'x.big.example', '--zone', zone);
    expect(code).toBe(2);
    expect(stderr).toBe(`dnscore: ${zone}:4: unknown type "\\x1b${'A'.repeat(63)}...(5000001 chars)"\n`);
  });
});

describe('terminalSafe', () => {
  it('escapes C0 but newline and tab, DEL, C1 and bidi overrides; bounds each line', () => {
    expect(terminalSafe('a\tb\n\u001b[31m\u0007\u009b\u202e\u007f')).toBe(
      'a\tb\n\\u001b[31m\\u0007\\u009b\\u202e\\u007f',
    );
    expect(terminalSafe(`${'x'.repeat(10)}\nshort`, 5)).toBe('xxxxx...(10 chars)\nshort');
  });
});
