/**
 * `dnscore sip URI`: the RFC 3263 step-through, the main job of the command. Each query and
 * answer, the rule that chose the transport, the ordered targets, and warnings about the
 * set-up. Exit 0 with targets, 3 with none, 4 when DNSSEC made them impossible, 5 when the
 * DNS could not be asked, 2 for an invalid URI or option.
 */
import { parseArgs } from 'node:util';
import { seededRandom } from '@dnscore/core';
import {
  BogusAnswerError,
  InsecureTargetsError,
  NoTargetsError,
  SipLocator,
  drawFirstTargets,
  parseSipUri,
  renderStepThrough,
  resolutionToJson,
  type DnssecPolicy,
  type DrawCounts,
  type SipResolution,
} from '@dnscore/sip';
import { backendOptions, buildCore } from '../backends.js';
import { ExitCode } from '../exit-codes.js';
import { integer, parseTransports } from '../flags.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

export const SIP_USAGE = `usage: dnscore sip URI [--transports udp,tcp,tls] [--no-ipv6] [--seed N] [--draws N] [--json]
                   [--dnssec off|prefer|require] [--sips-dnssec off|prefer|require]
                   [--resolver auto|zone|system|unbound|validating] [--zone FILE]... [--server IP[:PORT]]...
                   [trust-anchor flags]`;

export async function sipCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      transports: { type: 'string' },
      'no-ipv6': { type: 'boolean' },
      seed: { type: 'string' },
      draws: { type: 'string' },
      json: { type: 'boolean' },
      dnssec: { type: 'string' },
      'sips-dnssec': { type: 'string' },
      ...backendOptions,
    },
  });
  if (positionals.length !== 1) throw new UsageError(`sip takes one URI\n${SIP_USAGE}`);
  const uri = parseSipUri(positionals[0]!); // an invalid URI exits 2 before any backend starts
  const transports = parseTransports(values.transports ?? 'udp,tcp,tls');
  const seed = values.seed === undefined ? undefined : integer(values.seed, '--seed', -(2 ** 31), 2 ** 32 - 1);
  const draws = values.draws === undefined ? undefined : integer(values.draws, '--draws', 1, 1_000_000);
  const dnssec = policy(values.dnssec, '--dnssec');
  const sipsDnssec = policy(values['sips-dnssec'], '--sips-dnssec');
  const { core } = await buildCore(values, seed === undefined ? {} : { random: seededRandom(seed) });
  try {
    const locator = new SipLocator(core, {
      transports,
      ipv6: !values['no-ipv6'],
      ...(dnssec ? { dnssec } : {}),
      ...(sipsDnssec ? { sipsDnssec } : {}),
    });
    const resolution = await locator.resolve(uri, { stepThrough: true });
    const counts =
      draws === undefined || resolution.targets.length === 0 ? undefined : await drawFirstTargets(locator, uri, draws);
    if (values.json) io.stdout(`${JSON.stringify(resolutionToJson(resolution, counts))}\n`);
    else io.stdout(renderStepThrough(resolution) + (counts ? renderDraws(counts) : ''));
    return exitCodeOf(resolution, io);
  } finally {
    await core.close();
  }
}

function exitCodeOf(resolution: SipResolution, io: Io): ExitCode {
  const error = resolution.error;
  if (resolution.targets.length > 0 && !error) return ExitCode.OK;
  io.stderr(`dnscore: ${resolution.uri.text}: ${error?.message ?? 'no targets'}${error ? ` [${error.code}]` : ''}\n`);
  if (error instanceof BogusAnswerError || error instanceof InsecureTargetsError) return ExitCode.BOGUS;
  // Every question went unanswered (timeouts, network errors): the DNS said nothing at all.
  const answered = resolution.steps.some((s) => s.kind === 'query' && !s.error);
  if (error instanceof NoTargetsError && error.dnsErrors.length > 0 && !answered) return ExitCode.NO_ANSWER;
  return ExitCode.NOT_FOUND;
}

function policy(value: string | undefined, flag: string): DnssecPolicy | undefined {
  if (value === undefined || value === 'off' || value === 'prefer' || value === 'require') return value;
  throw new UsageError(`${flag} must be off, prefer or require, not "${value}"`);
}

function renderDraws(counts: DrawCounts): string {
  const lines = [`Draws: ${counts.n} resolutions, how often each SRV target came first`];
  for (const [host, n] of Object.entries(counts.first))
    lines.push(`  ${host}  ${n}  (${((100 * n) / counts.n).toFixed(1)}%)`);
  return `\n${lines.join('\n')}\n`;
}
