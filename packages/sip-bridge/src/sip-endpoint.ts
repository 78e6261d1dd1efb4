/**
 * The `sip` stack, assembled from its exported pieces: `makeTransport` (UDP, and the TCP
 * listener for requests that come in), `makeTransactionLayer` (client and server transactions,
 * retransmissions, the ACK of a non-2xx), and our own `open` for outgoing TCP and TLS. One try
 * of a request is one client transaction to one target: `attempt()`. Nothing here resolves a
 * name or fails over; the bridge and PJSIP-style consumers do that on top.
 */
import { createSocket } from 'node:dgram';
import { isIP, createServer } from 'node:net';
import { hostname } from 'node:os';
import type { ConnectionOptions } from 'node:tls';
import { InvalidArgumentError } from '@dnscore/core';
import type { SipTransport as TransportName } from '@dnscore/sip';
import { DEFAULT_LOCAL_ADDRESS, DEFAULT_LOCAL_PORT, DEFAULT_MAX_FORWARDS, DEFAULT_STREAM_IDLE_MS } from './defaults.js';
import { BridgeClosedError, LocalBindError, SipTransportError } from './errors.js';
import { StreamConnections, wellFormed } from './stream-connections.js';
import { responseTarget } from './response-target.js';
import { GuardedTransport, type InboundLimits, type InboundStats } from './guarded-transport.js';
import {
  isRequest,
  type SipConnection,
  type SipMessage,
  type SipRemote,
  type SipRequest,
  type SipResponse,
  type SipStack,
  type SipTransactionLayer,
} from './sip-stack.js';

export interface SipEndpointOptions {
  /**
   * Local address to listen and send from (default 127.0.0.1: the `sip` parser behind it chokes on
   * crafted messages, so it is not exposed unless asked). An IPv6 address makes the UDP socket IPv6.
   */
  readonly address?: string;
  /** Local port for UDP and the TCP listener (default 5060). */
  readonly port?: number;
  /** Host put in the Via (default the address, or the host name when the address is a wildcard). */
  readonly publicAddress?: string;
  /** Listen for incoming TCP connections (default true). */
  readonly tcpListener?: boolean;
  /** TLS client options for outgoing TLS (ca, cert, key). Certificate checks cannot be turned off. */
  readonly tls?: ConnectionOptions;
  /** An unused outgoing TCP/TLS connection closes after this long, ms (default 120 s). */
  readonly streamIdleMs?: number;
  /**
   * What the listening side accepts before the `sip` parser sees a message: sizes, header count,
   * line and whitespace lengths, TCP connections and times (README, "Incoming messages").
   */
  readonly inbound?: InboundLimits;
  /** A request that is not part of a transaction we hold (a new request, or an ACK of a 2xx). */
  readonly onRequest?: (request: SipRequest, remote: SipRemote) => void;
  /** An exception thrown by `onRequest` (the request got a 500); default: a process warning. */
  readonly onError?: (error: unknown) => void;
}

/** Where one try goes. */
export interface TryTarget {
  readonly transport: TransportName;
  readonly address: string;
  readonly port: number;
  /** TLS: the name to check the certificate against (and send as SNI). */
  readonly serverName?: string;
}

/** What a try reports: every response of its client transaction, or a transport failure. */
export type TryEvent =
  | { readonly type: 'response'; readonly response: SipResponse }
  | { readonly type: 'transport-error'; readonly error: Error };

export interface TryHandle {
  /** The Via branch the transaction layer gave this try. */
  readonly branch: string;
  /** Ends the client transaction at once (no more retransmissions, no more events). */
  stop(): void;
}

export class SipEndpoint {
  readonly address: string;
  readonly port: number;
  /** The family of the UDP socket: `sip` opens one UDP socket, IPv4 unless the address is IPv6. */
  readonly udpFamily: 4 | 6;
  /** The sent-by host of our Via headers. */
  readonly viaHost: string;
  readonly #transport: GuardedTransport;
  readonly #transactions: SipTransactionLayer;
  readonly #streams: StreamConnections;
  readonly #onRequest: SipEndpointOptions['onRequest'];
  readonly #onError: (error: unknown) => void;
  readonly #incoming = new Set<(request: SipRequest, remote: SipRemote) => void>();
  #closed = false;

