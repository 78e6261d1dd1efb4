/**
 * `dnscore ping URI`: sends N requests (OPTIONS by default) one after another through one
 * bridge into the `sip` stack, so the failover and the penalty box show: after a failed first
 * target, the next request passes it over and says why. Prints every try (target, outcome,
 * status, milliseconds), every target skipped (its penalty reason and how long it is left), every
 * NAPTR passed over (every target of it failed, or it is remembered), which target answered,
 * and at the end what the penalty box and the NAPTR memory hold. Exit 0 when every request was
 * answered, 3 when one was not, 2 for bad input. The tool an integrator runs to check DNS
 * failover and a failover policy.
 */
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { seededRandom } from '@dnscore/core';
import { SipBridge, loadSipStack, type BridgeAttempt, type SendReport, type SipRequest } from '@dnscore/sip-bridge';
import {
  DEFAULT_TARGET_TIMEOUT_MS,
  DEFAULT_TRANSACTION_TIMEOUT_MS,
  NAPTR_MEMORY_MODES,
  SipLocator,
  isSipToken,
  parseSipUri,
  type NaptrMemoryEntry,
  type NaptrMemoryMode,
  type NaptrSkip,
  type NaptrSkipReason,
  type PenaltyEntry,
  type PenaltyReason,
  type SipTransport,
} from '@dnscore/sip';
import { backendOptions, buildCore } from '../backends.js';
import { ExitCode } from '../exit-codes.js';
import { integer, parseStatusCodes, parseTransports } from '../flags.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

export const PING_USAGE = `usage: dnscore ping URI [--method OPTIONS] [--count N] [--per-target-timeout MS]
                    [--transaction-timeout MS] [--failover-on 503,...] [--naptr-memory off|request|ttl]
                    [--transports udp,tcp,tls] [--bind ADDRESS[:PORT]] [--ca FILE] [--seed N] [--json]
                    [--resolver auto|zone|system|unbound|validating] [--zone FILE]... [--server IP[:PORT]]...
                    [trust-anchor flags]`;

/** Methods ping refuses: an INVITE would start a call, ACK and CANCEL belong to other requests. */
const REFUSED_METHODS = new Set(['INVITE', 'ACK', 'CANCEL', 'PRACK', 'BYE']);
const MAX_COUNT = 10_000;

export interface PingJson {
  readonly requests: readonly {
    readonly attempts: readonly {
      transport: SipTransport;
      address: string;
      port: number;
      outcome: BridgeAttempt['outcome'];
      status: number | null;
      ms: number;
      /** Targets passed over for this one: in the penalty box, with why and until when (ISO 8601). */
      skipped: {
        transport: SipTransport;
        address: string;
        port: number;
        reason: PenaltyReason;
        detail: string;
        until: string;
      }[];
      /** NAPTRs passed over for this one: every target failed in this request, or remembered (until ISO 8601). */
      skippedNaptrs: {
        owner: string;
        record: string;
        transport: SipTransport;
        reason: NaptrSkipReason;
        detail: string;
        until: string | null;
      }[];
    }[];
    readonly answeredBy: { transport: SipTransport; address: string; port: number } | null;
  }[];
  /** The penalty box after the last request: target, reason, until. */
  readonly penaltyBox: readonly {
    transport: SipTransport;
    address: string;
    port: number;
    reason: PenaltyReason;
    detail: string;
    until: string;
  }[];
  /** NAPTRs remembered as failed after the last request (--naptr-memory ttl). */
  readonly naptrMemory: readonly {
    owner: string;
    record: string;
    transport: SipTransport;
    detail: string;
    until: string;
  }[];
}

