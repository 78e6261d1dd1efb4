import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nsdInstalled, startNsd, type NsdServer } from '../../test/support/nsd.js';
import { main } from '../system-resolver/main.js';

let nsd: NsdServer;

describe.runIf(nsdInstalled())('examples/system-resolver', () => {
  beforeAll(async () => {
    const text = readFileSync(new URL('../zones/biloxi.example.zone', import.meta.url), 'utf8');
    nsd = await startNsd([{ name: 'biloxi.example', text }]);
  }, 30_000);
  afterAll(() => nsd?.stop());

  it('resolves, runs a query set and cancels, against nsd', async () => {
    const lines: string[] = [];
    await main([nsd.endpoint], (line) => lines.push(line));
    expect(lines).toEqual([
      '_sip._udp.biloxi.example NOERROR via system, secure=false',
      // The seeded draw of the example puts sip2 first.
      '  _sip._udp.biloxi.example. 3600 IN SRV 10 40 5060 sip2.biloxi.example.',
      '  _sip._udp.biloxi.example. 3600 IN SRV 10 60 5060 sip1.biloxi.example.',
      '  _sip._udp.biloxi.example. 3600 IN SRV 20 0 5060 backup.biloxi.example.',
      'biloxi.example NOERROR: 3 record(s), negative TTL 0',
      'sip1.biloxi.example NOERROR: 1 record(s), negative TTL 0',
      'nothere.biloxi.example NXDOMAIN: 0 record(s), negative TTL 300',
      'sip2.biloxi.example: cancelled (ABORT_ERR)',
      // The cancelled question reached the resolver but was never sent.
      'stats: 5 queries, 4 sent, 0 timeouts, 0 spoofed answers dropped',
    ]);
  });
});
