/**
 * One dnscore workload in a loop, to profile it:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/dist/tools/hot-loop.js WORKLOAD [SECONDS]
 *   node bench/dist/tools/cpuprofile-top.js /tmp/prof/*.cpuprofile
 * Workloads: warm-srv-a, warm-full, warm-a (cache hits), cold-sip (a new DnsCore per
 * resolution, nsd direct), burst (10,000 distinct names at once through the system backend).
 */
import {
  BULK_ZONE,
  RFC3263_ZONE,
  SRV_ONLY_ZONE,
  bulkZoneText,
  bulkName,
  rfc3263ZoneText,
  srvOnlyZoneText,
  warmDomain,
  WARM_DOMAINS,
} from '../rig/zones.js';
import { startNsd } from '../rig/support.js';
import { compose, systemPlugin, targetLines } from '../systems/dnscore.js';
import { throughput } from '../stats.js';

const [workload = 'warm-srv-a', secondsText = '5'] = process.argv.slice(2);
const seconds = Number(secondsText);
const nsd = await startNsd([
  { name: RFC3263_ZONE, text: rfc3263ZoneText() },
  { name: SRV_ONLY_ZONE, text: srvOnlyZoneText() },
  { name: BULK_ZONE, text: bulkZoneText(10_000) },
]);

try {
  let perSecond: number;
  if (workload === 'warm-srv-a' || workload === 'warm-full') {
    const c = compose(
      systemPlugin(nsd.endpoint),
      true,
      workload === 'warm-srv-a' ? { transports: ['udp'], ipv6: false } : {},
    );
    const run = async (loop: number): Promise<string[]> =>
      targetLines(await c.locator.resolve(`sip:bob@${warmDomain(loop)}`));
    await throughput(run, 300, WARM_DOMAINS);
    perSecond = await throughput(run, seconds * 1000, WARM_DOMAINS);
  } else if (workload === 'warm-a') {
    const c = compose(systemPlugin(nsd.endpoint), true);
    perSecond = await throughput(() => c.core.resolve(`sip1.${SRV_ONLY_ZONE}`, 'A'), seconds * 1000, 16);
  } else if (workload === 'cold-sip') {
    perSecond = await throughput(
      async () => {
        const c = compose(systemPlugin(nsd.endpoint), false);
        targetLines(await c.locator.resolve(`sip:bob@${RFC3263_ZONE}`));
        await c.close();
      },
      seconds * 1000,
      1,
    );
  } else if (workload === 'burst') {
    perSecond = await throughput(
      async () => {
        const c = compose(systemPlugin(nsd.endpoint), false);
        await Promise.all(Array.from({ length: 10_000 }, (_, i) => c.core.resolve(bulkName(i), 'A')));
        await c.close();
      },
      seconds * 1000,
      1,
    );
  } else {
    throw new Error(`unknown workload ${workload}`);
  }
  console.log(`${workload}: ${perSecond.toFixed(1)} per second`);
} finally {
  await nsd.stop();
}
