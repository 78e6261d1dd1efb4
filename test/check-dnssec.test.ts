/**
 * `dnscore check` through real libunbound validating zones signed with ldns and served by nsd:
 * a signed domain whose SRV target sits in an unsigned zone is reported as partly signed, and
 * an answer changed after signing as bogus. A DNSSEC finding is never better than what
 * libunbound validated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnscore } from '../packages/cli/test/support.js';
import { alterRecord, signZone, type SignedZone } from './support/dnssec.js';
import { startNsd, type NsdServer } from './support/nsd.js';

const SIGNED = `$ORIGIN signed.example.
$TTL 3600
@          IN SOA  ns1 hostmaster 1 7200 900 1209600 300
           IN NS   ns1
ns1        IN A    127.0.0.1
_sip._udp  IN SRV  10 60 5060 sip1
           IN SRV  10 40 5060 sip2.plain.example.
sip1       IN A    192.0.2.11
`;
const PLAIN = `$ORIGIN plain.example.
$TTL 3600
@          IN SOA  ns1 hostmaster 1 7200 900 1209600 300
           IN NS   ns1
ns1        IN A    127.0.0.1
sip2       IN A    192.0.2.12
`;

let nsd: NsdServer;
let signed: SignedZone;
let bogus: SignedZone;
beforeAll(async () => {
  signed = await signZone('signed.example', SIGNED);
  // The same zone under another name, with its SRV set changed after signing.
  const other = await signZone('bogus.example', SIGNED.replace('signed.example.', 'bogus.example.'));
  bogus = alterRecord(other, { name: '_sip._udp.bogus.example.', type: 'SRV', data: '10 60 5060 evil.bogus.example.' });
  nsd = await startNsd([
    { name: 'signed.example', text: signed.text },
    { name: 'bogus.example', text: bogus.text },
    { name: 'plain.example', text: PLAIN },
  ]);
}, 60_000);
afterAll(async () => {
  await nsd?.stop();
});

const unbound = (...anchors: string[]) => [
  '--resolver',
  'unbound',
  '--server',
  nsd.endpoint,
  ...anchors.flatMap((a) => ['--trust-anchor', a]),
  '--json',
];

const dnssec = (stdout: string) =>
  JSON.parse(stdout)
    .findings.filter((f: { code: string }) => f.code.startsWith('dnssec'))
    .map((f: { severity: string; code: string; record: string }) => [f.severity, f.code, f.record]);

describe('dnscore check: DNSSEC through libunbound', () => {
  it('a signed domain with its SRV target in an unsigned zone: dnssec-partial names the unsigned answer', async () => {
    const { code, stdout } = await dnscore('check', 'signed.example', ...unbound(signed.ds));
    expect(code).toBe(1);
    expect(dnssec(stdout)).toEqual([['warning', 'dnssec-partial', 'sip2.plain.example. A']]);
  });

  it('an SRV set changed after signing: dnssec-bogus, an error', async () => {
    const { code, stdout } = await dnscore('check', 'bogus.example', ...unbound(bogus.ds));
    expect(code).toBe(1);
    expect(dnssec(stdout)).toEqual([['error', 'dnssec-bogus', '_sip._udp.bogus.example. SRV']]);
    expect(JSON.parse(stdout).findings[0].message).toMatch(/DNSSEC bogus \(.*validation failure/);
  });

  it('without a trust anchor for the zone nothing is secure, so nothing is called partly signed', async () => {
    const { stdout } = await dnscore('check', 'signed.example', ...unbound(bogus.ds));
    expect(dnssec(stdout)).toEqual([]);
  });
});
