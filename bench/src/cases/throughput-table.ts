/**
 * Warm throughput of several systems doing the same unit of work, interleaved run by run:
 * each system's answer is checked first, then its caches are filled, then each run counts
 * completed operations in a fixed window.
 */
import { expectSameSet, WrongAnswerError } from '../systems/check.js';
import { count, formatSummary, ratio, summarize, throughput } from '../stats.js';
import type { Table } from './section.js';

export interface ThroughputSystem {
  readonly name: string;
  /** Lines the operation must return (any order); undefined: checked by `check` instead. */
  readonly expected?: readonly string[];
  /** Extra check of one result (secure flags and such); throws when wrong. */
  check?(lines: readonly string[]): void;
  /** The operation of loop number `loop`; its state (caches, sockets) lives in the closure. */
  readonly run: (loop: number) => Promise<string[]>;
  close?(): Promise<void> | void;
}

export interface ThroughputPlan {
  readonly caption: string;
  readonly windowMs: number;
  readonly concurrency: number;
  readonly runs: number;
  /** Ratios are against this system's median (default the first). */
  readonly reference?: string;
  readonly unit?: string;
}

export async function throughputTable(
  plan: ThroughputPlan,
  systems: readonly ThroughputSystem[],
  notes: string[],
): Promise<Table> {
  const valid: ThroughputSystem[] = [];
  for (const system of systems) {
    try {
      const lines = await system.run(0);
      if (system.expected) expectSameSet(system.name, system.expected, lines);
      system.check?.(lines);
      // Fill every cache and let the JIT settle before the first timed window.
      await throughput(system.run, Math.min(200, plan.windowMs), plan.concurrency);
      valid.push(system);
    } catch (error) {
      notes.push(`${system.name} not timed: ${error instanceof WrongAnswerError ? error.message : String(error)}`);
    }
  }
  const samples = new Map<string, number[]>(valid.map((s) => [s.name, []]));
  for (let round = 0; round < plan.runs; round++) {
    const order = valid.map((_, i) => valid[(i + round) % valid.length]!);
    for (const system of order)
      samples.get(system.name)!.push(await throughput(system.run, plan.windowMs, plan.concurrency));
  }
  for (const system of systems) await system.close?.();
  const referenceName = plan.reference ?? valid[0]?.name;
  const reference = referenceName && samples.get(referenceName) ? summarize(samples.get(referenceName)!).median : NaN;
  const rows = systems.map((system) => {
    const s = samples.get(system.name);
    if (!s) return [system.name, 'not timed (see below)', '-', '-'];
    const summary = summarize(s);
    return [
      system.name,
      formatSummary(summary, 0),
      `${count(1e6 / summary.median)}`,
      ratio(reference, summary.median, 1),
    ];
  });
  return {
    caption: `${plan.caption} (${plan.concurrency} in flight, ${plan.windowMs} ms windows, ${plan.runs} runs)`,
    headers: [
      'system',
      `${plan.unit ?? 'resolutions'}/s, median (min-max)`,
      'µs each',
      `${referenceName === valid[0]?.name ? 'row 1' : referenceName} ÷ this`,
    ],
    rows,
  };
}
