/**
 * Asking the nameservers as resolv.conf(5) says (glibc's res_send): `attempts` rounds over the
 * servers, starting at `start` (rotate); the next server on a timeout, a transport failure,
 * SERVFAIL, REFUSED, NOTIMP or FORMERR; the first other answer ends the walk. When only those
 * rcodes came back, the last answer wins: it is an answer, not an error. When nothing came
 * back at all, the most specific failure is thrown (malformed > network > timeout).
 *
 * A walk is one record (NameserverWalk) stepped by the tries' callbacks, not async functions:
 * a burst keeps hundreds in flight, and each suspended async function held its generator,
 * registers, context and promises. The record is also each try's ExchangeContext.
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
  type AnswerSink,
  type DnsQuery,
  type PluginAnswer,
  type ServerAttempt,
  type Timers,
  withServers,
} from '@dnscore/core/plugin';
import { queryChannel } from '@dnscore/core/diagnostics';
import { randomizeCase, type CaseEchoMemory } from './case-randomization.js';
import { queryWireName, type WireName } from './wire.js';
import type { ExchangeContext, ExchangeOutcome, TrySettle } from './exchange.js';
import { formatServerAddress, type ServerAddress } from './server-address.js';
import type { SystemResolverStats } from './stats.js';
import { tcpExchange } from './tcp-exchange.js';
import type { TcpMemory } from './tcp-memory.js';
import { startUdpTry } from './udp-exchange.js';
import type { UdpSockets } from './udp-sockets.js';

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
  /** The UDP sockets the queries in flight share. */
  readonly udpSockets: UdpSockets;
  /** 0x20 case randomization on UDP; undefined when off. */
  readonly caseEcho?: CaseEchoMemory;
}

/**
 * BADVERS (RFC 6891 section 6.1.3, the extended rcode 16): the server does not implement the
 * EDNS version of the query. Ours is 0, so it does not speak EDNS at all: asked again without.
 */
const BADVERS = 16;

/** Rcodes after which the next nameserver is asked (glibc: SERVFAIL, NOTIMP, REFUSED). */
const TRY_NEXT = new Set<number>([Rcode.SERVFAIL, Rcode.NOTIMP, Rcode.REFUSED, Rcode.FORMERR, BADVERS]);

type Answered = Extract<ExchangeOutcome, { kind: 'answer' }>;

/** The walk as a promise (tests, and callers that await). */
export function walkNameservers(
  query: DnsQuery,
  settings: WalkSettings,
  start: number,
  signal: Abortable,
): Promise<PluginAnswer> {
  return new Promise((answer, fail) => startWalk(query, settings, start, signal, { answer, fail }));
}

/** Starts a walk; `sink` (the resolver's pending query, or a promise's two functions) hears its end once. */
export function startWalk(
  query: DnsQuery,
  settings: WalkSettings,
  start: number,
  signal: Abortable,
  sink: AnswerSink,
): void {
  new NameserverWalk(query, settings, start, signal, sink).next();
}

/**
 * The steps of one server's turn: UDP (EDNS, and 0x20 when the server echoes case), UDP again
 * in plain case after a case mismatch, UDP without EDNS after FORMERR, TCP when it did not fit.
 */
enum Step {
  Udp,
  PlainUdp,
  NoEdnsUdp,
  Tcp,
}

class NameserverWalk implements ExchangeContext, TrySettle {
  // The try in flight, read by UdpTry and tcpExchange (this record is their context).
  server!: ServerAddress;
  udpPayloadSize: number | undefined;
  sentName: WireName | undefined;

  #attempt = 0;
  /** Servers asked in this round. */
  #index = 0;
  #step = Step.Udp;
  /** This server's key for the 0x20 memory, when its turn began with a randomized name. */
  #caseKey: string | undefined;
  #last: Answered | undefined;
  #failures: DnsError[] | undefined;
  #dropped = 0;
  /** Each try, for the query trace: kept only while someone traces. */
  readonly #log: ServerAttempt[] | undefined = queryChannel.hasSubscribers ? [] : undefined;
  /** Where the trace's log says this try went; nothing is formatted when nobody traces. */
  #at = '';

  constructor(
    readonly query: DnsQuery,
    private readonly settings: WalkSettings,
    private readonly start: number,
    readonly signal: Abortable,
    private readonly sink: AnswerSink,
  ) {}

  get timeoutMs(): number {
    return this.settings.timeoutMs;
  }
  get timers(): Timers {
    return this.settings.timers;
  }
  get stats(): SystemResolverStats {
    return this.settings.stats;
  }
  get udpSockets(): UdpSockets {
    return this.settings.udpSockets;
  }
  get ad(): boolean {
    return this.settings.trustAd;
  }
  get rd(): boolean {
    return this.settings.recursionDesired;
  }
  get dnssecRecords(): boolean {
    return this.settings.dnssecRecords;
  }

