/**
 * Asking the nameservers as resolv.conf(5) says (glibc's res_send): `attempts` rounds over the
 * servers, starting at `start` (rotate); the next server on a timeout, a transport failure,
 * SERVFAIL, REFUSED, NOTIMP or FORMERR; the first other answer ends the walk. When only those
 * rcodes came back, the last answer wins: it is an answer, not an error. When nothing came
 * back at all, the most specific failure is thrown (malformed > network > timeout).
 */
import {
  type DnsError,
  MalformedAnswerError,
  NetworkError,
  Rcode,
  TimeoutError,
  describeQuery,
  nameKey,
  type Abortable,
  type DnsQuery,
  type PluginAnswer,
  type ServerAttempt,
  type Timers,
  withServers,
} from '@dnscore/core/plugin';
import { queryChannel } from '@dnscore/core/diagnostics';
import { randomizeCase, type CaseEchoMemory } from './case-randomization.js';
import type { ExchangeContext, ExchangeOutcome } from './exchange.js';
import { keepParsed } from './parsed-answers.js';
import { formatServerAddress, type ServerAddress } from './server-address.js';
import type { SystemResolverStats } from './stats.js';
import { tcpExchange } from './tcp-exchange.js';
import type { TcpMemory } from './tcp-memory.js';
import { udpExchange } from './udp-exchange.js';

export interface WalkSettings {
  readonly nameservers: readonly ServerAddress[];
  readonly attempts: number;
  readonly timeoutMs: number;
  readonly rotate: boolean;
  /** Every query over TCP (`options use-vc`). */
  readonly forceTcp: boolean;
  readonly udpPayloadSize: number | undefined;
  readonly trustAd: boolean;
  readonly recursionDesired: boolean;
  /** DO and CD in queries. */
  readonly dnssecRecords: boolean;
  readonly timers: Timers;
  readonly stats: SystemResolverStats;
  readonly tcpMemory: TcpMemory;
  /** 0x20 case randomization on UDP; undefined when off. */
  readonly caseEcho?: CaseEchoMemory;
}

/** Rcodes after which the next nameserver is asked (glibc: SERVFAIL, NOTIMP, REFUSED). */
const TRY_NEXT = new Set<number>([Rcode.SERVFAIL, Rcode.NOTIMP, Rcode.REFUSED, Rcode.FORMERR]);

type Answered = Extract<ExchangeOutcome, { kind: 'answer' }>;

export async function walkNameservers(
  query: DnsQuery,
  settings: WalkSettings,
  start: number,
  signal: Abortable,
): Promise<PluginAnswer> {
  const servers = settings.nameservers;
  let last: Answered | undefined;
  const failures: DnsError[] = [];
  let dropped = 0;
  // Each try, for the query trace: kept only while someone traces.
  const log: ServerAttempt[] | undefined = queryChannel.hasSubscribers ? [] : undefined;
  for (let attempt = 0; attempt < settings.attempts; attempt++) {
    for (let i = 0; i < servers.length; i++) {
      const server = servers[(start + i) % servers.length]!;
      const outcome = await askOne(query, server, settings, signal, log);
      if (outcome.kind === 'answer') {
        settings.stats.answers++;
        if (!TRY_NEXT.has(outcome.message.header.rcode)) return toPluginAnswer(outcome, settings, log);
        last = outcome;
      } else if (outcome.kind === 'failed') {
        failures.push(outcome.error);
      } else if (outcome.kind === 'timeout') {
        dropped += outcome.dropped;
      }
    }
  }
  if (last) return toPluginAnswer(last, settings, log);
  throw withServers(noAnswer(query, settings, failures, dropped), log);
}

