/**
 * `dnscore check DOMAIN|URI`: a domain's SIP DNS against the walk-through's common mistakes
 * and the RFC rules (@dnscore/serve holds the rules). Exit 0 when nothing at warning level or
 * above was found, 1 when something was, 2 for bad input, 5 when the DNS gave no answer.
 */
import { parseArgs } from 'node:util';
import { hasProblems, parseCheckTarget, renderCheck, runCheck } from '@dnscore/serve';
import { backendOptions, buildCore } from '../backends.js';
import { ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

export const CHECK_USAGE = `usage: dnscore check DOMAIN|URI [--json] [backend flags]`;

export async function checkCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { json: { type: 'boolean' }, ...backendOptions },
  });
  if (positionals.length !== 1) throw new UsageError(`check takes one domain or URI\n${CHECK_USAGE}`);
  parseCheckTarget(positionals[0]!); // bad input exits 2 before any backend starts
  const { core } = await buildCore(values);
  try {
    const report = await runCheck(core, positionals[0]!);
    io.stdout(values.json ? `${JSON.stringify(report)}\n` : renderCheck(report));
    if (!report.answered) {
      io.stderr(`dnscore: ${report.domain}: no question got an answer\n`);
      return ExitCode.NO_ANSWER;
    }
    return hasProblems(report) ? ExitCode.FINDINGS : ExitCode.OK;
  } finally {
    await core.close();
  }
}