  private constructor(
    readonly stack: SipStack,
    options: SipEndpointOptions,
    listen: (dispatch: (message: SipMessage, remote: SipRemote) => void) => GuardedTransport,
  ) {
    this.address = options.address ?? DEFAULT_LOCAL_ADDRESS;
    this.port = options.port ?? DEFAULT_LOCAL_PORT;
    this.udpFamily = isIP(this.address) === 6 ? 6 : 4;
    const viaHost = viaHostOf(options);
    this.viaHost = viaHost;
    this.#onRequest = options.onRequest;
    this.#onError = options.onError ?? reportWarning;
    const dispatch = (message: SipMessage, remote: SipRemote): void => this.#dispatch(message, remote);
    this.#transport = listen(dispatch);
    this.#streams = new StreamConnections(stack, dispatch, {
      ...(options.tls ? { tls: options.tls } : {}),
      via: { host: viaHost, port: this.port },
      idleMs: options.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS,
      ...(options.inbound ? { limits: options.inbound } : {}),
      onReject: (rejection, remote) => this.#transport.noteRejected(rejection, remote),
    });
    this.#transactions = stack.makeTransactionLayer({ 'max-forwards': DEFAULT_MAX_FORWARDS }, (target, onError) =>
      this.#openRemote(target, onError),
    );
  }

  /**
   * Binds the local address and port. They are checked first: `sip` binds without an error
   * listener, so a port in use would crash the process instead of failing here.
   */
  static async create(stack: SipStack, options: SipEndpointOptions = {}): Promise<SipEndpoint> {
    if (!stack || typeof stack.makeTransport !== 'function' || typeof stack.makeTransactionLayer !== 'function') {
      throw new InvalidArgumentError('SipEndpoint needs the `sip` module (import sip from "sip")');
    }
    const address = options.address ?? DEFAULT_LOCAL_ADDRESS;
    const port = options.port ?? DEFAULT_LOCAL_PORT;
    if (isIP(address) === 0) throw new InvalidArgumentError(`the local address "${address}" is not an IP address`);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new InvalidArgumentError(`the local port ${String(port)} is outside 1..65535`);
    await checkFree(address, port, options.tcpListener ?? true);
    // The sockets are the bridge's, not `sip`'s: every message is checked before `sip` parses it.
    let deliver: (message: SipMessage, remote: SipRemote) => void = () => {};
    const transport = await GuardedTransport.listen(
      stack,
      {
        address,
        port,
        viaHost: viaHostOf(options),
        tcp: options.tcpListener ?? true,
        ...(options.inbound ? { limits: options.inbound } : {}),
        onError: options.onError ?? reportWarning,
      },
      (message, remote) => deliver(message, remote),
    );
    try {
      return new SipEndpoint(stack, options, (dispatch) => {
        deliver = dispatch;
        return transport;
      });
    } catch (error) {
      transport.destroy();
      throw error;
    }
  }

  /** What the listening side refused so far, by reason, and its open TCP connections. */
  get inboundStats(): InboundStats {
    return this.#transport.stats;
  }

  /** Hears requests that come in (after `onRequest`); returns a function that stops listening. */
  onIncoming(listener: (request: SipRequest, remote: SipRemote) => void): () => void {
    this.#incoming.add(listener);
    return () => void this.#incoming.delete(listener);
  }

  /**
   * One try: a new client transaction for `request` to `target` (the transaction layer sets a
   * new branch, except on a CANCEL). Retransmissions and the ACK of a non-2xx go on the same
   * connection, so they stay on this target. Events arrive asynchronously.
   */
  attempt(request: SipRequest, target: TryTarget, listener: (event: TryEvent) => void): TryHandle {
    if (this.#closed) throw new BridgeClosedError('the SIP endpoint is closed');
    let done = false;
    let transaction: { shutdown(): void } | undefined;
    const fail = (error: Error): void => {
      if (done) return;
      done = true;
      transaction?.shutdown();
      listener({ type: 'transport-error', error });
    };
    let connection: SipConnection;
    try {
      connection = this.open(target, (error) => setImmediate(fail, error));
    } catch (error) {
      setImmediate(fail, error instanceof Error ? error : new Error(String(error)));
      return {
        branch: request.headers.via?.[0]?.params.branch ?? '',
        stop: () => {
          done = true;
        },
      };
    }
    transaction = this.#transactions.createClientTransaction(connection, request, (response) => {
      if (!done) listener({ type: 'response', response });
    });
    return {
      branch: String(request.headers.via?.[0]?.params.branch ?? ''),
      stop: () => {
        done = true;
        transaction?.shutdown();
      },
    };
  }

  /** Sends a message outside any transaction (the ACK of a 2xx) to `target`. */
  sendStateless(message: SipMessage, target: TryTarget): void {
    if (this.#closed) throw new BridgeClosedError('the SIP endpoint is closed');
    const connection = this.open(target);
    try {
      connection.send(message);
    } finally {
      connection.release();
    }
  }

  /** Sends a response through the server transaction of its request; false when there is none. */
  respond(response: SipResponse): boolean {
    const transaction = this.#transactions.getServer(response);
    if (!transaction) return false;
    transaction.send(response);
    return true;
  }

  /** A connection to `target`: `sip`'s UDP socket, or one of our TCP/TLS connections. */
  open(target: TryTarget, onError?: (error: Error) => void): SipConnection {
    if (target.transport === 'udp') {
      // `sip`'s UDP socket would emit an unhandled 'error' for an address of the other family.
      if ((isIP(target.address) === 6 ? 6 : 4) !== this.udpFamily) {
        throw new SipTransportError(
          `cannot send over UDP to ${target.address} from an IPv${this.udpFamily} socket`,
          `udp ${target.address} ${target.port}`,
        );
      }
      return this.#transport.open({ protocol: 'UDP', address: target.address, port: target.port }, onError);
    }
    return this.#streams.open(
      {
        transport: target.transport,
        address: target.address,
        port: target.port,
        ...(target.serverName ? { serverName: target.serverName } : {}),
      },
      onError,
    );
  }

  /** Stops every transaction and closes every socket. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#transactions.destroy();
    this.#streams.close();
    this.#transport.destroy();
  }

  /** The transaction layer's `open`: for server transactions on a message's own flow. */
  #openRemote(remote: SipRemote, onError?: (error: Error) => void): SipConnection {
    return this.#streams.get(remote, onError) ?? this.#transport.open(remote, onError);
  }

  /** What `sip.create` does with an incoming message, minus the resolver. */
  #dispatch(message: SipMessage, remote: SipRemote): void {
    if (this.#closed || !wellFormed(message)) return;
    if (!isRequest(message)) {
      this.#transactions.getClient(message)?.message(message, remote);
      return;
    }
    const known = this.#transactions.getServer(message);
    if (known) {
      known.message(message, remote);
      return;
    }
    if (message.method !== 'ACK') {
      // Responses over UDP go to the sent-by port unless the Via asked for rport (RFC 3261 18.2.2).
      const connection = this.#streams.get(remote) ?? this.#transport.get(responseTarget(message, remote));
      if (!connection) return;
      const transaction = this.#transactions.createServerTransaction(message, connection);
      try {
        this.#deliver(message, remote);
      } catch (error) {
        // Thrown inside `sip`'s socket callback it would end the process: answer 500 and report it.
        transaction.send(this.stack.makeResponse(message, 500, 'Server Internal Error'));
        this.#onError(error);
      }
      return;
    }
    try {
      this.#deliver(message, remote);
    } catch (error) {
      this.#onError(error);
    }
  }

  #deliver(request: SipRequest, remote: SipRemote): void {
    for (const listener of this.#incoming) listener(request, remote);
    this.#onRequest?.(request, remote);
  }
}

