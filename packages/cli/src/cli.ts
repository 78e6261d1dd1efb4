/**
 * The dnscore command: dispatches to a subcommand and turns every failure into an exit code
 * and one clear line on stderr. Nothing but the command's output goes to stdout.
 */
import { DnsError, InvalidArgumentError } from '@dnscore/core';
import { resolveCommand, RESOLVE_USAGE } from './commands/resolve.js';
import { pingCommand, PING_USAGE } from './commands/ping.js';
import { sipCommand, SIP_USAGE } from './commands/sip.js';
import { checkCommand, CHECK_USAGE } from './commands/check.js';
import { serveCommand, SERVE_USAGE } from './commands/serve.js';
import { ExitCode } from './exit-codes.js';
import { processIo, type Io } from './io.js';
import { terminalSafe } from './output/terminal.js';
import { startTrace, takeTraceFlag } from './trace.js';
import { UsageError } from './usage-error.js';

type Command = (argv: readonly string[], io: Io) => Promise<ExitCode>;

const commands = new Map<string, { readonly command: Command; readonly usage: string }>([
  ['resolve', { command: resolveCommand, usage: RESOLVE_USAGE }],
  ['sip', { command: sipCommand, usage: SIP_USAGE }],
  ['ping', { command: pingCommand, usage: PING_USAGE }],
  ['check', { command: checkCommand, usage: CHECK_USAGE }],
  ['serve', { command: serveCommand, usage: SERVE_USAGE }],
]);

export const USAGE = `usage: dnscore <command> [options]

global option:
  --trace[=json]  what the resolver did (queries, cache, fallbacks, failover) on stderr; json: one object a line

commands:
  resolve NAME    resolve one question, printed like dig (--json for JSON)
  sip URI         where to send a SIP request: the RFC 3263 step-through and the ordered targets
  ping URI        send SIP requests through RFC 3263 failover: every try, and who answered
  check DOMAIN    a domain's SIP DNS against the common mistakes and RFC rules (exit 1 on warnings)
  serve           the step-through in a browser: a page and JSON API on http://127.0.0.1:8053/

${RESOLVE_USAGE}
${SIP_USAGE}
${PING_USAGE}
${CHECK_USAGE}
${SERVE_USAGE}
`;

export async function run(args: readonly string[], raw: Io = processIo): Promise<ExitCode> {
  // One funnel for all output, whatever a command prints (issue 21 item 8): escaped, and error
  // lines bounded (stdout may hold one long JSON document; its data is bounded by the packets).
  const io: Io = {
    ...raw,
    stdout: (text) => raw.stdout(terminalSafe(text, Number.POSITIVE_INFINITY)),
    stderr: (text) => raw.stderr(terminalSafe(text)),
  };
  let argv: readonly string[];
  let stopTrace: (() => void) | undefined;
  try {
    const taken = takeTraceFlag(args);
    argv = taken.argv;
    // The trace writes through the funnel too: names from the network are escaped there.
    if (taken.trace) stopTrace = startTrace(taken.trace, io);
  } catch (error) {
    return report(error, io);
  }
  try {
    return await dispatch(argv, io);
  } finally {
    stopTrace?.();
  }
}

async function dispatch(argv: readonly string[], io: Io): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(USAGE);
    return ExitCode.OK;
  }
  if (name === undefined) {
    // Asked for nothing: bad input, so the usage goes with the error, on stderr.
    io.stderr(`dnscore: no command given\n${USAGE}`);
    return ExitCode.BAD_INPUT;
  }
  const command = commands.get(name);
  if (!command) {
    io.stderr(`dnscore: unknown command "${name}"\n${USAGE}`);
    return ExitCode.BAD_INPUT;
  }
  if (asksForHelp(rest)) {
    io.stdout(`${command.usage}\n`);
    return ExitCode.OK;
  }
  try {
    return await command.command(rest, io);
  } catch (error) {
    return report(error, io);
  }
}

/** `--help` or `-h` among the options (not after `--`, where it would be a positional). */
function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** Bad input exits 2; anything else means no answer was obtained (5). */
function report(error: unknown, io: Io): ExitCode {
  const message = oneLine(error);
  if (error instanceof InvalidArgumentError || isParseArgsError(error)) {
    io.stderr(`dnscore: ${message}\n`);
    return ExitCode.BAD_INPUT;
  }
  const code = error instanceof DnsError ? ` [${error.code}]` : '';
  io.stderr(`dnscore: no answer: ${message}${code}\n`);
  return ExitCode.NO_ANSWER;
}

/**
 * The reason of a failure on one line: a newline that came from the input (a URI, a flag's
 * value) is shown as \\n; node:util's parseArgs explains over several lines, joined here. A
 * command's usage, when it follows the reason, keeps its lines.
 */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (isParseArgsError(error)) return message.replace(/\s*\n\s*/g, ' ');
  const usage = error instanceof UsageError ? message.indexOf('\nusage: dnscore') : -1;
  const reason = usage < 0 ? message : message.slice(0, usage);
  return reason.replace(/\r/g, '\\r').replace(/\n/g, '\\n') + (usage < 0 ? '' : message.slice(usage));
}

/** node:util parseArgs throws TypeErrors coded ERR_PARSE_ARGS_* for unknown or malformed options. */
function isParseArgsError(error: unknown): boolean {
  const code: unknown = (error as { code?: unknown } | undefined)?.code;
  return error instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
