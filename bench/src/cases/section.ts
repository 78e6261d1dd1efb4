/** What a benchmark case hands the report: tables and notes, plus how long it took. */
import type { Rig } from '../rig/rig.js';

export interface Table {
  readonly caption?: string;
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export interface Section {
  readonly id: string;
  readonly title: string;
  /** What is measured and how, one paragraph. */
  readonly method: string;
  readonly tables: readonly Table[];
  /** What the numbers say, and checks that failed. */
  readonly notes: readonly string[];
  /** Filled in by the runner. */
  seconds?: number;
}

export interface BenchContext {
  readonly quick: boolean;
  readonly rig: Rig;
  log(line: string): void;
}

export type BenchCase = (ctx: BenchContext) => Promise<Section>;

/** How many interleaved runs each figure is the median of. */
export function runsFor(ctx: BenchContext, full: number, quick: number): number {
  return ctx.quick ? quick : full;
}
