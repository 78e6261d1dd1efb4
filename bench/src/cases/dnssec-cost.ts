/**
 * Part 3: what DNSSEC validation costs through libunbound, cold and warm: the same signed zone
 * (the RFC 3263 zone signed with fresh keys) asked with and without its trust anchor.
 */
import { compose, targetLines, unboundPlugin } from '../systems/dnscore.js';
import { expectSameSet } from '../systems/check.js';
import { EXPECTED, SIGNED_ZONE } from '../rig/zones.js';
import { formatSummary, ratio, since, summarize, throughput, type Summary } from '../stats.js';
import { runsFor, type BenchContext, type Section, type Table } from './section.js';

const A_NAME = `sip1.${SIGNED_ZONE}`;
const URI = `sip:bob@${SIGNED_ZONE}`;
const EXPECTED_TARGETS = EXPECTED.rfc3263Naptr;

type Work = 'a' | 'sip';

/** One operation on a composed dnscore; throws when the answer is not what it must be. */
async function operate(c: ReturnType<typeof compose>, work: Work, validated: boolean): Promise<void> {
  if (work === 'a') {
    const result = await c.core.resolve(A_NAME, 'A');
    if (result.records.length !== 1 || result.secure !== validated || result.bogus) {
      throw new Error(
        `${A_NAME} A: ${result.records.length} records, secure ${result.secure}, bogus ${result.bogus} (validated: ` +
          `${validated})`,
      );
    }
    return;
  }
  const resolution = await c.locator.resolve(URI);
  expectSameSet(`${URI}${validated ? ' validated' : ''}`, EXPECTED_TARGETS, targetLines(resolution));
  if (validated && resolution.steps.some((s) => s.kind === 'query' && s.error === undefined && !s.secure)) {
    throw new Error(`${URI}: an answer was not secure under the trust anchor`);
  }
}

interface Pair {
  readonly plain: Summary;
  readonly validated: Summary;
  readonly plainQueries?: number;
  readonly validatedQueries?: number;
}

async function coldPair(ctx: BenchContext, work: Work, delayMs: number): Promise<Pair> {
  const { proxy, signed } = ctx.rig;
  await proxy.setDelay(delayMs);
  const samples = { plain: [] as number[], validated: [] as number[] };
  const queries = { plain: [] as number[], validated: [] as number[] };
  const runs = runsFor(ctx, 11, 3);
  try {
    // Round 0 checks the answers and warms the JIT; it is not counted.
    for (let round = 0; round <= runs; round++) {
      for (const validated of round % 2 === 0 ? [false, true] : [true, false]) {
        const c = compose(unboundPlugin(proxy.endpoint, validated ? { anchors: [signed.ds] } : {}), false);
        await proxy.reset();
        const start = performance.now();
        await operate(c, work, validated);
        const ms = since(start);
        const { udp, tcp } = await proxy.queries();
        await c.close();
        if (round === 0) continue;
        (validated ? samples.validated : samples.plain).push(ms);
        (validated ? queries.validated : queries.plain).push(udp + tcp);
      }
    }
  } finally {
    await proxy.setDelay(ctx.rig.delayMs);
  }
  return {
    plain: summarize(samples.plain),
    validated: summarize(samples.validated),
    plainQueries: summarize(queries.plain).median,
    validatedQueries: summarize(queries.validated).median,
  };
}

async function warmPair(ctx: BenchContext, work: Work, coreCache: boolean): Promise<Pair> {
  const { nsd, signed } = ctx.rig;
  const plain = compose(unboundPlugin(nsd.endpoint), coreCache);
  const validated = compose(unboundPlugin(nsd.endpoint, { anchors: [signed.ds] }), coreCache);
  const windowMs = ctx.quick ? 250 : 1000;
  const samples = { plain: [] as number[], validated: [] as number[] };
  await operate(plain, work, false);
  await operate(validated, work, true);
  await throughput(() => operate(plain, work, false), 200, 16);
  await throughput(() => operate(validated, work, true), 200, 16);
  for (let round = 0; round < runsFor(ctx, 5, 3); round++) {
    for (const v of round % 2 === 0 ? [false, true] : [true, false]) {
      const rate = await throughput(() => operate(v ? validated : plain, work, v), windowMs, 16);
      (v ? samples.validated : samples.plain).push(rate);
    }
  }
  await plain.close();
  await validated.close();
  return { plain: summarize(samples.plain), validated: summarize(samples.validated) };
}

export async function dnssecCost(ctx: BenchContext): Promise<Section> {
  const D = ctx.rig.delayMs;
  const coldRows: string[][] = [];
  for (const [work, label] of [
    ['a', `\`${A_NAME}\` A`],
    ['sip', `\`${URI}\` (SIP targets)`],
  ] as const) {
    for (const delay of [D, 0]) {
      const p = await coldPair(ctx, work, delay);
      coldRows.push([
        `${label}, ${delay === 0 ? 'nsd direct (D = 0)' : `D = ${delay} ms`}`,
        `${p.plainQueries} / ${p.validatedQueries}`,
        formatSummary(p.plain, 1),
        formatSummary(p.validated, 1),
        ratio(p.validated.median, p.plain.median, 2),
      ]);
    }
  }
  ctx.log('  dnssec cold: done');
  const warmRows: string[][] = [];
  for (const [work, coreCache, label] of [
    ['a', false, `\`${A_NAME}\` A, libunbound's cache (dnscore's backend, no core cache)`],
    ['sip', false, `\`${URI}\`, libunbound's cache`],
    ['sip', true, `\`${URI}\`, core cache in front`],
  ] as const) {
    const p = await warmPair(ctx, work, coreCache);
    warmRows.push([
      label,
      formatSummary(p.plain, 0),
      formatSummary(p.validated, 0),
      ratio(p.plain.median, p.validated.median, 2),
    ]);
  }
  ctx.log('  dnssec warm: done');
  const cold: Table = {
    caption: `Cold: a new libunbound context per run, ${runsFor(ctx, 11, 3)} runs each`,
    headers: ['question', 'queries (plain / validated)', 'not validated, ms', 'validated, ms', 'validated ÷ not'],
    rows: coldRows,
  };
  const warm: Table = {
    caption: `Warm: answers cached, 16 in flight, ${ctx.quick ? 250 : 1000} ms windows, ${runsFor(ctx, 5, 3)} runs`,
    headers: ['question', 'not validated, per s', 'validated, per s', 'slowdown (not ÷ validated)'],
    rows: warmRows,
  };
  return {
    id: 'dnssec',
    title: '3. DNSSEC cost (libunbound)',
    method:
      `The RFC 3263 zone signed with fresh ECDSA P-256 keys (\`${SIGNED_ZONE}\`) and served by nsd, asked through ` +
      `dnscore's libunbound backend with its DS as the trust anchor ("validated": every answer comes back secure, ` +
      `checked) ` +
      `and without any anchor ("not validated": insecure). Figures are medians (min-max). Validation costs the ` +
      `DNSKEY ` +
      `query of the zone (one more round trip when cold) and the signature checks; and a secure answer's additional ` +
      `section is not used by @dnscore/sip (additional data is not validated), so the SIP resolution asks the ` +
      `targets' ` +
      `A/AAAA itself.`,
    tables: [cold, warm],
    notes: [],
  };
}
