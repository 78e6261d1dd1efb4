/**
 * `dnscore resolve NAME [--type T] [backend flags] [--json]`: one question, answered like dig.
 * Exit 0 with records, 3 for NXDOMAIN or NODATA, 4 for bogus, 5 when no answer was obtained.
 */
import { parseArgs } from 'node:util';
import { Rcode, makeQuery, typeName, type DnsResult } from '@dnscore/core';
import { backendOptions, buildCore } from '../backends.js';
import { ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { edeText, resultToText } from '../output/dig.js';
import { resultToJson } from '../output/json.js';
import { unsupportedAlgorithmNote } from '../unsupported-algorithm.js';
import { UsageError } from '../usage-error.js';

export const RESOLVE_USAGE = `usage: dnscore resolve NAME [--type T] [--class C] [--json]
                       [--resolver auto|zone|system|unbound|validating] [--zone FILE]... [--server IP[:PORT]]...
                       [--trust-anchor TEXT]... [--trust-anchor-file FILE] [--insecure-domain NAME]...
                       [--timeout MS] [--attempts N]`;

export async function resolveCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      type: { type: 'string', short: 't' },
      class: { type: 'string' },
      json: { type: 'boolean' },
      ...backendOptions,
    },
  });
  if (positionals.length !== 1) throw new UsageError(`resolve takes one NAME\n${RESOLVE_USAGE}`);
  // Bad input: exit 2 before any backend starts.
  const query = makeQuery(positionals[0]!, values.type ?? 'A', values.class ?? 'IN');
  const { core, validator } = await buildCore(values);
  try {
    const result = await core.resolveQuery(query);
    if (values.json) io.stdout(`${JSON.stringify(resultToJson(result, typeName(query.type)))}\n`);
    else io.stdout(resultToText(result));
    if (validator && result.resolver === validator.name && result.dnssec === 'insecure') {
      const note = await unsupportedAlgorithmNote(core, validator, result.canonical);
      if (note) io.stderr(`dnscore: ${result.query.name}: insecure: ${note}\n`);
    }
    return exitCodeOf(result, io);
  } finally {
    await core.close();
  }
}

function exitCodeOf(result: DnsResult, io: Io): ExitCode {
  if (result.bogus) {
    io.stderr(
      `dnscore: ${result.query.name}: bogus DNSSEC answer: ` +
        `${edeText(result)}${result.whyBogus ?? 'validation failed'}\n`,
    );
    return ExitCode.BOGUS;
  }
  if (result.rcode === Rcode.NXDOMAIN) {
    io.stderr(`dnscore: ${result.query.name}: no such name (NXDOMAIN)\n`);
    return ExitCode.NOT_FOUND;
  }
  if (result.rcode !== Rcode.NOERROR) {
    io.stderr(`dnscore: ${result.query.name}: the server answered ${result.rcodeName}\n`);
    return ExitCode.NO_ANSWER;
  }
  if (result.records.length === 0) {
    io.stderr(`dnscore: ${result.query.name}: no ${typeName(result.query.type)} records (NODATA)\n`);
    return ExitCode.NOT_FOUND;
  }
  return ExitCode.OK;
}
