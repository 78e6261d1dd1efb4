/** The README's example is test/readme-example.ts, verbatim, and it runs against loopback peers. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeExample } from './readme-example.js';
import { PEER, answer, freePort, startSipPeer, type SipPeer } from './support/peers.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
let zoneFile: string;
let port: number;
const peers: SipPeer[] = [];

beforeAll(async () => {
  port = await freePort(PEER(25));
  zoneFile = join(mkdtempSync(join(tmpdir(), 'dnscore-readme-')), 'example.test.zone');
  writeFileSync(
    zoneFile,
    `$ORIGIN example.test.
$TTL 300
@ IN SOA ns hostmaster 1 3600 600 86400 300
_sip._udp IN SRV 10 0 ${port} sip1
_sip._udp IN SRV 20 0 ${port} sip2
sip1 IN A ${PEER(25)}
sip2 IN A ${PEER(26)}
`,
  );
  peers.push(
    await startSipPeer({ transport: 'udp', address: PEER(25), port, behaviour: answer(503) }),
    await startSipPeer({ transport: 'udp', address: PEER(26), port, behaviour: answer(200) }),
  );
});
afterAll(async () => {
  for (const p of peers) await p.close();
});

describe('README', () => {
  it('shows test/readme-example.ts verbatim', () => {
    const code = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${code}\`\`\``);
  });

  it('the bridge example fails over from the 503 to the second server', async () => {
    const statuses: number[] = [];
    const report = await bridgeExample(zoneFile, await freePort(), (s) => statuses.push(s));
    expect(report.attempts.map((a) => `${a.target.host} ${a.outcome}`)).toEqual([
      'sip1.example.test failover',
      'sip2.example.test response',
    ]);
    expect(statuses).toEqual([200]);
    expect(peers[1]!.requests[0]!.uri).toBe('sip:bob@example.test');
  });
});
