/**
 * Outgoing TCP and TLS connections: the `transport.open` of the bridge for stream transports.
 * `sip`'s own stream transport connects TLS with one stack-wide `options.tls`, so it cannot
 * check each server's certificate against that server's name; here every connection gets its
 * own server name (SNI and certificate check), connects to the target's address, refuses to
 * turn certificate checks off, and closes with the bridge. Messages are framed and checked by
 * the guard (stream-framer.ts: `sip`'s stream parser is quadratic on a slow or crafted stream),
 * parsed by `sip` and handed to the same dispatcher as UDP.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { InvalidArgumentError } from '@dnscore/core';
import { DEFAULT_STREAM_IDLE_MS } from './defaults.js';
import { SipTransportError } from './errors.js';
import { resolveLimits, type MessageLimits, type Rejection, type ResolvedLimits } from './message-guard.js';
import { StreamFramer } from './stream-framer.js';
import { isRequest, type SipConnection, type SipMessage, type SipRemote, type SipStack } from './sip-stack.js';
import { repairVias } from './via.js';

export interface StreamTarget {
  readonly transport: 'tcp' | 'tls';
  readonly address: string;
  readonly port: number;
  /** TLS only: the name sent as SNI and checked against the certificate; none for an IP literal. */
  readonly serverName?: string;
}

export interface StreamConnectionsOptions {
  /** TLS client options (ca, cert, key, ...); `servername` and `host` are set per connection. */
  readonly tls?: ConnectionOptions;
  /** Sent-by of the Via the bridge stamps on requests. */
  readonly via: { readonly host: string; readonly port: number };
  /** An unused connection closes after this long (default 120 s). */
  readonly idleMs?: number;
  /** What a message from the far side may be before `sip` parses it (message-guard.ts). */
  readonly limits?: MessageLimits;
  /** A message the guard refused (the connection is closed). */
  readonly onReject?: (rejection: Rejection, remote: SipRemote) => void;
}

interface Flow {
  readonly socket: Socket;
  readonly remote: SipRemote;
  readonly errorListeners: Set<(error: Error) => void>;
  refs: number;
}

export class StreamConnections {
  readonly #flows = new Map<string, Flow>();
  readonly #tls: ConnectionOptions;
  readonly #idleMs: number;
  readonly #limits: ResolvedLimits;
  #closed = false;

  constructor(
    private readonly stack: SipStack,
    private readonly dispatch: (message: SipMessage, remote: SipRemote) => void,
    private readonly options: StreamConnectionsOptions,
  ) {
    this.#tls = options.tls ?? {};
    if (this.#tls.rejectUnauthorized === false) {
      throw new InvalidArgumentError(
        'tls.rejectUnauthorized: false is refused: give the test CA with tls.ca instead of turning certificate ' +
          'checks off',
      );
    }
    this.#idleMs = options.idleMs ?? DEFAULT_STREAM_IDLE_MS;
    this.#limits = resolveLimits(options.limits);
  }

