/** `dnscore sip`: the RFC 3263 step-through and its JSON, on the example zone of RFC 3263. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_ZONE, dnscore } from './support.js';

describe('dnscore sip: nominal', () => {
  it('steps through NAPTR -> SRV -> A in one round trip and lists the targets', async () => {
    const { code, stdout, stderr } = await dnscore(
      'sip',
      'sip:bob@biloxi.example',
      '--zone',
      EXAMPLE_ZONE,
      '--seed',
      '1',
    );
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain('rule naptr applies -> TLS');
    expect(stdout).toMatch(/Targets: 3, tls by rule naptr \(1 round trip, 6 queries\)/);
    expect(stdout).toContain('Warnings: none');
  });

  it('--json prints one document: ports and families as numbers, sources, expires', async () => {
    const { code, stdout } = await dnscore(
      'sip',
      'sip:bob@biloxi.example',
      '--zone',
      EXAMPLE_ZONE,
      '--transports',
      'udp,tcp',
      '--seed',
      '7',
      '--json',
    );
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(Object.keys(json)).toEqual(['uri', 'transport', 'targets', 'steps', 'warnings', 'naptr']);
    expect(json.uri).toBe('sip:bob@biloxi.example');
    expect(json.transport).toBe('tcp');
    expect(
      json.targets
        .map((t: { address: string; port: number; priority: number; weight: number }) => [
          t.address,
          t.port,
          t.priority,
          t.weight,
        ])
        .slice(2),
    ).toEqual([['198.51.100.50', 5060, 20, 0]]);
    expect(json.targets[0]).toMatchObject({ transport: 'tcp', family: 4, port: 5060, source: 'naptr', priority: 10 });
    expect(typeof json.targets[0].expires).toBe('number');
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });

  it('--json says which NAPTR of its order was chosen (rule naptr), as the text does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dnscore-sip-naptr-'));
    const zone = join(dir, 'naptr.zone');
    writeFileSync(
      zone,
      [
        '$ORIGIN naptr.example.',
        '$TTL 600',
        '@ IN SOA ns h 1 2 3 4 5',
        '@ IN NAPTR 10 60 "s" "SIP+D2T" "" _sip._tcp',
        '@ IN NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp',
        '@ IN NAPTR 20 10 "s" "SIP+D2U" "" _sip._udp',
        '_sip._udp IN SRV 0 0 5060 pbx',
        '_sip._tcp IN SRV 0 0 5060 pbx',
        'pbx IN A 192.0.2.10',
        '',
      ].join('\n'),
    );
    const { code, stdout } = await dnscore('sip', 'sip:bob@naptr.example', '--zone', zone, '--json');
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    const udp = { owner: 'naptr.example', record: '10 50 "s" "SIP+D2U" "" _sip._udp.naptr.example.', transport: 'udp' };
    const tcp = { owner: 'naptr.example', record: '10 60 "s" "SIP+D2T" "" _sip._tcp.naptr.example.', transport: 'tcp' };
    // by preference; order 20 is never considered once order 10 applies (RFC 3403 section 4.1)
    // every record has TTL 600: the chosen NAPTR ends when the targets do
    expect(json.naptr).toEqual({ chosen: udp, expires: json.targets[0].expires, candidates: [udp, tcp], passed: [] });
    expect(json.transport).toBe('udp');
    const text = (await dnscore('sip', 'sip:bob@naptr.example', '--zone', zone)).stdout;
    expect(text).toContain(`NAPTR ${udp.record}\n        chosen (UDP)`);
    expect(text).toContain(`NAPTR ${tcp.record}\n        usable (TCP)`);
    // no NAPTR followed: no naptr member
    const literal = JSON.parse((await dnscore('sip', 'sip:bob@192.0.2.1', '--zone', zone, '--json')).stdout);
    expect(Object.keys(literal)).toEqual(['uri', 'transport', 'targets', 'steps', 'warnings']);
  });

  it('--seed makes a run repeatable and --draws counts the first targets by host', async () => {
    const run = () =>
      dnscore('sip', 'sip:bob@biloxi.example', '--zone', EXAMPLE_ZONE, '--seed', '42', '--draws', '2000', '--json');
    const [a, b] = [JSON.parse((await run()).stdout), JSON.parse((await run()).stdout)];
    expect(a.draws).toEqual(b.draws);
    expect(a.draws.n).toBe(2000);
    expect(Object.keys(a.draws.first)).toEqual(['sip1.biloxi.example', 'sip2.biloxi.example']);
    // RFC 2782 draw over [0, 100] from a random arrangement: sip1 (weight 60) 60/101, and pick 0 half the time.
    expect(a.draws.first['sip1.biloxi.example'] / 2000).toBeCloseTo(121 / 202, 1);
    const text = await dnscore(
      'sip',
      'sip:bob@biloxi.example',
      '--zone',
      EXAMPLE_ZONE,
      '--seed',
      '42',
      '--draws',
      '100',
    );
    expect(text.stdout).toMatch(/Draws: 100 resolutions/);
    // Three CLI processes, 2,100 draws: a loaded 2-core machine has taken 38 s (4.8 s alone).
  }, 60_000);

  it('a literal with a port warns that SRV and failover are off', async () => {
    const { code, stdout } = await dnscore('sip', 'sip:bob@192.0.2.1:5070', '--zone', EXAMPLE_ZONE, '--json');
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.targets).toEqual([
      {
        transport: 'udp',
        host: '192.0.2.1',
        address: '192.0.2.1',
        family: 4,
        port: 5070,
        priority: 0,
        weight: 0,
        source: 'literal',
        expires: null,
        dnssec: 'insecure',
        links: [],
      },
    ]);
    expect(json.warnings.length).toBeGreaterThan(0);
  });
});

describe('dnscore sip: exit codes', () => {
  it('2 for an invalid URI, before any backend starts', async () => {
    const { code, stderr, stdout } = await dnscore('sip', 'sip:bob@', '--zone', EXAMPLE_ZONE);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^dnscore: /);
  });

  it.each([
    [['--transports', 'udp,sctp'], /--transports takes a list of udp, tcp, tls/],
    [['--seed', 'x'], /--seed takes a whole number/],
    [['--draws', '0'], /--draws takes a whole number in 1..1000000/],
  ])('2 for a bad option %j', async (flags, message) => {
    const { code, stderr } = await dnscore('sip', 'sip:bob@biloxi.example', '--zone', EXAMPLE_ZONE, ...flags);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('3 with no targets, saying why', async () => {
    const { code, stderr, stdout } = await dnscore('sip', 'sip:bob@nowhere.biloxi.example', '--zone', EXAMPLE_ZONE);
    expect(code).toBe(3);
    expect(stdout).toMatch(/No targets/);
    expect(stderr).toMatch(/^dnscore: sip:bob@nowhere.biloxi.example: .*\[SIP_ERR_NO_TARGETS\]\n$/);
  });

  it('3 for a sips: URI when the client has no TLS', async () => {
    const { code, stderr } = await dnscore(
      'sip',
      'sips:bob@biloxi.example',
      '--zone',
      EXAMPLE_ZONE,
      '--transports',
      'udp,tcp',
    );
    expect(code).toBe(3);
    expect(stderr).toMatch(/TLS/);
  });

  it('5 when no question got an answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dnscore-sip-'));
    const zone = join(dir, 'other.zone');
    writeFileSync(zone, '$ORIGIN other.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\n');
    const { code, stderr } = await dnscore('sip', 'sip:bob@biloxi.example', '--zone', zone);
    expect(code).toBe(5);
    expect(stderr).toMatch(/SIP_ERR_NO_TARGETS/);
  });
});
