/**
 * Summaries of repeated measurements: every figure of the report is the median of several
 * runs with their min and max, and a comparison is a ratio of two medians of the same run.
 */

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error('no samples to summarize');
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, runs: sorted.length };
}

/** Nearest-rank percentile (0..1) of `samples`. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** "12.3 (11.9-13.0)": median, then min-max, with `digits` decimals. */
export function formatSummary(s: Summary, digits = 1, unit = ''): string {
  return `${fixed(s.median, digits)}${unit} (${fixed(s.min, digits)}-${fixed(s.max, digits)})`;
}

/** A summary divided by a constant (a latency as a multiple of the delay D). */
export function scale(s: Summary, by: number): Summary {
  return { median: s.median / by, min: s.min / by, max: s.max / by, runs: s.runs };
}

/** "2.4x": how many times `value` is `reference` (medians of the same run). */
export function ratio(value: number, reference: number, digits = 1): string {
  if (!(reference > 0) || !Number.isFinite(value)) return 'n/a';
  const r = value / reference;
  return `${fixed(r, r >= 100 ? 0 : digits)}x`;
}

/** Thousands separated by a thin comma, without decimals. */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function fixed(value: number, digits: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 1000) return count(value);
  return value.toFixed(digits);
}

/** Milliseconds since `start` (performance.now()). */
export function since(start: number): number {
  return performance.now() - start;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Operations per second: `concurrency` loops call `operation(loop)` back to back until
 * `windowMs` has passed; the count is divided by the time until the last loop stopped.
 */
export async function throughput(
  operation: (loop: number) => Promise<unknown>,
  windowMs: number,
  concurrency: number,
): Promise<number> {
  let done = 0;
  const start = performance.now();
  const end = start + windowMs;
  const loop = async (_: unknown, index: number): Promise<void> => {
    while (performance.now() < end) {
      await operation(index);
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return done / (since(start) / 1000);
}
