/**
 * Part 3: what DNSSEC validation costs through libunbound, cold and warm: the same signed zone
 * (the RFC 3263 zone signed with fresh keys) asked with and without its trust anchor.
 */
import type { ResolverPlugin } from '@dnscore/core';
import { compose, systemPlugin, targetLines, unboundPlugin, validatingPlugin } from '../systems/dnscore.js';
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
  // Each target's status is the weakest of the answers that led to it (the steps are recorded
  // only with stepThrough, which would add its cost to the figure).
  if (validated && resolution.targets.some((t) => t.dnssec !== 'secure')) {
    throw new Error(`${URI}: a target was not secure under the trust anchor`);
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

/**
 * The ways to ask one question, made new for each cold run: 'revalidating' is the validating
 * backend without its validated answers (warm rows only: cold, it is the same as 'validating').
 */
type Backend = 'system' | 'validating' | 'unbound' | 'revalidating';

function backendPlugin(ctx: BenchContext, backend: Backend, endpoint: string): ResolverPlugin {
  const anchors = [ctx.rig.signed.ds];
  if (backend === 'system') return systemPlugin(endpoint);
  if (backend === 'validating') return validatingPlugin(endpoint, anchors);
  if (backend === 'revalidating') return validatingPlugin(endpoint, anchors, { answerCache: false });
  return unboundPlugin(endpoint, { anchors });
}

/**
 * Cold, side by side in one run: the system backend (not validated), the TypeScript
 * validating backend and libunbound (both validated), each a new backend per run.
 */
async function coldTrio(
  ctx: BenchContext,
  work: Work,
  delayMs: number,
): Promise<Record<Exclude<Backend, 'revalidating'>, Pair['plain']>> {
  const { proxy } = ctx.rig;
  await proxy.setDelay(delayMs);
  const order = ['system', 'validating', 'unbound'] as const;
  const samples = { system: [] as number[], validating: [] as number[], unbound: [] as number[] };
  try {
    for (let round = 0; round <= runsFor(ctx, 11, 3); round++) {
      for (const backend of round % 2 === 0 ? order : [...order].reverse()) {
        const c = compose(backendPlugin(ctx, backend, proxy.endpoint), false);
        await proxy.reset();
        const start = performance.now();
        await operate(c, work, backend !== 'system');
        const ms = since(start);
        await c.close();
        if (round > 0) samples[backend].push(ms);
      }
    }
  } finally {
    await proxy.setDelay(ctx.rig.delayMs);
  }
  return {
    system: summarize(samples.system),
    validating: summarize(samples.validating),
    unbound: summarize(samples.unbound),
  };
}

/**
 * Warm, side by side: answers in the core's cache, or (no core cache) in the backends' own
 * (libunbound's, the validating backend's validated answers; the system backend has none), and
 * the validating backend without them (every question asked and validated again).
 */
async function warmTrio(ctx: BenchContext, work: Work, coreCache: boolean): Promise<Record<Backend, Pair['plain']>> {
  const { nsd } = ctx.rig;
  const composed = {
    system: compose(backendPlugin(ctx, 'system', nsd.endpoint), coreCache),
    validating: compose(backendPlugin(ctx, 'validating', nsd.endpoint), coreCache),
    unbound: compose(backendPlugin(ctx, 'unbound', nsd.endpoint), coreCache),
    revalidating: compose(backendPlugin(ctx, 'revalidating', nsd.endpoint), coreCache),
  };
  const windowMs = ctx.quick ? 250 : 1000;
  const samples: Record<Backend, number[]> = { system: [], validating: [], unbound: [], revalidating: [] };
  const order: Backend[] = ['system', 'validating', 'unbound', 'revalidating'];
  for (const backend of order) {
    await operate(composed[backend], work, backend !== 'system');
    await throughput(() => operate(composed[backend], work, backend !== 'system'), 200, 16);
  }
  for (let round = 0; round < runsFor(ctx, 5, 3); round++) {
    for (const backend of round % 2 === 0 ? order : [...order].reverse()) {
      const rate = await throughput(() => operate(composed[backend], work, backend !== 'system'), windowMs, 16);
      samples[backend].push(rate);
    }
  }
  for (const backend of order) await composed[backend].close();
  return {
    system: summarize(samples.system),
    validating: summarize(samples.validating),
    unbound: summarize(samples.unbound),
    revalidating: summarize(samples.revalidating),
  };
}

/** The cold cases of both tables: an A question and a SIP resolution, behind the delaying proxy and from nsd direct. */
function coldCases(D: number): { work: Work; label: string; delay: number }[] {
  return (
    [
      ['a', `\`${A_NAME}\` A`],
      ['sip', `\`${URI}\` (SIP targets)`],
    ] as const
  ).flatMap(([work, question]) =>
    [D, 0].map((delay) => ({
      work,
      delay,
      label: `${question}, ${delay === 0 ? 'nsd direct (D = 0)' : `D = ${delay} ms`}`,
    })),
  );
}

/** The TypeScript validating backend beside libunbound and the unvalidated system backend. */
async function validatingTables(ctx: BenchContext, D: number): Promise<Table[]> {
  const coldRows: string[][] = [];
  for (const { work, label, delay } of coldCases(D)) {
    const t = await coldTrio(ctx, work, delay);
    coldRows.push([
      label,
      formatSummary(t.system, 1),
      formatSummary(t.validating, 1),
      formatSummary(t.unbound, 1),
      ratio(t.validating.median, t.system.median, 2),
      delay === 0 ? '-' : `${(t.validating.median / delay).toFixed(2)} D`,
    ]);
  }
  ctx.log('  dnssec cold (validating backend): done');
  const warmRows: string[][] = [];
  for (const [work, coreCache, label] of [
    ['a', false, `\`${A_NAME}\` A, no core cache (the backends' own caches)`],
    ['sip', false, `\`${URI}\`, no core cache`],
    ['sip', true, `\`${URI}\`, core cache in front`],
  ] as const) {
    const t = await warmTrio(ctx, work, coreCache);
    warmRows.push([
      label,
      formatSummary(t.system, 0),
      formatSummary(t.validating, 0),
      formatSummary(t.unbound, 0),
      ratio(t.system.median, t.validating.median, 2),
      formatSummary(t.revalidating, 0),
      ratio(t.system.median, t.revalidating.median, 2),
    ]);
  }
  ctx.log('  dnssec warm (validating backend): done');
  return [
    {
      caption:
        'Cold, the TypeScript validating backend (@dnscore/resolver-validating): a new backend per run, ' +
        `${runsFor(ctx, 11, 3)} runs each`,
      headers: [
        'question',
        'system (not validated), ms',
        'validating, ms',
        'libunbound (validated), ms',
        'validating ÷ system',
        'validating in D',
      ],
      rows: coldRows,
    },
    {
      caption:
        `Warm, the TypeScript validating backend: 16 in flight, ${ctx.quick ? 250 : 1000} ms windows, ` +
        `${runsFor(ctx, 5, 3)} runs`,
      headers: [
        'question',
        'system (not validated), per s',
        'validating, per s',
        'libunbound (validated), per s',
        'slowdown (system ÷ validating)',
        'validating, no validated answers kept, per s',
        'slowdown (system ÷ that)',
      ],
      rows: warmRows,
    },
  ];
}

export async function dnssecCost(ctx: BenchContext): Promise<Section> {
  const D = ctx.rig.delayMs;
  const coldRows: string[][] = [];
  for (const { work, label, delay } of coldCases(D)) {
    const p = await coldPair(ctx, work, delay);
    coldRows.push([
      label,
      `${p.plainQueries} / ${p.validatedQueries}`,
      formatSummary(p.plain, 1),
      formatSummary(p.validated, 1),
      ratio(p.validated.median, p.plain.median, 2),
    ]);
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
    title: '3. DNSSEC cost (libunbound and the TypeScript validator)',
    method:
      `The RFC 3263 zone signed with fresh ECDSA P-256 keys (\`${SIGNED_ZONE}\`) and served by nsd, asked through ` +
      `dnscore's libunbound backend with its DS as the trust anchor ("validated": every answer comes back secure, ` +
      `checked) ` +
      `and without any anchor ("not validated": insecure). Figures are medians (min-max). Validation costs the ` +
      `DNSKEY ` +
      `query of the zone (asked when the backend is made, so no round trip of its own) and the signature checks. ` +
      `libunbound strips the additional RRsets that did not validate from a secure answer (val-clean-additional), ` +
      `so @dnscore/sip takes a secure SRV answer's target addresses from it (additionalSecure) and asks no ` +
      `A/AAAA for them. The last two tables put the TypeScript validating backend (same anchor, same nsd, DO and CD ` +
      `through the system backend's transport) beside the system backend (not validated) and libunbound (validated).`,
    tables: [cold, warm, ...(await validatingTables(ctx, D))],
    notes: [],
  };
}
