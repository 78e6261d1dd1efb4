/**
 * The bridge into the npm `sip` stack: an application on `sip` sends its requests here and they
 * go to RFC 3263 targets from @dnscore/sip. The Request-URI is never rewritten (DNS only says
 * where to send; a strict route is applied as RFC 3261 says). Each try is a new client
 * transaction with a new branch; the failover set (503 by default) and transport errors fail
 * over at once, silence after the locator's per-target timer (6 s, not Timer B's 32 s); the
 * whole walk ends at the transaction bound (Timer B/F, 32 s) with the last response or a 408;
 * failed targets go to the penalty box as the locator's failover policy says.
 * Retransmissions and the ACK of a non-2xx ride the try's own transaction and connection; a
 * CANCEL goes where its INVITE went (transaction affinity); the ACK of a 2xx is a new
 * transaction routed by the route set.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DnsError, InvalidArgumentError, checkPositiveInteger, isAbortError } from '@dnscore/core';
import {
  TargetsExhaustedError,
  TransactionTimeoutError,
  isSipToken,
  type SipAttempt,
  type SipLocator,
  type SipTarget,
  type TryOutcome,
} from '@dnscore/sip';
import {
  BRANCH_MAGIC_COOKIE,
  DEFAULT_MAX_FORWARDS,
  DEFAULT_NON_INVITE_TIMEOUT_MS,
  DEFAULT_TLS_SERVER_NAME,
} from './defaults.js';
import { BridgeClosedError, CancelNotSentError, InvalidSipMessageError, UnknownTransactionError } from './errors.js';
import { nextHop, type NextHop } from './route.js';
import { sentByDestination } from './sent-by.js';
import type { AttemptOutcome, BridgeAttempt, SendReport } from './send-report.js';
import { BridgeTry, retryAfter, type TryContext } from './bridge-try.js';
import { SipEndpoint, reportWarning, type SipEndpointOptions, type TryTarget } from './sip-endpoint.js';
import {
  isRequest,
  type SipMessage,
  type SipRequest,
  type SipResponse,
  type SipStack,
  type SipVia,
} from './sip-stack.js';

export interface SipBridgeOptions extends SipEndpointOptions {
  /** Certificate name of a TLS target: the next hop URI's host ("domain", RFC 5922) or the SRV target ("target"). */
  readonly tlsServerName?: 'domain' | 'target';
  /** Timer F for a non-INVITE after a provisional response, ms (default 32 s; `sip` 0.0.6 drops it). */
  readonly nonInviteTimeoutMs?: number;
}

type BoundTarget = SipTarget & { readonly serverName?: string };

type ResponseCallback = (response: SipResponse) => void;

/** One INVITE's walk: a CANCEL (by the branch of any try) stops it and waits on that try. */
interface InviteWalk {
  cancelled: boolean;
  readonly stop: AbortController;
  readonly tries: Map<string, BridgeTry>;
}

export class SipBridge {
  readonly #abort = new AbortController();
  readonly #serverName: 'domain' | 'target';
  readonly #timerF: number;
  readonly #onError: (error: unknown) => void;
  /** The walks of INVITEs in progress, by the branch of each of their tries: a CANCEL stops its walk. */
  readonly #walks = new Map<string, InviteWalk>();

  private constructor(
    /** The `sip` stack pieces: transport, transactions, our stream connections. */
    readonly endpoint: SipEndpoint,
    /** Where targets, the penalty box and affinity come from. */
    readonly locator: SipLocator,
    options: SipBridgeOptions,
  ) {
    this.#serverName = options.tlsServerName ?? DEFAULT_TLS_SERVER_NAME;
    if (this.#serverName !== 'domain' && this.#serverName !== 'target')
      throw new InvalidArgumentError('tlsServerName must be "domain" or "target"');
    this.#timerF = checkPositiveInteger(
      options.nonInviteTimeoutMs ?? DEFAULT_NON_INVITE_TIMEOUT_MS,
      'nonInviteTimeoutMs',
    );
    this.#onError = options.onError ?? reportWarning;
    // Requests from the far side pin their Call-ID to where the sender listens (IPVS SIP
    // persistence): its Via sent-by port, not the ephemeral source port of a TCP connection.
    endpoint.onIncoming((request, remote) => {
      const listening = sentByDestination(request, remote);
      if (!listening) return;
      try {
        this.locator.dialogs.learnIncoming(String(request.headers['call-id']), listening);
      } catch {
        // An over-long Call-ID or an odd source gets no affinity; the request is still delivered.
      }
    });
  }

