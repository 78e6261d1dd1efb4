/**
 * UDP sockets shared by the queries in flight at the same time (c-ares's udp_max_queries,
 * unbound's outgoing ports). A socket is bound to a port the OS picks at random (RFC 5452
 * section 9.2), carries at most `maxQueries` queries in its life, each with a crypto-random ID
 * no other query in flight on it holds, and is closed when its last query ends: one query alone
 * (the usual case outside bursts) still gets a socket, and so a port, of its own. In a burst
 * of thousands, a socket per query made, bound and closed a socket object, a handle and their
 * callbacks for each of them.
 *
 * A datagram is handed to the query that holds its ID, which checks the source address and
 * port and the rest (response-check.ts) as before. One that no query holds is refused and
 * counted against the queries waiting on that socket for its source (wrong ID), or all of them
 * (wrong source). Sockets are not connected, so that refused datagrams reach us and are counted.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { HEADER_LENGTH } from '@dnscore/core/plugin';
import { randomQueryId } from './query-id.js';
import { isFromServer, type ServerAddress } from './server-address.js';
import type { SystemResolverStats } from './stats.js';

/** A query waiting on a shared socket for the datagram with its ID. */
export interface UdpWaiter {
  readonly server: ServerAddress;
  readonly stats: SystemResolverStats;
  /** A datagram with this waiter's ID (its source not checked yet). */
  take(message: Buffer, from: RemoteInfo): void;
  /** A datagram refused for every query of the socket that could have been its addressee. */
  refused(): void;
  /** The socket failed: no answer will come. */
  fail(error: Error): void;
}

/** Queries a UDP socket carries before it is retired (c-ares's udp_max_queries). */
export const DEFAULT_UDP_MAX_QUERIES = 64;

export class UdpSockets {
  /** The socket new queries of each family join, while it may take more. */
  readonly #current: { 4: SharedSocket | undefined; 6: SharedSocket | undefined } = { 4: undefined, 6: undefined };

  constructor(readonly maxQueries: number = DEFAULT_UDP_MAX_QUERIES) {}

  /**
   * A socket for `waiter` and the ID it was given there. Send with send(); call leave() once
   * the query ends, whatever its outcome.
   */
  join(waiter: UdpWaiter): { readonly socket: SharedSocket; readonly id: number } {
    const family = waiter.server.family;
    let socket = this.#current[family];
    if (socket === undefined || socket.closed || socket.used >= this.maxQueries) {
      socket = new SharedSocket(family, this);
      this.#current[family] = socket;
    }
    return { socket, id: socket.add(waiter) };
  }

  /** A socket that closed: new queries get a new one. */
  forget(socket: SharedSocket): void {
    if (this.#current[socket.family] === socket) this.#current[socket.family] = undefined;
  }
}

/** One socket and the queries in flight on it, by ID. */
export class SharedSocket {
  readonly #socket: Socket;
  readonly #waiters = new Map<number, UdpWaiter>();
  /** Queries it has carried (retired at the pool's maxQueries). */
  used = 0;
  closed = false;

  constructor(
    readonly family: 4 | 6,
    private readonly pool: UdpSockets,
  ) {
    this.#socket = createSocket({ type: family === 6 ? 'udp6' : 'udp4' });
    this.#socket.on('message', (message, from) => this.#receive(message, from));
    this.#socket.on('error', (error) => this.#fail(error));
    // Port 0: the OS picks a random free port; exclusive so a cluster worker never shares it
    // with another process. Sends before the bind completes are queued by dgram.
    this.#socket.bind({ port: 0, exclusive: true });
  }

  /** The port it is bound to (0 until bound). */
  get port(): number {
    try {
      return this.#socket.address().port;
    } catch {
      return 0;
    }
  }

  /** Queries in flight on it. */
  get size(): number {
    return this.#waiters.size;
  }

  /** Adds a query; returns a random ID that no other query in flight here holds. */
  add(waiter: UdpWaiter): number {
    let id = randomQueryId();
    while (this.#waiters.has(id)) id = randomQueryId();
    this.#waiters.set(id, waiter);
    this.used++;
    return id;
  }

  send(packet: Uint8Array, server: ServerAddress, callback: (error: Error | null) => void): void {
    this.#socket.send(packet, server.port, server.address, callback);
  }

  /** The query with `id` ended; the socket closes when it was the last one. */
  leave(id: number): void {
    this.#waiters.delete(id);
    if (this.#waiters.size === 0) this.#close();
  }

  #receive(message: Buffer, from: RemoteInfo): void {
    const id = message.length >= 2 ? (message[0]! << 8) | message[1]! : -1;
    const waiter = this.#waiters.get(id);
    if (waiter !== undefined) {
      waiter.take(message, from);
      return;
    }
    // Nobody here asked with this ID: refused for the queries to its source, else for all.
    let counted: SystemResolverStats | undefined;
    for (const candidate of this.#waiters.values()) {
      if (!isFromServer(candidate.server, from.address, from.port)) continue;
      if (counted === undefined) {
        counted = candidate.stats;
        if (message.length < HEADER_LENGTH) counted.garbage++;
        else counted.wrongId++;
      }
      candidate.refused();
    }
    if (counted !== undefined) return;
    let first = true;
    for (const candidate of this.#waiters.values()) {
      if (first) candidate.stats.wrongSource++;
      first = false;
      candidate.refused();
    }
  }

  #fail(error: Error): void {
    const waiters = [...this.#waiters.values()];
    this.#waiters.clear();
    this.#close();
    for (const waiter of waiters) waiter.fail(error);
  }

  #close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pool.forget(this);
    this.#socket.removeAllListeners('message');
    this.#socket.close();
  }
}
