/**
 * Faults: the first nameserver dies mid-run, answers slowly, answers SERVFAIL. Resolution moves
 * to the second nameserver, and comes back to the first when it recovers. The two servers hold
 * different addresses for the same name, so every answer says who gave it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DnsCore } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import { startHostileServer, type HostileServer, type HostileZone } from './support/hostile-server.js';

const zone = (address: string): HostileZone => ({
  records: { 'sip.faults.example': [{ name: 'sip.faults.example', type: 'A', ttl: 60, data: address }] },
});

let first: HostileServer;
let second: HostileServer;
let system: SystemResolver;
let core: DnsCore;
let firstClosed = false;

beforeEach(async () => {
  firstClosed = false;
  first = await startHostileServer({ zone: zone('192.0.2.1') });
  second = await startHostileServer({ zone: zone('192.0.2.2') });
  system = new SystemResolver({ nameservers: [first.endpoint, second.endpoint] }, { timeoutMs: 250, attempts: 2 });
  core = new DnsCore([system]);
});
afterEach(async () => {
  await core.close();
  await Promise.all([firstClosed ? undefined : first.close(), second.close()]);
});

/** Who answers a burst of `n` distinct-in-time questions: the address each got. */
async function burst(n: number): Promise<string[]> {
  const results = await Promise.all(Array.from({ length: n }, () => core.resolve('sip.faults.example', 'A')));
  return results.map((r) => r.records[0]!.data);
}

describe('faults', () => {
  it('a nameserver that dies mid-run: the rest of the run goes to the next one, none is lost', async () => {
    expect(await burst(1)).toEqual(['192.0.2.1']);
    first.setPlan({ udp: [{ delayMs: 100, play: 'answer' }] });
    const running = burst(20);
    await first.waitForQueries(2, 'udp');
    await first.close(); // dies while the run is in flight
    firstClosed = true;
    expect(await running).toEqual(Array(20).fill('192.0.2.2'));
    expect(await burst(3)).toEqual(['192.0.2.2', '192.0.2.2', '192.0.2.2']);
  });

  it('a slow nameserver: the query moves on after the timeout, and comes back when it is fast again', async () => {
    first.setPlan({ udp: [{ delayMs: 2000, play: 'answer' }] });
    expect(await burst(2)).toEqual(['192.0.2.2', '192.0.2.2']);
    first.setPlan({ udp: ['answer'] });
    expect(await burst(2)).toEqual(['192.0.2.1', '192.0.2.1']);
  });

  it(
    'a nameserver answering SERVFAIL: the next one answers at once, and the first is used again when it ' + 'recovers',
    async () => {
      first.setPlan({ udp: ['servfail'] });
      const result = await core.resolve('sip.faults.example', 'A');
      expect(result.records.map((r) => r.data)).toEqual(['192.0.2.2']);
      expect(system.stats.timeouts).toBe(0);
      first.setPlan({ udp: ['answer'] });
      expect(await burst(1)).toEqual(['192.0.2.1']);
    },
  );

  it('both servers down, then the first back: a timeout error first, then answers again', async () => {
    first.setPlan({ udp: ['drop'] });
    second.setPlan({ udp: ['drop'] });
    await expect(core.resolve('sip.faults.example', 'A')).rejects.toMatchObject({ code: 'DNS_ERR_TIMEOUT' });
    first.setPlan({ udp: ['answer'] });
    expect(await burst(1)).toEqual(['192.0.2.1']);
  });
});