export async function pingCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      method: { type: 'string' },
      count: { type: 'string' },
      'per-target-timeout': { type: 'string' },
      'transaction-timeout': { type: 'string' },
      'failover-on': { type: 'string' },
      'naptr-memory': { type: 'string' },
      transports: { type: 'string' },
      bind: { type: 'string' },
      ca: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      ...backendOptions,
    },
  });
  // Every check on the command line comes before any socket or backend starts: bad input exits 2.
  if (positionals.length !== 1) throw new UsageError(`ping takes one URI\n${PING_USAGE}`);
  const uri = parseSipUri(positionals[0]!);
  const method = (values.method ?? 'OPTIONS').toUpperCase();
  if (!isSipToken(method) || !/^[A-Z]/.test(method))
    throw new UsageError(`--method "${values.method}" is not a SIP method`);
  if (REFUSED_METHODS.has(method))
    throw new UsageError(
      `--method ${method} is not for pinging: use OPTIONS, INFO, MESSAGE or another request that ends in one ` +
        `transaction`,
    );
  const count = integer(values.count ?? '1', '--count', 1, MAX_COUNT);
  const timeout = integer(
    values['per-target-timeout'] ?? String(DEFAULT_TARGET_TIMEOUT_MS),
    '--per-target-timeout',
    1,
    600_000,
  );
  const transactionTimeout = integer(
    values['transaction-timeout'] ?? String(DEFAULT_TRANSACTION_TIMEOUT_MS),
    '--transaction-timeout',
    1,
    600_000,
  );
  const failoverOn =
    values['failover-on'] === undefined ? undefined : parseStatusCodes(values['failover-on'], '--failover-on');
  const naptrMemory = values['naptr-memory'];
  if (naptrMemory !== undefined && !NAPTR_MEMORY_MODES.includes(naptrMemory as NaptrMemoryMode))
    throw new UsageError(`--naptr-memory takes off, request or ttl, not "${naptrMemory}"`);
  const transports = parseTransports(values.transports ?? 'udp,tcp,tls');
  const seed = values.seed === undefined ? undefined : integer(values.seed, '--seed', -(2 ** 31), 2 ** 32 - 1);
  const bind = parseBind(values.bind ?? '0.0.0.0');
  const ca = values.ca === undefined ? undefined : readCa(values.ca);
  const stack = await loadSipStack();

  const { core } = await buildCore(values, seed === undefined ? {} : { random: seededRandom(seed) });
  let bridge: SipBridge | undefined;
  try {
    // `sip` opens one UDP socket, of the family of the bind address: only targets of that family are asked for.
    const family = isIP(bind.address) === 6 ? 6 : 4;
    const locator = new SipLocator(core, {
      transports,
      ipv4: family === 4,
      ipv6: family === 6,
      targetTimeoutMs: timeout,
      transactionTimeoutMs: transactionTimeout,
      ...(failoverOn ? { failoverOn } : {}),
      ...(naptrMemory !== undefined ? { naptrMemory: naptrMemory as NaptrMemoryMode } : {}),
    });
    const port = bind.port ?? (await freeUdpPort(bind.address));
    bridge = await SipBridge.create(stack, locator, {
      address: bind.address,
      port,
      tcpListener: false,
      ...(ca ? { tls: { ca } } : {}),
    });
    if (!values.json)
      io.stdout(
        `PING ${uri.text}: ${count} ${method} request${count === 1 ? '' : 's'}, per-target timer ${timeout} ms\n`,
      );
    const reports: SendReport[] = [];
    for (let i = 1; i <= count; i++) {
      const report = await bridge.send(request(uri.text, method, i, bridge.endpoint.viaHost, port));
      reports.push(report);
      if (!values.json) io.stdout(renderRequest(i, report));
    }
    const answered = reports.filter((r) => r.answeredBy !== null).length;
    const box = locator.penaltyBox.entries();
    const remembered = locator.naptrMemory.entries();
    if (values.json) io.stdout(`${JSON.stringify(pingToJson(reports, box, remembered))}\n`);
    else {
      io.stdout(`${answered} of ${count} request${count === 1 ? '' : 's'} answered\n`);
      io.stdout(renderState(box, remembered));
    }
    if (answered === count) return ExitCode.OK;
    io.stderr(
      `dnscore: ${count - answered} of ${count} request${count === 1 ? '' : 's'} to ${uri.text} got no answer\n`,
    );
    return ExitCode.NOT_FOUND;
  } finally {
    bridge?.close();
    await core.close();
  }
}

/** The `--json` document: exactly the shape of the issue, with the penalty box and NAPTR memory at the end. */
export function pingToJson(
  reports: readonly SendReport[],
  box: readonly PenaltyEntry[] = [],
  remembered: readonly NaptrMemoryEntry[] = [],
): PingJson {
  const where = (t: {
    transport: SipTransport;
    address: string;
    port: number;
  }): { transport: SipTransport; address: string; port: number } => ({
    transport: t.transport,
    address: t.address,
    port: t.port,
  });
  const entry = (e: PenaltyEntry) => ({
    ...where(e),
    reason: e.reason,
    detail: e.detail,
    until: new Date(e.until).toISOString(),
  });
  const naptr = (n: NaptrSkip) => ({
    owner: n.owner,
    record: n.record,
    transport: n.transport,
    reason: n.reason,
    detail: n.detail,
    until: n.until === undefined ? null : new Date(n.until).toISOString(),
  });
  return {
    requests: reports.map((r) => ({
      attempts: r.attempts.map((a) => ({
        ...where(a.target),
        outcome: a.outcome,
        status: a.status,
        ms: a.ms,
        skipped: a.skipped.map(entry),
        skippedNaptrs: a.skippedNaptrs.map(naptr),
      })),
      answeredBy: r.answeredBy ? where(r.answeredBy) : null,
    })),
    penaltyBox: box.map(entry),
    naptrMemory: remembered.map((n) => ({
      owner: n.owner,
      record: n.record,
      transport: n.transport,
      detail: n.detail,
      until: new Date(n.until).toISOString(),
    })),
  };
}