  /** Opens the `sip` transport on the local address and port (checked first) and returns the bridge. */
  static async create(stack: SipStack, locator: SipLocator, options: SipBridgeOptions = {}): Promise<SipBridge> {
    if (!locator || typeof locator.cursor !== 'function')
      throw new InvalidArgumentError('SipBridge needs a SipLocator');
    const endpoint = await SipEndpoint.create(stack, options);
    try {
      return new SipBridge(endpoint, locator, options);
    } catch (error) {
      endpoint.close();
      throw error;
    }
  }

  /**
   * Sends a request through RFC 3263 targets; `onResponse` gets what `sip.send`'s callback
   * would: the responses of the try that answered, or one final response the bridge made.
   * Resolves with what happened to every try. A response (no method) goes through its server
   * transaction. Throws at once for a message that cannot be routed.
   */
  send(request: SipRequest, onResponse?: ResponseCallback): Promise<SendReport>;
  send(response: SipResponse): Promise<undefined>;
  send(message: SipMessage, onResponse?: ResponseCallback): Promise<SendReport | undefined> {
    if (this.#abort.signal.aborted) throw new BridgeClosedError('the bridge is closed');
    if (!message || typeof message !== 'object' || !message.headers || typeof message.headers !== 'object') {
      throw new InvalidSipMessageError('a SIP message needs headers');
    }
    if (!isRequest(message)) {
      if (!this.endpoint.respond(message))
        throw new UnknownTransactionError(String(message.headers.via?.[0]?.params.branch ?? ''));
      return Promise.resolve(undefined);
    }
    checkRequest(message);
    if (message.method === 'ACK') return this.#sendAck(message);
    if (message.method === 'CANCEL') return this.#sendCancel(message, onResponse);
    return this.#walk(message, nextHop(this.endpoint.stack, message), onResponse);
  }

  /** Stops every walk and transaction, closes the sockets. */
  close(): void {
    this.#abort.abort(new BridgeClosedError('the bridge is closed'));
    this.endpoint.close();
  }

  async #walk(request: SipRequest, hop: NextHop, onResponse: ResponseCallback | undefined): Promise<SendReport> {
    const { stack } = this.endpoint;
    const upstream = [...(request.headers.via ?? [])];
    // The cursor owns the Call-ID rule: a pin is used only when the next hop's targets list it.
    const cursor = this.locator.cursor(hop.uri, {
      callId: String(request.headers['call-id']),
      method: request.method,
      messageSize: this.#size(request, upstream),
    });
    const context: TryContext = {
      endpoint: this.endpoint,
      transactions: this.locator.transactions,
      request,
      upstream,
      deliver: (response) => this.#deliver(onResponse, response),
      timerFMs: this.#timerF,
      failsOver: (status) => cursor.failsOver(status),
      remainingMs: () => cursor.remainingMs,
      reportLate: (attempt, response) => {
        try {
          cursor.reportLate(attempt, { type: 'response', status: response.status, ...retryAfter(response) });
        } catch (caught) {
          // A status the cursor cannot judge (a hostile peer's) boxes nothing; a bug still throws.
          if (!(caught instanceof DnsError)) throw caught;
        }
      },
    };
    const tries = new Map<SipAttempt, BridgeTry>();
    // A CANCEL of this INVITE (by the branch of any of its tries) lets the current try end as it
    // will, and starts no other: a new branch after a CANCEL would place the call the application
    // gave up (RFC 3261 section 16.10: no new branches once a CANCEL came).
    const walk: InviteWalk = { cancelled: false, stop: new AbortController(), tries: new Map() };
    const walkSignal = AbortSignal.any([this.#abort.signal, walk.stop.signal]);
    const sendTry = (attempt: SipAttempt, signal: AbortSignal): Promise<TryOutcome> => {
      if (walk.cancelled) {
        queueMicrotask(() => walk.stop.abort(new Error('the INVITE was cancelled')));
        return new Promise<TryOutcome>(() => {});
      }
      const one = new BridgeTry(context, attempt, this.#tryTarget(attempt.target, hop), signal);
      tries.set(attempt, one);
      if (request.method === 'INVITE' && one.branch !== '') {
        this.#walks.set(one.branch, walk);
        walk.tries.set(one.branch, one);
      }
      return one.first;
    };

    let answeredBy: SipTarget | null = null;
    let response: SipResponse | null = null;
    let error: Error | undefined;
    for (;;) {
      let ran: { readonly attempt: SipAttempt; readonly outcome: TryOutcome };
      try {
        ran = await cursor.run(sendTry, { signal: walkSignal });
      } catch (caught) {
        if (!(caught instanceof DnsError)) throw caught; // a bug, not an outcome
        if (isAbortError(caught) && !this.#abort.signal.aborted && walk.cancelled) {
          // Cancelled: what the tries got is the answer (a 408 after silence), as when targets run out.
          const cancelled = new TargetsExhaustedError(
            `the INVITE to ${hop.uri.text} was cancelled after ${tries.size} tries; no other target was tried`,
            tries.size,
          );
          error = cancelled;
          response = this.#closingResponse(request, [...tries.values()], cancelled);
          context.deliver(response);
          break;
        }
        if (isAbortError(caught)) {
          error = new BridgeClosedError('the bridge was closed during the request', { cause: caught });
          break;
        }
        error = caught;
        response = this.#closingResponse(request, [...tries.values()], caught);
        context.deliver(response);
        break;
      }
      const one = tries.get(ran.attempt)!;
      if (ran.outcome.type === 'response' && ran.outcome.status >= 200) {
        answeredBy = ran.attempt.target;
        response = one.firstResponse ?? null;
        break;
      }
      // A provisional response: the server is alive; its final response decides.
      const final = await this.#untilClosed(one.final());
      if (!final) {
        error = new BridgeClosedError('the bridge was closed during the request');
        break;
      }
      const verdict = cursor.report(ran.attempt, final.outcome);
      if (verdict === 'failover') continue;
      if (verdict === 'success') {
        answeredBy = ran.attempt.target;
        response = final.response ?? null;
        break;
      }
      // Silent after its provisional response (Timer F): the request failed there.
      error = new TargetsExhaustedError(
        `${ran.attempt.target.host} sent a provisional response and then nothing`,
        tries.size,
      );
      response = stack.makeResponse(request, 408, 'Request Timeout');
      context.deliver(response);
      break;
    }
    for (const one of tries.values()) {
      one.dispose();
      this.#walks.delete(one.branch);
    }
    const attempts = Object.freeze([...tries.values()].map((one) => Object.freeze({ ...one.record })));
    return Object.freeze({ hop, attempts, answeredBy, response, ...(error ? { error } : {}) });
  }

  /**
   * No target answered: the last real response of the failover set; else a 408 when the
   * transaction bound ran out or the last try met silence (RFC 3261 section 17.1.1.2: Timer B
   * fires, the TU is told of a timeout); else a 503 (transport errors, no target at all: RFC
   * 3261 section 8.1.3.1).
   */
  #closingResponse(request: SipRequest, tried: readonly BridgeTry[], error: DnsError): SipResponse {
    const { stack } = this.endpoint;
    const walked = error instanceof TargetsExhaustedError || error instanceof TransactionTimeoutError;
    const real = tried.findLast((one) => one.failoverResponse !== undefined)?.failoverResponse;
    if (walked && real) return real;
    if (error instanceof TransactionTimeoutError || (walked && tried.at(-1)?.record.outcome === 'timeout'))
      return stack.makeResponse(request, 408, 'Request Timeout');
    return stack.makeResponse(request, 503, 'Service Unavailable');
  }

  /** Settles like `promise`, or with undefined once the bridge is closed. */
  #untilClosed<T>(promise: Promise<T>): Promise<T | undefined> {
    const { signal } = this.#abort;
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve, reject) => {
      const onAbort = (): void => resolve(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  async #sendAck(request: SipRequest): Promise<SendReport> {
    const branch = request.headers.via?.[0]?.params.branch;
    const bound =
      typeof branch === 'string' && branch !== ''
        ? (this.locator.transactions.lookup(branch) as BoundTarget | undefined)
        : undefined;
    const hop = nextHop(this.endpoint.stack, request);
    if (bound) {
      // The ACK of a non-2xx belongs to its INVITE's transaction: same target.
      this.endpoint.sendStateless(request, this.#boundTarget(bound));
      return Object.freeze({ hop, attempts: [], answeredBy: null, response: null, sentTo: bound });
    }
    // The ACK of a 2xx is a transaction of its own (RFC 3261 section 13.2.2.4): one Via, a new branch, the route set.
    request.headers.via = [{ params: { branch: newBranch() } }];
    // The 1300-byte rule holds for it too (RFC 3261 section 18.1.1): an ACK with an SDP answer can be large.
    const attempt = await this.locator
      .cursor(hop.uri, { callId: String(request.headers['call-id']), messageSize: this.#size(request, []) })
      .next();
    if (!attempt) throw new TargetsExhaustedError(`no target for the ACK to ${hop.uri.text}`, 0);
    this.endpoint.sendStateless(request, this.#tryTarget(attempt.target, hop));
    return Object.freeze({ hop, attempts: [], answeredBy: null, response: null, sentTo: attempt.target });
  }

  #sendCancel(request: SipRequest, onResponse: ResponseCallback | undefined): Promise<SendReport> {
    const top = request.headers.via?.[0];
    const branch = top?.params.branch;
    const bound =
      typeof branch === 'string' && branch !== ''
        ? (this.locator.transactions.lookup(branch) as BoundTarget | undefined)
        : undefined;
    if (!bound || !top) throw new UnknownTransactionError(String(branch ?? ''));
    const walk = this.#walks.get(branch as string);
    if (walk) walk.cancelled = true;
    const invite = walk?.tries.get(branch as string);
    if (!invite) return this.#cancelNow(request, top, bound, onResponse);
    // RFC 3261 section 9.1: not before a provisional response; not at all after a final one.
    const held = new Promise<SendReport>((resolve) =>
      invite.whenHeard((response) => {
        if (response && response.status < 200) resolve(this.#cancelNow(request, top, bound, onResponse));
        else resolve(this.#notSent(request, response));
      }),
    );
    return this.#untilClosed(held).then((report) => report ?? this.#closedDuringCancel(request));
  }

  /** The report of a CANCEL held back and then not sent: its INVITE ended without a provisional response. */
  #notSent(request: SipRequest, response: SipResponse | null): SendReport {
    const why = response ? `a final response (${response.status})` : 'no response';
    return Object.freeze({
      hop: nextHop(this.endpoint.stack, request),
      attempts: Object.freeze([]),
      answeredBy: null,
      response: null,
      error: new CancelNotSentError(
        `the INVITE got ${why} before any provisional one: no CANCEL was sent (RFC 3261 section 9.1)`,
      ),
    });
  }

  #closedDuringCancel(request: SipRequest): SendReport {
    return Object.freeze({
      hop: nextHop(this.endpoint.stack, request),
      attempts: [],
      answeredBy: null,
      response: null,
      error: new BridgeClosedError('the bridge was closed during the CANCEL'),
    });
  }

  /** Sends the CANCEL now, where its INVITE went. */
  #cancelNow(
    request: SipRequest,
    top: SipVia,
    bound: BoundTarget,
    onResponse: ResponseCallback | undefined,
  ): Promise<SendReport> {
    // RFC 3261 section 9.1: one Via, the request's own; it goes where the request went, no failover.
    request.headers.via = [top];
    const hop = nextHop(this.endpoint.stack, request);
    const started = performance.now();
    const cancelled = new Promise<SendReport>((resolve) => {
      let done = false;
      const finish = (outcome: AttemptOutcome, status: number | null, response: SipResponse, error?: Error): void => {
        if (done) return;
        done = true;
        const record: BridgeAttempt = Object.freeze({
          target: bound,
          outcome,
          status,
          ms: Math.round(performance.now() - started),
          penalized: false,
          pinned: false,
          switched: false,
          timeoutMs: 0,
          capped: false,
          skipped: [],
          skippedNaptrs: [],
          ...(error ? { error } : {}),
        });
        resolve(
          Object.freeze({
            hop,
            attempts: Object.freeze([record]),
            answeredBy: outcome === 'response' ? bound : null,
            response,
            ...(error ? { error } : {}),
          }),
        );
      };
      this.endpoint.attempt(request, this.#boundTarget(bound), (event) => {
        if (event.type === 'transport-error') {
          const response = this.endpoint.stack.makeResponse(request, 503, 'Service Unavailable');
          this.#deliver(onResponse, response);
          return finish('transport-error', null, response, event.error);
        }
        this.#deliver(onResponse, event.response);
        // A CANCEL never fails over: any final response is its answer.
        if (event.response.status >= 200) finish('response', event.response.status, event.response);
      });
    });
    return this.#untilClosed(cancelled).then((report) => report ?? this.#closedDuringCancel(request));
  }

  #tryTarget(target: SipTarget, hop: NextHop): TryTarget {
    if (target.transport !== 'tls') return { transport: target.transport, address: target.address, port: target.port };
    const name =
      this.#serverName === 'target' ? target.host : hop.uri.hostKind === 'hostname' ? hop.uri.host : undefined;
    // Never the IP: an IP literal URI has no name, and Node then checks the certificate against the address.
    return {
      transport: 'tls',
      address: target.address,
      port: target.port,
      ...(name && isIP(name) === 0 ? { serverName: name } : {}),
    };
  }

  #boundTarget(target: BoundTarget): TryTarget {
    return {
      transport: target.transport,
      address: target.address,
      port: target.port,
      ...(target.serverName ? { serverName: target.serverName } : {}),
    };
  }

  /** The request's size with our Via on top, for the 1300-byte rule. */
  #size(request: SipRequest, upstream: readonly SipVia[]): number {
    const via: SipVia = {
      protocol: 'UDP',
      host: this.endpoint.viaHost,
      port: this.endpoint.port,
      params: { branch: `${BRANCH_MAGIC_COOKIE}0000000`, rport: null },
    };
    const probe: SipRequest = { ...request, headers: { ...request.headers, via: [via, ...upstream] } };
    return Buffer.byteLength(this.endpoint.stack.stringify(probe), 'binary');
  }