  /**
   * A connection to `target` (a new one, or the open one with the same server name); `onError`
   * hears its failures while held.
   */
  open(target: StreamTarget, onError?: (error: Error) => void): SipConnection {
    if (this.#closed) throw new SipTransportError('the bridge is closed', describe(target));
    const key = flowKey(target);
    const flow = this.#flows.get(key) ?? this.#connect(target, key);
    return this.#hold(flow, onError);
  }

  /** The open connection a message from `remote` came on, for a response or an in-dialog request. */
  get(remote: SipRemote, onError?: (error: Error) => void): SipConnection | undefined {
    for (const flow of this.#flows.values()) {
      if (
        flow.remote.protocol === remote.protocol.toUpperCase() &&
        flow.remote.address === remote.address &&
        flow.remote.port === remote.port
      ) {
        return this.#hold(flow, onError);
      }
    }
    return undefined;
  }

  get size(): number {
    return this.#flows.size;
  }

  /** Destroys every connection; later opens fail. */
  close(): void {
    this.#closed = true;
    for (const flow of this.#flows.values()) flow.socket.destroy();
    this.#flows.clear();
  }

  #connect(target: StreamTarget, key: string): Flow {
    const socket =
      target.transport === 'tls'
        ? tlsConnect({
            ...this.#tls,
            host: target.address,
            port: target.port,
            ...(target.serverName ? { servername: target.serverName } : {}),
          })
        : netConnect({ host: target.address, port: target.port });
    const remote: SipRemote = { protocol: target.transport.toUpperCase(), address: target.address, port: target.port };
    const flow: Flow = { socket, remote, errorListeners: new Set(), refs: 0 };
    this.#flows.set(key, flow);
    socket.on(target.transport === 'tls' ? 'secureConnect' : 'connect', () => {
      remote.local = { address: socket.localAddress ?? '', port: socket.localPort ?? 0 };
    });
    const framer = new StreamFramer(this.#limits);
    socket.on('data', (data: Buffer) =>
      framer.push(data, (event) => {
        if (event.type === 'rejected') {
          this.options.onReject?.(event.rejection, { ...remote });
          const reason = `${event.rejection.reason}: ${event.rejection.detail}`;
          socket.destroy(new SipTransportError(`${describe(target)}: message refused (${reason})`, describe(target)));
          return;
        }
        // One message framed by its Content-Length: `parse` gives what `sip`'s stream parser would.
        const message = this.stack.parse(event.bytes);
        if (!message) return;
        const refused = repairVias(message, event.bytes);
        if (refused) {
          this.options.onReject?.(refused, { ...remote });
          return;
        }
        if (!wellFormed(message)) return;
        if (isRequest(message)) message.headers.via![0]!.params.received = target.address;
        this.dispatch(message, { ...remote });
      }),
    );
    socket.on('error', (error: Error) => {
      const wrapped = new SipTransportError(`${describe(target)}: ${error.message}`, describe(target), {
        cause: error,
      });
      for (const listener of [...flow.errorListeners]) listener(wrapped);
    });
    socket.on('end', () => socket.end());
    socket.on('close', () => {
      if (this.#flows.get(key) === flow) this.#flows.delete(key);
      if (flow.refs > 0) {
        const gone = new SipTransportError(`${describe(target)}: connection closed`, describe(target));
        for (const listener of [...flow.errorListeners]) listener(gone);
      }
    });
    socket.on('timeout', () => {
      if (flow.refs === 0) socket.destroy();
    });
    return flow;
  }

  #hold(flow: Flow, onError?: (error: Error) => void): SipConnection {
    flow.refs++;
    flow.socket.setTimeout(0);
    if (onError) flow.errorListeners.add(onError);
    let held = true;
    const { stack, options } = this;
    return {
      protocol: flow.remote.protocol,
      send(message: SipMessage): void {
        if (isRequest(message)) stampVia(message, flow.remote.protocol, options.via);
        flow.socket.write(stack.stringify(message), 'binary');
      },
      release: (): void => {
        if (!held) return;
        held = false;
        if (onError) flow.errorListeners.delete(onError);
        if (--flow.refs === 0) flow.socket.setTimeout(this.#idleMs);
      },
    };
  }
}

/** What `sip`'s transport wrapper does to a request's top Via before sending. */
export function stampVia(
  request: { headers: { via?: { host?: string; port?: number; protocol?: string }[] } },
  protocol: string,
  via: { readonly host: string; readonly port: number },
): void {
  const top = request.headers.via?.[0];
  if (!top) return;
  top.host = via.host;
  top.port = via.port;
  top.protocol = protocol;
}

/** The checks `sip` applies to every message it receives. */
export function wellFormed(message: SipMessage): boolean {
  const h = message.headers;
  return (
    (isRequest(message) || (Number.isInteger(message.status) && message.status >= 100 && message.status <= 699)) &&
    Array.isArray(h?.via) &&
    h.via.length > 0 &&
    typeof h['call-id'] === 'string' &&
    h.to !== undefined &&
    h.from !== undefined &&
    h.cseq !== undefined
  );
}

function flowKey(target: StreamTarget): string {
  return `${target.transport} ${target.address} ${target.port} ${target.serverName ?? ''}`;
}

function describe(target: StreamTarget): string {
  return `${target.transport} ${target.address} ${target.port}`;
}