function viaHostOf(options: SipEndpointOptions): string {
  const address = options.address ?? DEFAULT_LOCAL_ADDRESS;
  if (options.publicAddress !== undefined) return options.publicAddress;
  if (address === '0.0.0.0' || address === '::') return hostname();
  return isIP(address) === 6 ? `[${address}]` : address;
}

/** The default for errors thrown by application callbacks: visible, but not fatal. */
export function reportWarning(error: unknown): void {
  process.emitWarning(error instanceof Error ? error : String(error), 'SipEndpointWarning');
}

/** Fails with LocalBindError when UDP (and TCP) cannot be bound on address:port. */
async function checkFree(address: string, port: number, tcp: boolean): Promise<void> {
  const udp = await new Promise<Error | undefined>((resolve) => {
    const socket = createSocket(isIP(address) === 6 ? 'udp6' : 'udp4');
    socket.once('error', (error) => {
      socket.close();
      resolve(error);
    });
    socket.bind(port, address, () => socket.close(() => resolve(undefined)));
  });
  if (udp) throw new LocalBindError(`cannot bind UDP ${address} port ${port}: ${udp.message}`, { cause: udp });
  if (!tcp) return;
  const stream = await new Promise<Error | undefined>((resolve) => {
    const server = createServer();
    server.once('error', resolve);
    server.listen(port, address, () => server.close(() => resolve(undefined)));
  });
  if (stream)
    throw new LocalBindError(`cannot listen on TCP ${address} port ${port}: ${stream.message}`, { cause: stream });
}