  /** The next server's turn, or the end of the walk. */
  next(): void {
    const { settings } = this;
    const servers = settings.nameservers;
    if (this.#index === servers.length) {
      this.#index = 0;
      this.#attempt++;
    }
    if (this.#attempt >= settings.attempts) {
      if (this.#last) this.#answer(this.#last);
      else this.#fail(withServers(noAnswer(this.query, settings, this.#failures ?? [], this.#dropped), this.#log));
      return;
    }
    const server = servers[(this.start + this.#index) % servers.length]!;
    this.#index++;
    this.server = server;
    this.udpPayloadSize = settings.udpPayloadSize;
    this.sentName = undefined;
    this.#caseKey = undefined;
    if (this.#log) this.#at = formatServerAddress(server);
    // The question's key only when some question is remembered: most queries never need it.
    const overTcp = settings.forceTcp || (settings.tcpMemory.count > 0 && settings.tcpMemory.has(tcpKey(this.query)));
    if (overTcp) {
      if (!settings.forceTcp) settings.stats.tcpRemembered++;
      this.#send(Step.Tcp);
      return;
    }
    if (settings.caseEcho !== undefined) {
      const key = formatServerAddress(server);
      if (settings.caseEcho.echoes(key)) {
        this.#caseKey = key;
        this.sentName = randomizeCase(queryWireName(this.query));
      }
    }
    this.#send(Step.Udp);
  }

  /** A try ended (TrySettle): the next step of this server's turn, or the next server. */
  settled(outcome: ExchangeOutcome): void {
    const step = this.#step;
    if (this.#log) this.#log.push(serverAttempt(this.#at, step === Step.Tcp ? 'tcp' : 'udp', outcome));
    if (
      step === Step.Udp &&
      this.#caseKey !== undefined &&
      outcome.kind === 'timeout' &&
      (outcome.caseMismatch ?? 0) > 0
    ) {
      // Our ID and question came back, but never in our case: a server that does not echo case
      // (or a forger who guessed the ID). Asked again plainly, as unbound does, and remembered.
      this.stats.caseFallbacks++;
      this.settings.caseEcho!.forget(this.#caseKey);
      this.sentName = undefined;
      this.#send(Step.PlainUdp);
      return;
    }
    if (
      outcome.kind === 'answer' &&
      this.udpPayloadSize !== undefined &&
      ((outcome.summary.rcode === Rcode.FORMERR && !outcome.summary.edns) || outcome.summary.rcode === BADVERS)
    ) {
      // RFC 6891 section 7: a server that does not know EDNS may answer FORMERR without OPT;
      // BADVERS to a version 0 query says the same (section 6.1.3). Over TCP too: a question
      // remembered for TCP goes there first.
      this.stats.ednsFallbacks++;
      this.udpPayloadSize = undefined;
      this.sentName = undefined;
      this.#send(step === Step.Tcp ? Step.Tcp : Step.NoEdnsUdp);
      return;
    }
    if (step === Step.Tcp || outcome.kind !== 'truncated') {
      this.#served(outcome);
      return;
    }
    this.settings.tcpMemory.remember(tcpKey(this.query));
    // TCP as the last UDP try asked (without EDNS when this server refused it), in the name's own case.
    this.sentName = undefined;
    this.#send(Step.Tcp);
  }

  /** The signal aborted, or a try could not start (TrySettle): the walk ends with `error`. */
  aborted(error: unknown): void {
    this.#fail(error);
  }

  #send(step: Step): void {
    this.#step = step;
    if (step !== Step.Tcp) {
      startUdpTry(this, this);
      return;
    }
    tcpExchange(this).then(
      (outcome) => this.settled(outcome),
      (error: unknown) => this.aborted(error),
    );
  }

  /** This server's last outcome. */
  #served(outcome: ExchangeOutcome): void {
    if (outcome.kind === 'answer') {
      this.stats.answers++;
      if (!TRY_NEXT.has(outcome.summary.rcode)) {
        this.#answer(outcome);
        return;
      }
      this.#last = outcome;
    } else if (outcome.kind === 'failed') {
      if (this.#failures === undefined) this.#failures = [outcome.error];
      else this.#failures.push(outcome.error);
    } else if (outcome.kind === 'timeout') {
      this.#dropped += outcome.dropped;
    }
    this.next();
  }

  #answer(outcome: Answered): void {
    this.sink.answer(toPluginAnswer(outcome, this.settings.trustAd, this.#log));
  }

  #fail(error: unknown): void {
    this.sink.fail(error);
  }
}

/** The TCP memory's key of a question. */
function tcpKey(query: DnsQuery): string {
  return `${nameKey(query.name)}/${query.type}/${query.class}`;
}

/** One try as the query trace shows it. */
function serverAttempt(server: string, transport: 'udp' | 'tcp', outcome: ExchangeOutcome): ServerAttempt {
  switch (outcome.kind) {
    case 'answer':
      return { server, transport, outcome: 'answer', rcode: outcome.summary.rcode };
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

function toPluginAnswer(outcome: Answered, trustAd: boolean, servers: ServerAttempt[] | undefined): PluginAnswer {
  const { rcode, ad } = outcome.summary;
  // This backend does not validate: AD is passed on only when the caller trusts the path,
  // and only on answers that can be authenticated (data, or a proven NXDOMAIN).
  const secure = trustAd && ad && (rcode === Rcode.NOERROR || rcode === Rcode.NXDOMAIN);
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
