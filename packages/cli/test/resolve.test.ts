/** `dnscore resolve` on zone files: output like dig, --json, and the exit codes of ARCHITECTURE.md. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_ZONE, dnscore } from './support.js';

function zoneFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dnscore-cli-')), 'test.zone');
  writeFileSync(file, text);
  return file;
}

const TYPES_ZONE = zoneFile(`$ORIGIN t.example.
$TTL 60
@ IN SOA ns hostmaster 1 2 3 4 5
txt IN TXT "hello world" "two"
_443._tcp IN TLSA 3 1 1 ABCDEF
raw IN TYPE65280 \\# 3 0A0B0C
v6 IN AAAA 2001:DB8:0:0:0:0:0:1
`);

describe('dnscore resolve: nominal', () => {
  it('prints the answer like dig and exits 0', async () => {
    const { code, stdout, stderr } = await dnscore('resolve', 'sip1.biloxi.example', '--zone', EXAMPLE_ZONE);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain(';; ->>HEADER<<- status: NOERROR, dnssec: insecure');
    expect(stdout).toContain(';; QUESTION SECTION:\n;sip1.biloxi.example.\t\tIN\tA');
    expect(stdout).toContain(';; ANSWER SECTION:\nsip1.biloxi.example.\t3600\tIN\tA\t203.0.113.11');
    expect(stdout).toContain(';; resolver: zone');
  });

  it('--json prints exactly one document with the fields of the issue', async () => {
    const { code, stdout } = await dnscore(
      'resolve',
      '_sip._udp.biloxi.example',
      '--type',
      'SRV',
      '--zone',
      EXAMPLE_ZONE,
      '--json',
    );
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(Object.keys(json)).toEqual([
      'name',
      'type',
      'rcode',
      'secure',
      'bogus',
      'whyBogus',
      'ede',
      'canonical',
      'records',
    ]);
    expect(json).toMatchObject({
      name: '_sip._udp.biloxi.example',
      type: 'SRV',
      rcode: 'NOERROR',
      secure: false,
      bogus: false,
      whyBogus: null,
      ede: null,
      canonical: '_sip._udp.biloxi.example',
    });
    expect(json.records).toHaveLength(3);
    expect(json.records[2]).toEqual({
      name: '_sip._udp.biloxi.example',
      type: 'SRV',
      ttl: 3600,
      data: { priority: 20, weight: 0, port: 5060, target: 'backup.biloxi.example' },
    });
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });

  it('--json writes NAPTR, TXT, TLSA, AAAA and raw data as the issue says', async () => {
    const naptr = JSON.parse(
      (await dnscore('resolve', 'biloxi.example', '-t', 'NAPTR', '--zone', EXAMPLE_ZONE, '--json')).stdout,
    );
    expect(naptr.records[0].data).toEqual({
      order: 50,
      preference: 50,
      flags: 's',
      services: 'SIPS+D2T',
      regexp: '',
      replacement: '_sips._tcp.biloxi.example',
    });
    const data = async (name: string, type: string) =>
      JSON.parse((await dnscore('resolve', name, '--type', type, '--zone', TYPES_ZONE, '--json')).stdout).records[0]
        .data;
    expect(await data('txt.t.example', 'TXT')).toEqual(['hello world', 'two']);
    expect(await data('_443._tcp.t.example', 'TLSA')).toEqual({
      usage: 3,
      selector: 1,
      matchingType: 1,
      certificate: 'abcdef',
    });
    expect(await data('raw.t.example', 'TYPE65280')).toBe('0a0b0c');
    expect(await data('v6.t.example', 'AAAA')).toBe('2001:db8::1');
  });

  it('shows the canonical name of a CNAME chain', async () => {
    const file = zoneFile(
      '$ORIGIN c.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\nalias IN CNAME real\nreal IN A 192.0.2.1\n',
    );
    const { stdout } = await dnscore('resolve', 'alias.c.example', '--zone', file);
    expect(stdout).toContain(';; canonical name: real.c.example.');
  });
});

describe('dnscore resolve: exit codes', () => {
  it('3 for NXDOMAIN, with a message on stderr', async () => {
    const { code, stderr, stdout } = await dnscore('resolve', 'nobody.biloxi.example', '--zone', EXAMPLE_ZONE);
    expect(code).toBe(3);
    expect(stderr).toBe('dnscore: nobody.biloxi.example: no such name (NXDOMAIN)\n');
    expect(stdout).toContain('status: NXDOMAIN');
    expect(stdout).toContain(';; AUTHORITY SECTION:');
  });

  it('3 for NODATA', async () => {
    const { code, stderr } = await dnscore('resolve', 'sip1.biloxi.example', '--type', 'AAAA', '--zone', EXAMPLE_ZONE);
    expect(code).toBe(3);
    expect(stderr).toMatch(/no AAAA records \(NODATA\)/);
  });

  it.each([
    [['resolve', '', '--zone', EXAMPLE_ZONE], /the name is empty/],
    [['resolve', 'a..b', '--zone', EXAMPLE_ZONE], /empty label/],
    [['resolve', 'x.example', '--type', 'BOGUS', '--zone', EXAMPLE_ZONE], /unknown type "BOGUS"/],
    [['resolve', 'x.example', '--type', '65536', '--zone', EXAMPLE_ZONE], /outside 0..65535/],
    [['resolve', 'x.example', '--bogus-flag'], /Unknown option '--bogus-flag'/],
    [['resolve'], /resolve takes one NAME/],
    [
      ['resolve', 'x.example', '--resolver', 'magic'],
      /--resolver must be one of auto, zone, system, unbound, validating/,
    ],
    [['resolve', 'x.example', '--resolver', 'zone'], /needs at least one --zone/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ])('2 for bad input: %j', async (argv, message) => {
    const { code, stderr, stdout } = await dnscore(...argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    if (argv[0] === 'resolve') expect(stdout).toBe('');
  });

  it('2 for a broken zone file, naming the file and the line', async () => {
    const file = zoneFile('$TTL 60\n$ORIGIN b.example.\n@ IN SOA ns h 1 2 3 4 5\nwww IN A 300.0.0.1\n');
    const { code, stderr } = await dnscore('resolve', 'www.b.example', '--zone', file);
    expect(code).toBe(2);
    expect(stderr).toBe(`dnscore: ${file}:4: "300.0.0.1" is not an IPv4 address\n`);
  });

  it('5 when no answer is obtained (a name outside every zone), with the error code', async () => {
    const { code, stderr, stdout } = await dnscore('resolve', 'www.elsewhere.test', '--zone', EXAMPLE_ZONE);
    expect(code).toBe(5);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^dnscore: no answer: zone: no zone holds www.elsewhere.test IN A \[DNS_ERR_NOT_AUTHORITATIVE\]\n$/,
    );
  });
});
