/**
 * `dnscore resolve` through each validating backend (libunbound, and the TypeScript validator
 * of resolver-validating) on signed zones served by nsd: secure, insecure and bogus in the text
 * and the JSON, exit 4 for bogus, the reason; no fallback to the system backend for a bogus
 * answer under `--resolver auto`; an upstream that cannot validate named as the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnscore } from '../packages/cli/test/support.js';
import { alterRecord, signZone, type SignedZone } from './support/dnssec.js';
import { startNsd, type NsdServer } from './support/nsd.js';

const SIGNED = `$ORIGIN signed.example.
$TTL 3600
@     IN SOA  ns1 hostmaster 1 7200 900 1209600 300
      IN NS   ns1
ns1   IN A    127.0.0.1
sip1  IN A    192.0.2.11
_sip._udp IN SRV 10 60 5060 sip1
`;
const TAMPERED = SIGNED.replaceAll('signed.example', 'tampered.example');
const PLAIN = `$ORIGIN plain.example.
$TTL 600
@     IN SOA  ns1 hostmaster 1 7200 900 1209600 300
      IN NS   ns1
ns1   IN A    127.0.0.1
www   IN A    192.0.2.80
`;

let nsd: NsdServer;
let signed: SignedZone;
let tampered: SignedZone;
const through = (backend: string): string[] => [
  '--resolver',
  backend,
  '--server',
  nsd.endpoint,
  '--trust-anchor',
  signed.ds,
  '--trust-anchor',
  tampered.ds,
];

beforeAll(async () => {
  signed = await signZone('signed.example', SIGNED);
  tampered = alterRecord(await signZone('tampered.example', TAMPERED), {
    name: 'sip1.tampered.example.',
    type: 'A',
    data: '198.51.100.66',
  });
  nsd = await startNsd([
    { name: 'signed.example', text: signed.text },
    { name: 'tampered.example', text: tampered.text },
    { name: 'plain.example', text: PLAIN },
  ]);
});
afterAll(async () => {
  await nsd?.stop();
});

describe.each(['unbound', 'validating'])('dnscore resolve --resolver %s', (backend) => {
  it('a signed zone answers secure', async () => {
    const { code, stdout } = await dnscore('resolve', '_sip._udp.signed.example', '--type', 'SRV', ...through(backend));
    expect(code).toBe(0);
    expect(stdout).toContain(`;; resolver: ${backend}`);
    expect(stdout).toContain('dnssec: secure');
    expect(stdout).toContain('_sip._udp.signed.example.\t3600\tIN\tSRV\t10 60 5060 sip1.signed.example.');
  });

  it('an unsigned zone outside the anchors answers insecure', async () => {
    const { code, stdout } = await dnscore('resolve', 'www.plain.example', ...through(backend), '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      rcode: 'NOERROR',
      secure: false,
      bogus: false,
      records: [{ data: '192.0.2.80' }],
    });
  });

  it('a zone changed after signing answers bogus: exit 4, the reason, and no data', async () => {
    const { code, stdout, stderr } = await dnscore('resolve', 'sip1.tampered.example', ...through(backend), '--json');
    expect(code).toBe(4);
    const json = JSON.parse(stdout);
    expect(json).toMatchObject({ bogus: true, secure: false, records: [] });
    expect(json.whyBogus).toMatch(/validation failure/);
    expect(stderr).toMatch(/^dnscore: sip1.tampered.example: bogus DNSSEC answer: /);
  });

  it('prints bogus (why) in the text output', async () => {
    const { code, stdout } = await dnscore('resolve', 'sip1.tampered.example', ...through(backend));
    expect(code).toBe(4);
    expect(stdout).toMatch(/dnssec: bogus \(EDE 6 DNSSEC Bogus: validation failure <sip1\.tampered\.example\. A IN>/);
    expect(stdout).not.toContain('198.51.100.66');
  });

  it('a proven NXDOMAIN is secure', async () => {
    const { code, stdout } = await dnscore('resolve', 'nobody.signed.example', ...through(backend), '--json');
    expect(code).toBe(3);
    expect(JSON.parse(stdout)).toMatchObject({ rcode: 'NXDOMAIN', secure: true });
  });

  it('a trust anchor that is not DNS text is bad input (exit 2)', async () => {
    const { code, stderr } = await dnscore(
      'resolve',
      'sip1.signed.example',
      '--resolver',
      backend,
      '--server',
      nsd.endpoint,
      '--trust-anchor',
      'nonsense',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/trust/i);
  });
});

describe('dnscore resolve --resolver auto', () => {
  it('answers a bogus name through libunbound and never falls back to the system backend', async () => {
    const { code, stdout } = await dnscore(
      'resolve',
      'sip1.tampered.example',
      '--resolver',
      'auto',
      '--server',
      nsd.endpoint,
      '--trust-anchor',
      tampered.ds,
      '--json',
    );
    expect(code).toBe(4);
    expect(JSON.parse(stdout)).toMatchObject({ bogus: true, records: [] });
  });
});

describe('dnscore resolve --resolver validating', () => {
  it('an upstream without the DNSKEY of the anchor and its RRSIG: no answer (exit 5), and why', async () => {
    const { code, stdout, stderr } = await dnscore(
      'resolve',
      'www.plain.example',
      '--resolver',
      'validating',
      '--server',
      nsd.endpoint,
      '--trust-anchor',
      'plain.example. IN DS 12345 13 2 0000000000000000000000000000000000000000000000000000000000000000',
    );
    expect(code).toBe(5);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'dnscore: no answer: no resolver available for www.plain.example IN A (validating: the upstream nameservers ' +
        'return no DNSKEY for plain.example. (they cannot be used to validate)) [DNS_ERR_NO_RESOLVER]\n',
    );
  });
});
