/** Command-line options of the bench. */
import { fileURLToPath } from 'node:url';

export interface BenchArgs {
  /** Fewer runs, shorter windows, the 32-second cases skipped: under a minute. */
  readonly quick: boolean;
  /** Case ids to run (default all, in CASE_IDS order). */
  readonly only: readonly string[] | undefined;
  /**
   * Where the report goes: BENCHMARKS.md at the repository root for a full run of every case;
   * bench/dist/BENCHMARKS.quick.md or BENCHMARKS.partial.md otherwise, so they never replace it.
   */
  readonly out: string;
}

export const CASE_IDS = [
  'cold',
  'warm',
  'dnssec',
  'failover',
  'concurrency',
  'nodedns',
  'shared',
  'unbound',
  'diagnostics',
  'sipguard',
] as const;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function parseArgs(argv: readonly string[]): BenchArgs {
  let quick = false;
  let only: string[] | undefined;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--only') only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg === '--out') out = argv[++i];
    else if (arg === '--help' || arg === '-h') {
      console.log(
        'usage: npm run bench -- [--quick] [--only ' +
          'cold,warm,dnssec,failover,concurrency,nodedns,shared,unbound,diagnostics,sipguard] [--out FILE]',
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${arg} (try --help)`);
  }
  for (const id of only ?? []) {
    if (!(CASE_IDS as readonly string[]).includes(id))
      throw new Error(`unknown case ${id}: one of ${CASE_IDS.join(', ')}`);
  }
  const fallback = quick
    ? `${ROOT}bench/dist/BENCHMARKS.quick.md`
    : only
      ? `${ROOT}bench/dist/BENCHMARKS.partial.md`
      : `${ROOT}BENCHMARKS.md`;
  return { quick, only, out: out ?? fallback };
}
