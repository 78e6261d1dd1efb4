/**
 * The bridge's listening side: its UDP socket and TCP listener, in place of `sip`'s
 * `makeTransport`. `sip` 0.0.6 offers no hook before its parser: its UDP socket and stream
 * transport call its private `parseMessage` and `makeStreamParser` (wrapping the exported `parse`
 * changes nothing), and `sip.create`/`sip.start` build that transport themselves. So the bridge
 * owns the sockets, checks every message's bytes first (message-guard.ts, stream-framer.ts), and
 * hands a message that passes, unchanged, to `sip`'s exported `parse`: for UDP what `sip`'s own
 * socket calls; for TCP, one message framed by its Content-Length gives what `sip`'s stream parser
 * would (same regex, same header parser, the same body). Then the checks `sip` applied and the
 * Via `received`/`rport` it stamps (RFC 3261 section 18.2.1, RFC 3581). Sending is `sip`'s too:
 * `stringify`, with the top Via of a request stamped as its transport wrapper does.
 */
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { createServer, isIP, type Server, type Socket } from 'node:net';
import { InvalidArgumentError } from '@dnscore/core';
import { sipRejectedChannel } from '@dnscore/core/diagnostics';
import { DEFAULT_MAX_TCP_CONNECTIONS, DEFAULT_TCP_IDLE_MS, DEFAULT_TCP_MESSAGE_MS } from './defaults.js';
import { LocalBindError, SipTransportError } from './errors.js';
import {
  checkDatagram,
  resolveLimits,
  type MessageLimits,
  type RejectReason,
  type Rejection,
  type ResolvedLimits,
} from './message-guard.js';
import { StreamFramer } from './stream-framer.js';
import { stampVia, wellFormed } from './stream-connections.js';
import { repairVias } from './via.js';
import {
  isRequest,
  type SipConnection,
  type SipMessage,
  type SipRemote,
  type SipStack,
  type SipTransport,
} from './sip-stack.js';

/** What the listening side accepts (SipEndpointOptions `inbound`). */
export interface InboundLimits extends MessageLimits {
  /** Incoming TCP connections open at once (default 256); one more is closed at once. */
  readonly maxTcpConnections?: number;
  /** From a message's first byte on TCP to its last, ms (default 10 s); then the connection closes. */
  readonly tcpMessageMs?: number;
  /** An incoming TCP connection idle this long with no transaction on it closes, ms (default 120 s). */
  readonly tcpIdleMs?: number;
}

/** What the guard refused, by reason, since the endpoint started. */
export interface InboundStats {
  readonly rejected: Readonly<Record<RejectReason, number>>;
  /** Incoming TCP connections open now. */
  readonly tcpConnections: number;
}

export interface GuardedTransportOptions {
  readonly address: string;
  readonly port: number;
  /** Sent-by host of our Via. */
  readonly viaHost: string;
  readonly tcp: boolean;
  readonly limits?: InboundLimits;
  /** Exceptions thrown while handling a message (never fatal). */
  readonly onError: (error: unknown) => void;
}

interface IncomingFlow {
  readonly socket: Socket;
  readonly remote: SipRemote;
  readonly framer: StreamFramer;
  readonly errorListeners: Set<(error: Error) => void>;
  refs: number;
  timer: NodeJS.Timeout | undefined;
  refused: boolean;
}

const REASONS: readonly RejectReason[] = [
  'message-too-large',
  'headers-too-large',
  'too-many-headers',
  'line-too-long',
  'parsed-field-budget',
  'whitespace-run',
  'bare-line-break',
  'malformed-header',
  'content-length',
  'connection-limit',
  'message-timeout',
  'malformed-via',
];

const REASON_PHRASES = { 400: 'Bad Request', 513: 'Message Too Large' } as const;

/** After a 513 on TCP, how long the far side gets to read it before the connection is destroyed. */
const LINGER_MS = 1_000;