/** One server: UDP (EDNS, then without it after FORMERR), TCP when the answer did not fit. */
async function askOne(
  query: DnsQuery,
  server: ServerAddress,
  settings: WalkSettings,
  signal: Abortable,
  log: ServerAttempt[] | undefined,
): Promise<ExchangeOutcome> {
  const key = `${nameKey(query.name)}/${query.type}/${query.class}`;
  const overTcp = settings.forceTcp || settings.tcpMemory.has(key);
  if (overTcp && !settings.forceTcp) settings.stats.tcpRemembered++;
  const serverKey = overTcp ? undefined : formatServerAddress(server);
  const randomized = serverKey !== undefined && settings.caseEcho?.echoes(serverKey) === true;
  // One object of one shape per try, with or without the randomized name.
  const context: ExchangeContext = {
    server,
    query,
    signal,
    timeoutMs: settings.timeoutMs,
    timers: settings.timers,
    stats: settings.stats,
    udpPayloadSize: settings.udpPayloadSize,
    ad: settings.trustAd,
    rd: settings.recursionDesired,
    dnssecRecords: settings.dnssecRecords,
    sentLabels: randomized ? randomizeCase(query.labels) : undefined,
  };
  // Where the trace's log says this try went; nothing is formatted when nobody traces.
  const at = log ? formatServerAddress(server) : '';
  if (overTcp) return noted(log, at, 'tcp', await tcpExchange(context));
  let outcome = noted(log, at, 'udp', await udpExchange(context));
  if (randomized && outcome.kind === 'timeout' && (outcome.caseMismatch ?? 0) > 0) {
    // Our ID and question came back, but never in our case: a server that does not echo case
    // (or a forger who guessed the ID). Asked again plainly, as unbound does, and remembered.
    settings.stats.caseFallbacks++;
    settings.caseEcho!.forget(serverKey!);
    outcome = noted(log, at, 'udp', await udpExchange({ ...context, sentLabels: undefined }));
  }
  if (
    outcome.kind === 'answer' &&
    context.udpPayloadSize !== undefined &&
    outcome.message.header.rcode === Rcode.FORMERR &&
    !outcome.message.edns
  ) {
    // RFC 6891 section 7: a server that does not know EDNS may answer FORMERR without OPT.
    settings.stats.ednsFallbacks++;
    outcome = noted(
      log,
      at,
      'udp',
      await udpExchange({ ...context, udpPayloadSize: undefined, sentLabels: undefined }),
    );
  }
  if (outcome.kind !== 'truncated') return outcome;
  settings.tcpMemory.remember(key);
  return noted(log, at, 'tcp', await tcpExchange(randomized ? { ...context, sentLabels: undefined } : context));
}

/** Adds one try to the trace's log (undefined while nobody traces: then nothing is made). */
function noted(
  log: ServerAttempt[] | undefined,
  server: string,
  transport: 'udp' | 'tcp',
  outcome: ExchangeOutcome,
): ExchangeOutcome {
  if (log) log.push(serverAttempt(server, transport, outcome));
  return outcome;
}

/** One try as the query trace shows it. */
function serverAttempt(server: string, transport: 'udp' | 'tcp', outcome: ExchangeOutcome): ServerAttempt {
  switch (outcome.kind) {
    case 'answer':
      return { server, transport, outcome: 'answer', rcode: outcome.message.header.rcode };
    case 'truncated':
      return { server, transport, outcome: 'truncated' };
    case 'timeout':
      return outcome.dropped > 0
        ? { server, transport, outcome: 'timeout', error: `${outcome.dropped} message(s) refused` }
        : { server, transport, outcome: 'timeout' };
    case 'failed':
      return { server, transport, outcome: 'error', error: outcome.error.message };
  }
}

function toPluginAnswer(outcome: Answered, settings: WalkSettings, servers: ServerAttempt[] | undefined): PluginAnswer {
  const { rcode, ad } = outcome.message.header;
  // This backend does not validate: AD is passed on only when the caller trusts the path,
  // and only on answers that can be authenticated (data, or a proven NXDOMAIN).
  const secure = settings.trustAd && ad && (rcode === Rcode.NOERROR || rcode === Rcode.NXDOMAIN);
  // A validating caller reads every record: the reading made here is handed over (parsedAnswer).
  if (settings.dnssecRecords && outcome.message.packet === outcome.packet) keepParsed(outcome.message);
  return { rcode, secure, bogus: false, answer: outcome.packet, ...(servers ? { servers } : {}) };
}

function noAnswer(query: DnsQuery, settings: WalkSettings, failures: readonly DnsError[], dropped: number): DnsError {
  const servers = settings.nameservers.map(formatServerAddress).join(', ');
  const cause = failures.length > 0 ? { cause: new AggregateError(failures, 'the tries that failed') } : undefined;
  const malformed = failures.find((f) => f instanceof MalformedAnswerError);
  if (malformed) return malformed;
  const droppedNote = dropped > 0 ? `; ${dropped} message(s) refused (wrong source, ID or question, or malformed)` : '';
  if (failures.some((f) => f instanceof NetworkError)) {
    return new NetworkError(
      `no answer to ${describeQuery(query)} from ${servers}: ` +
        `${failures.map((f) => f.message).join('; ')}${droppedNote}`,
      cause,
    );
  }
  return new TimeoutError(
    `no answer to ${describeQuery(query)} from ${servers} (${settings.attempts} attempt(s), ${settings.timeoutMs} ms ` +
      `each)${droppedNote}`,
    cause,
  );
}
