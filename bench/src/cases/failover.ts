/**
 * Part 4: failover. The first address of each scenario misbehaves, the second answers 200.
 * Measured: the time until the application gets the live server's answer, for the npm `sip`
 * stack on its own and for the same stack driven by dnscore's bridge, and the time of the next
 * request (the bridge's penalty box then skips the dead server; `sip` remembers nothing).
 */
import dns from 'node:dns';
import { DEFAULT_PENALTY_MS } from '@dnscore/sip';
import { expectSameSet } from '../systems/check.js';
import { compose, systemPlugin, targetLines } from '../systems/dnscore.js';
import {
  bridgeSender,
  sipStackSender,
  withoutSipStackNoise,
  type Sender,
  type SendResult,
} from '../systems/sip-senders.js';
import { sipStackResolve, useResolverForSipStack } from '../systems/sip-stack.js';
import {
  LIVE,
  SCENARIOS,
  received,
  scenarioUri,
  startFailoverRig,
  type FailoverRig,
  type Scenario,
} from '../rig/failover-rig.js';
import { count, formatSummary, ratio, summarize, type Summary } from '../stats.js';
import { runsFor, type BenchContext, type Section } from './section.js';

const EXPECTED_FIRST: Record<Scenario['id'], string> = {
  'silent-udp': 'timeout',
  'busy-udp': 'failover',
  'refused-tcp': 'transport-error',
  'silent-tcp': 'timeout',
};

let calls = 0;
const callId = (s: Scenario): string => `bench-${s.id}-${++calls}-${process.pid}`;

/** Both systems must see the dead address first and the live one second. */
async function checkOrder(rig: FailoverRig, s: Scenario): Promise<void> {
  const lines = [`${s.transport} ${s.dead} ${rig.port}`, `${s.transport} ${LIVE} ${rig.port}`];
  const c = compose(systemPlugin(rig.nsd.endpoint), false, { ipv6: false });
  const dnscore = targetLines(await c.locator.resolve(scenarioUri(s)));
  await c.close();
  if (dnscore.join() !== lines.join())
    throw new Error(`${s.id}: dnscore targets ${dnscore.join(', ')}, expected ${lines.join(', ')}`);
  const resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([rig.nsd.endpoint]);
  useResolverForSipStack(resolver);
  const stack = await sipStackResolve(scenarioUri(s));
  expectSameSet(`npm sip stack on ${s.id}`, lines, stack);
  if (stack[0] !== lines[0])
    throw new Error(`${s.id}: the npm sip stack would try ${stack[0]} first, not the dead ${s.dead}`);
}

/** First and next request through a fresh bridge (fresh cache and penalty box); both checked. */
async function bridgeRun(
  rig: FailoverRig,
  s: Scenario,
  targetTimeoutMs?: number,
): Promise<{ first: SendResult; next: SendResult }> {
  // The next request measures the penalty box: the bench sends OPTIONS and its busy server says
  // 503 without Retry-After, two failures the default policy does not box, so this run boxes them.
  const sender = await bridgeSender(rig.nsd.endpoint, {
    ...(targetTimeoutMs ? { targetTimeoutMs } : {}),
    penalty: { nonInviteTimeoutMs: DEFAULT_PENALTY_MS, serviceUnavailableMs: DEFAULT_PENALTY_MS },
  });
  try {
    const first = await sender.send(scenarioUri(s), callId(s));
    const want = [`${s.dead} ${EXPECTED_FIRST[s.id]}`, `${LIVE} response`];
    if (first.status !== 200 || first.tries?.join() !== want.join())
      throw new Error(
        `bridge, ${s.id}: got ${first.status} after [${first.tries?.join(', ')}], expected 200 after ` +
          `[${want.join(', ')}]`,
      );
    const next = await sender.send(scenarioUri(s), callId(s));
    if (next.status !== 200 || next.tries?.join() !== `${LIVE} response`)
      throw new Error(`bridge, ${s.id}, next request: got ${next.status} after [${next.tries?.join(', ')}]`);
    return { first, next };
  } finally {
    await sender.close();
  }
}

/** One request through the `sip` stack alone; checks who got it. */
async function stackSend(rig: FailoverRig, sender: Sender, s: Scenario): Promise<SendResult> {
  const id = callId(s);
  const result = await withoutSipStackNoise(() => sender.send(scenarioUri(s), id));
  const live = received(rig.peers.get(`${LIVE} ${s.transport}`), id);
  if (s.timerB) {
    if (result.status !== 408 || live !== 0)
      throw new Error(
        `npm sip stack, ${s.id}: ${result.status} and ${live} requests at the live server; expected 408 and none`,
      );
  } else if (result.status !== 200 || live !== 1) {
    throw new Error(
      `npm sip stack, ${s.id}: ${result.status} and ${live} requests at the live server; expected 200 and one`,
    );
  }
  return result;
}

/** Interleaved runs of `run` for several scenarios at once (timer-bound cases wait side by side). */
async function sideBySide<T>(
  scenarios: readonly Scenario[],
  runs: number,
  run: (s: Scenario) => Promise<T>,
): Promise<Map<string, T[]>> {
  const results = new Map<string, T[]>(scenarios.map((s) => [s.id, []]));
  for (let i = 0; i < runs; i++) {
    const round = await Promise.all(scenarios.map(run));
    for (const [j, r] of round.entries()) results.get(scenarios[j]!.id)!.push(r);
  }
  return results;
}

