/**
 * One query over UDP, on a socket shared with the other queries in flight (udp-sockets.ts): a
 * port the OS picked at random, a crypto-random ID unique on that socket, and only an answer
 * from the exact address and port queried with that ID and question is taken. Everything else
 * is dropped and counted while the try keeps waiting. A try is one object (its own abort
 * listener, no closures of its own) that tells its TrySettle how it ended, with no promise: a
 * burst has hundreds in flight.
 */
import type { RemoteInfo } from 'node:dgram';
import { NetworkError, abortError, describeQuery } from '@dnscore/core/plugin';
import { CLASSIC_UDP_SIZE } from './defaults.js';
import { newQueryPacket, type ExchangeContext, type ExchangeOutcome, type TrySettle } from './exchange.js';
import { inspectResponse } from './response-check.js';
import { formatServerAddress, isFromServer } from './server-address.js';
import { countDropped, type SystemResolverStats } from './stats.js';
import type { SharedSocket, UdpWaiter } from './udp-sockets.js';

/** One try as a promise: rejects with AbortError when the signal aborts. */
export function udpExchange(context: ExchangeContext): Promise<ExchangeOutcome> {
  return new Promise<ExchangeOutcome>((settled, aborted) => startUdpTry(context, { settled, aborted }));
}

/** Starts one try; `settle` hears how it ended, once (an aborted signal: at once). */
export function startUdpTry(context: ExchangeContext, settle: TrySettle): void {
  if (context.signal.aborted) {
    settle.aborted(abortError(context.signal));
    return;
  }
  const attempt = new UdpTry(context, settle);
  try {
    attempt.start();
  } catch (error) {
    // As a promise's executor would: the try ends with what it threw.
    attempt.abandon(error);
  }
}

class UdpTry implements UdpWaiter {
  #socket: SharedSocket | undefined;
  #id = 0;
  #timer: unknown;
  #done = false;
  #dropped = 0;
  #caseMismatch = 0;

  constructor(
    private readonly context: ExchangeContext,
    private readonly settle: TrySettle,
  ) {}

  get server(): ExchangeContext['server'] {
    return this.context.server;
  }

  get stats(): SystemResolverStats {
    return this.context.stats;
  }

  start(): void {
    const { context } = this;
    const { socket, id } = context.udpSockets.join(this);
    this.#socket = socket;
    this.#id = id;
    const { packet } = newQueryPacket(context, id);
    context.signal.addEventListener('abort', this, { once: true });
    this.#timer = context.timers.setTimeout(() => this.#timeout(), context.timeoutMs);
    context.stats.udpSent++;
    socket.send(packet, context.server, (error) => {
      if (error && !this.#done) this.fail(error);
    });
  }

  /** The signal aborted. */
  handleEvent(): void {
    if (this.#finish()) this.settle.aborted(abortError(this.context.signal));
  }

  /** start() threw: what it had taken is given back. */
  abandon(error: unknown): void {
    if (this.#finish()) this.settle.aborted(error);
  }

  take(message: Buffer, from: RemoteInfo): void {
    if (this.#done) return;
    const { context } = this;
    const { stats } = context;
    if (!isFromServer(context.server, from.address, from.port)) {
      stats.wrongSource++;
      this.#dropped++;
      return;
    }
    const verdict = inspectResponse(message, this.#id, context.query, context.sentName);
    if (verdict.kind === 'truncated') {
      // TC, our question, then records cut short: it did not fit; ask over TCP.
      stats.truncated++;
      if (this.#finish()) this.settle.settled(TRUNCATED);
      return;
    }
    if (verdict.kind !== 'accept') {
      countDropped(stats, verdict.kind);
      this.#dropped++;
      if (verdict.kind === 'case-mismatch') this.#caseMismatch++;
      return;
    }
    if (message.length > (context.udpPayloadSize ?? CLASSIC_UDP_SIZE)) {
      // Larger than we said we could take: it may have come in fragments, which an
      // off-path attacker can forge; do not use it, ask over TCP.
      stats.oversized++;
      if (this.#finish()) this.settle.settled(TRUNCATED);
    } else if (verdict.summary.tc) {
      stats.truncated++;
      if (this.#finish()) this.settle.settled(TRUNCATED);
    } else if (this.#finish()) {
      this.settle.settled({ kind: 'answer', packet: verdict.packet, summary: verdict.summary });
    }
  }

  refused(): void {
    if (!this.#done) this.#dropped++;
  }

  fail(error: Error): void {
    if (this.#done) return;
    const { context } = this;
    context.stats.networkErrors++;
    const text = `${describeQuery(context.query)} over UDP to ${formatServerAddress(context.server)}: ${error.message}`;
    if (this.#finish()) this.settle.settled({ kind: 'failed', error: new NetworkError(text, { cause: error }) });
  }

  #timeout(): void {
    if (this.#done) return;
    this.context.stats.timeouts++;
    const outcome: ExchangeOutcome = { kind: 'timeout', dropped: this.#dropped, caseMismatch: this.#caseMismatch };
    if (this.#finish()) this.settle.settled(outcome);
  }

  /** Ends the try once: the timer, the abort listener and its place on the socket go. */
  #finish(): boolean {
    if (this.#done) return false;
    this.#done = true;
    const { context } = this;
    if (this.#timer !== undefined) context.timers.clearTimeout(this.#timer);
    context.signal.removeEventListener('abort', this);
    this.#socket?.leave(this.#id);
    return true;
  }
}

const TRUNCATED: ExchangeOutcome = { kind: 'truncated' };
