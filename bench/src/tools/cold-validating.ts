/**
 * Cold validated SIP resolutions in a loop, to profile the TypeScript validating backend:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/dist/tools/cold-validating.js [RUNS] [DELAY_MS]
 *   node bench/dist/tools/cpuprofile-top.js /tmp/prof/*.cpuprofile
 * The signed RFC 3263 zone on nsd behind the delaying proxy (DELAY_MS, default 0: nsd direct);
 * each run a new backend and core, as part 3's cold table has it. Prints the medians of the
 * system backend (not validated) and the validating backend, alternated, and the messages
 * the validating backend sent per resolution. ONLY=system or ONLY=validating runs one alone.
 * Part 3 runs this code a few dozen times per process, mostly before V8 optimizes it: add
 * --no-opt to profile it as it runs there (byte loops in JavaScript weigh far more then).
 */
import { startDelayProxy } from '../rig/delay-proxy.js';
import { signZone, startNsd } from '../rig/support.js';
import { EXPECTED, SIGNED_ZONE, rfc3263ZoneText } from '../rig/zones.js';
import { expectSameSet } from '../systems/check.js';
import { compose, systemPlugin, targetLines, validatingPlugin } from '../systems/dnscore.js';
import { since, summarize } from '../stats.js';

const [runsText = '200', delayText = '0'] = process.argv.slice(2);
const runs = Number(runsText);
const delayMs = Number(delayText);
/** ONLY=system or ONLY=validating: one backend alone, for a profile of its own. */
const only = process.env.ONLY;
const URI = `sip:bob@${SIGNED_ZONE}`;
const signed = await signZone(SIGNED_ZONE, rfc3263ZoneText(SIGNED_ZONE));
const nsd = await startNsd([{ name: SIGNED_ZONE, text: signed.text }]);
const proxy = await startDelayProxy(nsd, delayMs);
try {
  const samples = { system: [] as number[], validating: [] as number[] };
  let sent = 0;
  for (let round = 0; round <= runs; round++) {
    const order = round % 2 === 0 ? (['system', 'validating'] as const) : (['validating', 'system'] as const);
    for (const backend of order.filter((b) => only === undefined || b === only)) {
      const plugin =
        backend === 'system' ? systemPlugin(proxy.endpoint) : validatingPlugin(proxy.endpoint, [signed.ds]);
      const c = compose(plugin, false);
      const start = performance.now();
      const resolution = await c.locator.resolve(URI);
      const ms = since(start);
      expectSameSet(URI, EXPECTED.rfc3263Naptr, targetLines(resolution));
      if (backend === 'validating') {
        if (resolution.targets.some((t) => t.dnssec !== 'secure')) throw new Error(`${URI}: not secure`);
        sent = (plugin as ReturnType<typeof validatingPlugin>).queriesSent;
      }
      await c.close();
      if (round > 0) samples[backend].push(ms);
    }
  }
  const s = summarize(samples.system.length > 0 ? samples.system : [Number.NaN]);
  const v = summarize(samples.validating.length > 0 ? samples.validating : [Number.NaN]);
  const show = (x: typeof s): string => `${x.median.toFixed(2)} ms (${x.min.toFixed(2)}-${x.max.toFixed(2)})`;
  console.log(`D = ${delayMs} ms, ${runs} runs: system ${show(s)}, validating ${show(v)}, messages ${sent}`);
  console.log(`validating - system: ${(v.median - s.median).toFixed(2)} ms; ratio ${(v.median / s.median).toFixed(2)}`);
} finally {
  await proxy.stop();
  await nsd.stop();
}