  #deliver(onResponse: ResponseCallback | undefined, response: SipResponse): void {
    if (!onResponse) return;
    try {
      onResponse(response);
    } catch (error) {
      // Called from inside `sip`'s socket handlers: a throw there would end the process.
      this.#onError(error);
    }
  }
}

/** Checks what routing and the transaction layer need; adds Max-Forwards when missing. */
function checkRequest(request: SipRequest): void {
  const { method, headers } = request;
  if (!isSipToken(method)) throw new InvalidSipMessageError(`"${method}" is not a SIP method`);
  if (request.uri === undefined || request.uri === null || request.uri === '')
    throw new InvalidSipMessageError('the request has no Request-URI');
  if (typeof headers['call-id'] !== 'string' || headers['call-id'] === '')
    throw new InvalidSipMessageError('the request has no Call-ID');
  const cseq = headers.cseq;
  const cseqOk =
    typeof cseq === 'string'
      ? /^\s*\d+\s+\S+\s*$/.test(cseq)
      : !!cseq && Number.isInteger(cseq.seq) && typeof cseq.method === 'string';
  if (!cseqOk) throw new InvalidSipMessageError('the request has no valid CSeq');
  if (!headers.from || !headers.to) throw new InvalidSipMessageError('the request needs From and To');
  if (headers.via !== undefined && !Array.isArray(headers.via)) throw new InvalidSipMessageError('Via must be a list');
  headers['max-forwards'] ??= DEFAULT_MAX_FORWARDS;
}

/** A branch from a cryptographic source (RFC 3261 section 8.1.1.7). */
export function newBranch(): string {
  return `${BRANCH_MAGIC_COOKIE}${randomBytes(12).toString('hex')}`;
}