const ms = (s: Summary | undefined): string => (s ? formatSummary(s, s.median >= 100 ? 0 : 1) : '-');

export async function failoverCase(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const rig = await startFailoverRig();
  const stack = await sipStackSender(rig.nsd.endpoint);
  try {
    for (const s of SCENARIOS) await checkOrder(rig, s);
    const fast = SCENARIOS.filter((s) => !s.timerB);
    const slow = SCENARIOS.filter((s) => s.timerB);
    // The 32-second cases of the `sip` stack run in the background, once, while the rest is measured.
    const timerB = ctx.quick
      ? undefined
      : Promise.all(
          slow.map(async (s) => ({
            id: s.id,
            first: await stackSend(rig, stack, s),
            next: await stackSend(rig, stack, s),
          })),
        );

    const stackFast = new Map<string, { first: number[]; next: number[] }>();
    for (const s of fast) {
      await stackSend(rig, stack, s); // checked, not timed
      const first: number[] = [];
      const next: number[] = [];
      for (let i = 0; i < runsFor(ctx, 7, 3); i++) {
        first.push((await stackSend(rig, stack, s)).ms);
        next.push((await stackSend(rig, stack, s)).ms);
      }
      stackFast.set(s.id, { first, next });
    }
    ctx.log('  failover: npm sip stack, 503 and refused: done');

    await sideBySide(fast, 1, (s) => bridgeRun(rig, s)); // checked, not timed
    const bridgeFast = await sideBySide(fast, runsFor(ctx, 7, 3), (s) => bridgeRun(rig, s));
    const bridgeSlow = await sideBySide(slow, runsFor(ctx, 3, 1), (s) => bridgeRun(rig, s));
    const tuned = await sideBySide(slow, runsFor(ctx, 5, 2), (s) => bridgeRun(rig, s, 500));
    ctx.log('  failover: bridge: done');
    const slowResults = timerB ? await timerB : undefined;
    ctx.log('  failover: npm sip stack, 32-second cases: done');

    const rows: string[][] = SCENARIOS.map((s) => {
      const b = (bridgeFast.get(s.id) ?? bridgeSlow.get(s.id))!;
      const bFirst = summarize(b.map((r) => r.first.ms));
      const bNext = summarize(b.map((r) => r.next.ms));
      let sFirst: string;
      let sNext: string;
      let vs: string;
      if (!s.timerB) {
        const r = stackFast.get(s.id)!;
        const first = summarize(r.first);
        sFirst = ms(first);
        sNext = ms(summarize(r.next));
        vs = ratio(first.median, bFirst.median, 1);
      } else {
        const r = slowResults?.find((x) => x.id === s.id);
        sFirst = r ? `${count(r.first.ms)}: 408, no failover (measured once)` : 'skipped in --quick (32 s by design)';
        sNext = r ? `${count(r.next.ms)}: 408 again (measured once)` : 'skipped';
        vs = r ? 'never reaches it' : '-';
      }
      return [s.label, sFirst, sNext, ms(bFirst), ms(bNext), vs];
    });
    for (const s of slow) {
      const t = tuned.get(s.id)!;
      rows.push([
        `${s.label}, bridge with targetTimeoutMs 500`,
        '-',
        '-',
        ms(summarize(t.map((r) => r.first.ms))),
        ms(summarize(t.map((r) => r.next.ms))),
        '-',
      ]);
    }
    return {
      id: 'failover',
      title: '4. Failover',
      method:
        `An OPTIONS request to \`sip:svc@SCENARIO.failover.example;transport=udp|tcp\`: one SRV target with two ` +
        `addresses, ` +
        `the first misbehaving, the second (${LIVE}) answering 200; both systems were checked to try them in that ` +
        `order. ` +
        `Time is from the send to the final response the application gets, DNS (nsd on loopback, no delay) included; ` +
        `every run checks who got the request and what came back. The npm \`sip\` stack runs as it is (its ` +
        `resolve(), its ` +
        `sequential search, Timer B/F of 32 s). ` +
        `The bridge is @dnscore/sip-bridge's \`SipBridge\` driving the same stack: ` +
        `@dnscore/sip targets, its failover cursor (default per-target timer 6 s) and penalty box; each run uses a ` +
        `new bridge ` +
        `(empty cache, empty penalty box), then sends a second request while the dead server is in the penalty box ` +
        `(its policy boxes OPTIONS timeouts and a 503 without Retry-After, which the default policy does not). ` +
        `Peers are the repository's node SIP peer (test/support/sip-peer.ts) on 127.0.9.x; "refusing TCP" is an ` +
        `address ` +
        `where nothing listens. Cases that wait for a timer run side by side.`,
      tables: [
        {
          caption:
            `Time until the live server's answer, ms, median (min-max); runs: ${runsFor(ctx, 7, 3)} (503, ` +
            `refused), ${runsFor(ctx, 3, 1)} (silent, 6 s timer), ${runsFor(ctx, 5, 2)} (500 ms timer)`,
          headers: [
            'first target',
            '`sip` stack: first request',
            '`sip` stack: next request',
            'bridge: first request',
            'bridge: next request (penalty box)',
            '`sip` ÷ bridge (first)',
          ],
          rows,
        },
      ],
      notes,
    };
  } finally {
    await stack.close();
    await rig.stop();
  }
}
