/**
 * Load: 10,000 SIP resolutions at once against nsd on loopback, through the system backend's
 * bound on queries in flight (60,000 questions). Every one must come out right; afterwards the
 * heap, after a forced gc(), is within 16 MB of where it started and no handle is left open.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DnsCore } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import { SipLocator } from '@dnscore/sip';
import { startNsd, type NsdServer } from './support/nsd.js';

const ZONE = `$ORIGIN load.example.
$TTL 300
@          IN SOA  ns1 hostmaster 1 7200 900 1209600 300
           IN NS   ns1
ns1        IN A    127.0.0.1
; every host under load.example has a NAPTR to one shared SRV name, and an A record
*          IN NAPTR 10 10 "s" "SIP+D2U" "" _sip._udp.load.example.
*          IN A    192.0.2.99
_sip._udp  IN SRV  10 60 5060 sip1
           IN SRV  20 0  5060 sip2
sip1       IN A    192.0.2.1
sip2       IN A    192.0.2.2
`;

const RESOLUTIONS = Number(process.env.LOAD_N ?? 10_000);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let nsd: NsdServer;
beforeAll(async () => {
  nsd = await startNsd([{ name: 'load.example', text: ZONE }]);
});
afterAll(async () => {
  await nsd?.stop();
});

const heapUsed = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const handles = (): number => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;

it(`${RESOLUTIONS} concurrent SIP resolutions complete correctly through the in-flight bound`, async () => {
  const baselineHandles = handles();
  const baselineHeap = heapUsed();
  let peakInFlight = 0;
  {
    const system = new SystemResolver(
      { nameservers: [nsd.endpoint] },
      { timeoutMs: 5000, attempts: 3, maxInFlight: 512 },
    );
    const core = new DnsCore([system]);
    // The whole burst queues behind one in-flight bound on a shared machine: no time budget here.
    const locator = new SipLocator(core, { transports: ['udp', 'tcp'], ipv6: false, maxResolutionMs: 600_000 });
    const resolutions = await Promise.all(
      Array.from({ length: RESOLUTIONS }, (_, i) => locator.resolve(`sip:u${i}@host${i}.load.example`)),
    );
    for (const [i, resolution] of resolutions.entries()) {
      expect(resolution.error, `resolution ${i}`).toBeUndefined();
      expect(resolution.targets.map((t) => `${t.transport} ${t.address}:${t.port} ${t.source}`)).toEqual([
        'udp 192.0.2.1:5060 naptr',
        'udp 192.0.2.2:5060 naptr',
      ]);
    }
    peakInFlight = system.stats.peakInFlight;
    expect(system.stats.timeouts).toBe(0);
    await core.close();
  }
  expect(peakInFlight).toBeLessThanOrEqual(512); // the bound held: the others waited their turn
  expect(await settle(() => handles() <= baselineHandles)).toBe(true);
  const grown = heapUsed() - baselineHeap;
  console.log(
    `load: ${RESOLUTIONS} resolutions, peak ${peakInFlight} queries in flight, heap ${(grown / 1048576).toFixed(1)} ` +
      `MB above baseline`,
  );
  expect(grown).toBeLessThan(16 * 1024 * 1024);
}, 180_000);

/** True once `condition` holds, polled for up to two seconds (closing sockets close on a later turn). */
async function settle(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
}