/** What the next request would meet: the penalty box and the remembered NAPTRs, when not empty. */
function renderState(box: readonly PenaltyEntry[], remembered: readonly NaptrMemoryEntry[]): string {
  const lines: string[] = [];
  for (const e of box)
    lines.push(`penalty box: ${destination(e).padEnd(24)} ${e.reason} (${e.detail}), ${left(e)} left`);
  for (const n of remembered) lines.push(`NAPTR memory: ${n.owner} NAPTR ${n.record} (${n.detail}), ${left(n)} left`);
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

function renderRequest(n: number, report: SendReport): string {
  const lines = [`request ${n}:`];
  for (const [i, a] of report.attempts.entries()) {
    for (const n of a.skippedNaptrs)
      lines.push(
        `  skip   NAPTR ${n.record} of ${n.owner}: ` +
          (n.reason === 'remembered'
            ? `remembered as failed (${n.detail}), ${left({ until: n.until! })} left`
            : `every target failed in this request (${n.detail.replace(/^every target failed: /, '')})`) +
          `${n.reason === 'failed' && n.until !== undefined ? `; remembered for ${left({ until: n.until })}` : ''}`,
      );
    for (const e of a.skipped)
      lines.push(
        `  skip   ${destination(e).padEnd(24)} in the penalty box: ${e.reason} (${e.detail}), ${left(e)} left`,
      );
    const notes = [
      a.penalized ? 'from the penalty box' : '',
      a.pinned ? 'Call-ID affinity' : '',
      a.switched ? 'over 1300 bytes: TCP' : '',
      a.capped ? `timer cut to ${a.timeoutMs} ms by the transaction bound` : '',
    ].filter(Boolean);
    lines.push(
      `  try ${i + 1}  ${destination(a.target).padEnd(24)} ${`(${a.target.host})`.padEnd(28)} ` +
        `${a.outcome.padEnd(15)} ${String(a.status ?? '-').padStart(3)} ${String(a.ms).padStart(6)} ` +
        `ms${notes.length ? `  [${notes.join(', ')}]` : ''}`,
    );
  }
  if (report.answeredBy) lines.push(`  answered by ${destination(report.answeredBy)}`);
  else
    lines.push(
      `  no answer: ` +
        (report.error?.message ?? 'no target answered') +
        (report.error && 'code' in report.error ? ` [${String(report.error.code)}]` : ''),
    );
  return `${lines.join('\n')}\n`;
}

function destination(t: { transport: SipTransport; address: string; port: number }): string {
  return `${t.transport} ${t.address.includes(':') ? `[${t.address}]` : t.address}:${t.port}`;
}

/** "29 s": how long a penalty entry (or a remembered NAPTR) has left, rounded up. */
function left(e: { readonly until: number }): string {
  return `${Math.max(0, Math.ceil((e.until - Date.now()) / 1000))} s`;
}

function request(uri: string, method: string, seq: number, host: string, port: number): SipRequest {
  const local = `sip:dnscore@${host}:${port}`;
  return {
    method,
    uri,
    headers: {
      to: { uri },
      from: { uri: local, params: { tag: randomBytes(6).toString('hex') } },
      // A new Call-ID each time: no Call-ID affinity, so what the next request shows is the penalty box.
      'call-id': `${randomBytes(12).toString('hex')}@dnscore`,
      cseq: { method, seq },
      contact: [{ uri: local }],
      'max-forwards': 70,
      'user-agent': 'dnscore ping',
    },
  };
}

/** "127.0.0.1", "127.0.0.1:5070", "[::1]:5070", "::1". */
function parseBind(text: string): { address: string; port?: number } {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:]+)(?::(\d+))?$/.exec(text);
  const address = match ? match[1]! : text;
  const port = match?.[2];
  if (isIP(address) === 0) throw new UsageError(`--bind takes ADDRESS[:PORT] with an IP address, not "${text}"`);
  return port === undefined ? { address } : { address, port: integer(port, '--bind port', 1, 65535) };
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--ca ${file}: ${(error as Error).message}`);
  }
}

/** A UDP port the OS says is free on `address` (the bridge checks it again when it binds). */
function freeUdpPort(address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(address) === 6 ? 'udp6' : 'udp4');
    socket.once('error', reject);
    socket.bind(0, address, () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}
