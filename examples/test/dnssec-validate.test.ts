import { afterAll, beforeAll, expect, it } from 'vitest';
import { alterRecord, signZone, type SignedZone } from '../../test/support/dnssec.js';
import { startNsd, type NsdServer } from '../../test/support/nsd.js';
// @ts-expect-error: a plain JavaScript example without declarations
import { main } from '../dnssec-validate/main.mjs';

const zone = (origin: string, records: string): string => `$ORIGIN ${origin}.
$TTL 3600
@     IN SOA ns1 hostmaster 1 7200 900 1209600 300
      IN NS  ns1
ns1   IN A   127.0.0.1
${records}
`;

let nsd: NsdServer;
let biloxi: SignedZone;
let bogus: SignedZone;

beforeAll(async () => {
  biloxi = await signZone('biloxi.test', zone('biloxi.test', '_sip._udp IN SRV 10 60 5060 sip1\nsip1 IN A 192.0.2.11'));
  bogus = alterRecord(await signZone('bogus.test', zone('bogus.test', 'sip1 IN A 192.0.2.31')), {
    name: 'sip1.bogus.test.',
    type: 'A',
    data: '192.0.2.66',
  });
  nsd = await startNsd([
    { name: 'biloxi.test', text: biloxi.text },
    { name: 'bogus.test', text: bogus.text },
    { name: 'plain.test', text: zone('plain.test', 'www IN A 192.0.2.80') },
  ]);
});

afterAll(async () => {
  await nsd?.stop();
});

async function run(...args: string[]): Promise<{ code: number; lines: string[] }> {
  const server = `${nsd.address}@${nsd.port}`;
  const lines: string[] = [];
  const code = (await main(
    [
      ...args,
      '--trust-anchor',
      biloxi.ds,
      '--trust-anchor',
      bogus.ds,
      ...['biloxi.test', 'bogus.test', 'plain.test', '.'].flatMap((name) => ['--stub', `${name}=${server}`]),
      '--option',
      'local-zone=test. transparent', // RFC 6761 keeps test. local unless opened
      '--option',
      'qname-minimisation=no',
    ],
    (line: string) => lines.push(line),
  )) as number;
  return { code, lines };
}

it('examples/dnssec-validate: secure', async () => {
  expect(await run('_sip._udp.biloxi.test', 'SRV')).toEqual({
    code: 0,
    lines: [
      '_sip._udp.biloxi.test IN SRV: secure',
      '_sip._udp.biloxi.test.\t3600\tIN\tSRV\t10 60 5060 sip1.biloxi.test.',
    ],
  });
  expect(await run('nobody.biloxi.test')).toEqual({ code: 0, lines: ['nobody.biloxi.test IN A: secure NXDOMAIN'] });
});

it('examples/dnssec-validate: insecure', async () => {
  expect(await run('www.plain.test')).toEqual({
    code: 0,
    lines: ['www.plain.test IN A: insecure', 'www.plain.test.\t3600\tIN\tA\t192.0.2.80'],
  });
});

it('examples/dnssec-validate: bogus (why), without its data, exit 4', async () => {
  const { code, lines } = await run('sip1.bogus.test');
  expect(code).toBe(4);
  expect(lines).toEqual([
    'sip1.bogus.test IN A: bogus (validation failure <sip1.bogus.test. A IN>: ECDSA signature verification failed ' +
      'from 127.0.0.1)',
  ]);
});