export class GuardedTransport implements SipTransport {
  readonly #limits: ResolvedLimits;
  readonly #maxConnections: number;
  readonly #messageMs: number;
  readonly #idleMs: number;
  readonly #udp: UdpSocket;
  readonly #server: Server | undefined;
  readonly #flows = new Set<IncomingFlow>();
  readonly #rejected = Object.fromEntries(REASONS.map((reason) => [reason, 0])) as Record<RejectReason, number>;
  #closed = false;

  private constructor(
    private readonly stack: SipStack,
    private readonly options: GuardedTransportOptions,
    private readonly dispatch: (message: SipMessage, remote: SipRemote) => void,
  ) {
    const limits = options.limits ?? {};
    this.#limits = resolveLimits(limits);
    this.#maxConnections = positive('maxTcpConnections', limits.maxTcpConnections ?? DEFAULT_MAX_TCP_CONNECTIONS);
    this.#messageMs = positive('tcpMessageMs', limits.tcpMessageMs ?? DEFAULT_TCP_MESSAGE_MS);
    this.#idleMs = positive('tcpIdleMs', limits.tcpIdleMs ?? DEFAULT_TCP_IDLE_MS);
    this.#udp = createSocket(isIP(options.address) === 6 ? 'udp6' : 'udp4', (data, rinfo) =>
      this.#guard(() => this.#onDatagram(data, rinfo)),
    );
    this.#server = options.tcp ? createServer((socket) => this.#accept(socket)) : undefined;
  }

  /** Binds UDP (and listens on TCP); LocalBindError when either cannot. */
  static async listen(
    stack: SipStack,
    options: GuardedTransportOptions,
    dispatch: (message: SipMessage, remote: SipRemote) => void,
  ): Promise<GuardedTransport> {
    const transport = new GuardedTransport(stack, options, dispatch);
    try {
      await transport.#bind();
    } catch (error) {
      transport.destroy();
      throw error;
    }
    return transport;
  }

  get stats(): InboundStats {
    return { rejected: { ...this.#rejected }, tcpConnections: this.#flows.size };
  }

  open(target: SipRemote, onError?: (error: Error) => void): SipConnection {
    if (target.protocol.toUpperCase() === 'UDP') return this.#udpConnection(target);
    const connection = this.get(target, onError);
    if (!connection) {
      const where = `${target.protocol.toLowerCase()} ${target.address} ${target.port}`;
      throw new SipTransportError(`no incoming connection from ${where}`, where);
    }
    return connection;
  }

  get(target: SipRemote, onError?: (error: Error) => void): SipConnection | undefined {
    if (target.protocol.toUpperCase() === 'UDP') return this.#udpConnection(target);
    if (target.protocol.toUpperCase() !== 'TCP') return undefined;
    for (const flow of this.#flows) {
      if (flow.refused || flow.remote.address !== target.address || flow.remote.port !== target.port) continue;
      return this.#hold(flow, onError);
    }
    return undefined;
  }

  destroy(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#udp.close();
    } catch {
      // not bound yet, or closed: nothing to release
    }
    this.#server?.close();
    for (const flow of this.#flows) this.#drop(flow);
  }

  async #bind(): Promise<void> {
    const { address, port } = this.options;
    await new Promise<void>((resolve, reject) => {
      this.#udp.once('error', (error) =>
        reject(new LocalBindError(`cannot bind UDP ${address} port ${port}: ${error.message}`, { cause: error })),
      );
      this.#udp.bind(port, address, () => resolve());
    });
    // Later socket errors (an ICMP unreachable reported on send) are the sender's business, not fatal.
    this.#udp.removeAllListeners('error');
    this.#udp.on('error', (error) => this.options.onError(error));
    const server = this.#server;
    if (!server) return;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) =>
        reject(new LocalBindError(`cannot listen on TCP ${address} port ${port}: ${error.message}`, { cause: error })),
      );
      server.listen(port, address, () => resolve());
    });
    server.removeAllListeners('error');
    server.on('error', (error) => this.options.onError(error));
  }

  #onDatagram(data: Buffer, rinfo: RemoteInfo): void {
    if (this.#closed) return;
    const { address, port } = this.options;
    const remote: SipRemote = { protocol: 'UDP', address: rinfo.address, port: rinfo.port, local: { address, port } };
    const check = checkDatagram(data, this.#limits);
    if (!check.ok) {
      const answered =
        check.headerBytes !== undefined &&
        this.#answerRefused(data.subarray(0, check.headerBytes), check.status!, this.#udpConnection(remote));
      this.#reject('udp', remote, check.rejection, answered);
      return;
    }
    // Bytes after the Content-Length body are not part of the message (RFC 3261 section 18.3).
    const bytes = check.messageBytes === data.length ? data : data.subarray(0, check.messageBytes);
    const message = this.stack.parse(bytes);
    if (!message) return;
    const refused = repairVias(message, bytes);
    if (refused) {
      this.#reject('udp', remote, refused);
      return;
    }
    if (!wellFormed(message)) return;
    if (isRequest(message)) {
      const params = message.headers.via![0]!.params as Record<string, unknown>;
      params.received = rinfo.address;
      if (Object.hasOwn(params, 'rport')) params.rport = rinfo.port;
    }
    this.dispatch(message, remote);
  }

  #accept(socket: Socket): void {
    const remote: SipRemote = {
      protocol: 'TCP',
      address: socket.remoteAddress ?? '',
      port: socket.remotePort ?? 0,
      local: { address: socket.localAddress ?? '', port: socket.localPort ?? 0 },
    };
    socket.on('error', () => {}); // reported to the flow's holders below; never fatal
    if (this.#closed || this.#flows.size >= this.#maxConnections) {
      socket.destroy();
      this.#reject('tcp', remote, {
        reason: 'connection-limit',
        detail: `more than ${this.#maxConnections} incoming TCP connections`,
      });
      return;
    }
    const flow: IncomingFlow = {
      socket,
      remote,
      framer: new StreamFramer(this.#limits),
      errorListeners: new Set(),
      refs: 0,
      timer: undefined,
      refused: false,
    };
    this.#flows.add(flow);
    socket.setTimeout(this.#idleMs);
    socket.on('timeout', () => {
      if (flow.refs === 0 && !flow.framer.reading) this.#drop(flow);
    });
    socket.on('data', (chunk: Buffer) => this.#guard(() => this.#onData(flow, chunk)));
    socket.on('error', (error) => {
      const where = `tcp ${remote.address} ${remote.port}`;
      const wrapped = new SipTransportError(`${where}: ${error.message}`, where, { cause: error });
      for (const listener of [...flow.errorListeners]) listener(wrapped);
    });
    socket.on('end', () => socket.end());
    socket.on('close', () => {
      clearTimeout(flow.timer);
      this.#flows.delete(flow);
    });
  }

  #onData(flow: IncomingFlow, chunk: Buffer): void {
    if (flow.refused) return;
    flow.framer.push(chunk, (event) => {
      if (event.type === 'rejected') {
        const answered =
          event.headerSection !== undefined && this.#answerRefused(event.headerSection, 513, this.#hold(flow));
        this.#reject('tcp', flow.remote, event.rejection, answered);
        this.#refuse(flow, answered);
        return;
      }
      clearTimeout(flow.timer);
      flow.timer = undefined;
      const message = this.stack.parse(event.bytes);
      if (!message) return;
      // The framing held: a Via refused drops this message, not the connection.
      const refused = repairVias(message, event.bytes);
      if (refused) {
        this.#reject('tcp', flow.remote, refused);
        return;
      }
      if (!wellFormed(message)) return;
      if (isRequest(message)) message.headers.via![0]!.params.received = flow.remote.address;
      // Caught here, not by #guard: the framer must go on with the rest of this chunk.
      this.#guard(() => this.dispatch(message, { ...flow.remote }));
    });
    if (flow.refused || !flow.framer.reading || flow.timer) return;
    flow.timer = setTimeout(() => {
      const detail = `a message took over ${this.#messageMs} ms to arrive`;
      this.#reject('tcp', flow.remote, { reason: 'message-timeout', detail });
      this.#refuse(flow, false);
    }, this.#messageMs);
  }

  /** Closes a connection that sent what the guard refused; after a 513, once it had time to be read. */
  #refuse(flow: IncomingFlow, answered: boolean): void {
    flow.refused = true;
    clearTimeout(flow.timer);
    if (!answered) {
      this.#drop(flow);
      return;
    }
    flow.socket.end();
    flow.timer = setTimeout(() => flow.socket.destroy(), LINGER_MS);
    flow.timer.unref();
  }

  #drop(flow: IncomingFlow): void {
    clearTimeout(flow.timer);
    flow.socket.destroy();
    this.#flows.delete(flow);
  }

  /**
   * A request refused whose header section passed every check (parsing it is as safe as any
   * other message's) is answered: 513 Message Too Large when refused for its size (RFC 3261
   * section 21.5.14), 400 Bad Request when its datagram ends before its body (section 18.3).
   * Responses, ACKs and what `sip` cannot parse get nothing.
   */
  #answerRefused(headerSection: Buffer, status: 400 | 513, connection: SipConnection): boolean {
    try {
      const request = this.stack.parse(headerSection);
      if (
        !request ||
        repairVias(request, headerSection) ||
        !wellFormed(request) ||
        !isRequest(request) ||
        request.method === 'ACK'
      )
        return false;
      connection.send(this.stack.makeResponse(request, status, REASON_PHRASES[status]));
      return true;
    } finally {
      connection.release();
    }
  }

  /** Counts and publishes a message refused elsewhere (on an outgoing TCP or TLS connection). */
  noteRejected(rejection: Rejection, remote: SipRemote): void {
    const transport = remote.protocol.toLowerCase() === 'tls' ? 'tls' : 'tcp';
    this.#reject(transport, remote, rejection);
  }

  #reject(transport: 'udp' | 'tcp' | 'tls', remote: SipRemote, rejection: Rejection, answered = false): void {
    this.#rejected[rejection.reason]++;
    if (sipRejectedChannel.hasSubscribers) {
      sipRejectedChannel.publish({
        transport,
        address: remote.address,
        port: remote.port,
        reason: rejection.reason,
        detail: rejection.detail,
        answered,
      });
    }
  }

  #udpConnection(target: SipRemote): SipConnection {
    const { viaHost, port } = this.options;
    const udp = this.#udp;
    const { stack } = this;
    return {
      protocol: 'UDP',
      send(message: SipMessage): void {
        if (isRequest(message)) {
          stampVia(message, 'UDP', { host: viaHost, port });
          // `sip`'s wrapper asks for rport on every UDP request (RFC 3581).
          const top = message.headers.via?.[0];
          if (top) top.params.rport = null;
        }
        udp.send(Buffer.from(stack.stringify(message), 'binary'), target.port, target.address);
      },
      release(): void {},
    };
  }

  #hold(flow: IncomingFlow, onError?: (error: Error) => void): SipConnection {
    flow.refs++;
    if (onError) flow.errorListeners.add(onError);
    let held = true;
    const { viaHost, port } = this.options;
    const { stack } = this;
    const idleMs = this.#idleMs;
    return {
      protocol: 'TCP',
      send(message: SipMessage): void {
        if (isRequest(message)) stampVia(message, 'TCP', { host: viaHost, port });
        flow.socket.write(stack.stringify(message), 'binary');
      },
      release(): void {
        if (!held) return;
        held = false;
        if (onError) flow.errorListeners.delete(onError);
        // The idle clock starts again when the last transaction lets go (a timeout fires once).
        if (--flow.refs === 0) flow.socket.setTimeout(idleMs);
      },
    };
  }

  /** Runs a socket callback: an exception there would end the process. */
  #guard(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.options.onError(error);
    }
  }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return value;
}
