/**
 * A PenaltyStore shared by a fleet through Redis. Reads are the local box's (synchronous, no
 * network); a mark or clear changes the local box at once and goes to Redis in the background
 * (a Lua script, then PUBLISH); marks and clears of the other nodes arrive by pub/sub. On every
 * (re)connect the store rebuilds its view with SCAN and shares back what it learned while Redis
 * was away. Redis down, slow or hostile never fails, delays or corrupts a SIP request: the local
 * box carries on, the store logs once and reconnects with backoff.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import { InvalidArgumentError, StateError, systemClock, type Clock } from '@dnscore/core';
import {
  MemoryPenaltyStore,
  type PenaltyEntry,
  type PenaltyLeaveReason,
  type PenaltyStore,
  type SipTransport,
} from '@dnscore/sip';
import { createClient, ErrorReply, type RedisClientType } from 'redis';
import { CLEAR_SCRIPT, MARK_SCRIPT } from './scripts.js';
import {
  MAX_WIRE_LENGTH,
  decodeMessage,
  decodeValue,
  encodeMessage,
  encodeValue,
  isDestinationKey,
  remainingMs,
} from './wire.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_REMOTE_MS,
  DEFAULT_PENALTY_MAX_ENTRIES,
  DEFAULT_PREFIX,
  DEFAULT_RECONNECT_MAX_MS,
  DEFAULT_RECONNECT_MIN_MS,
} from './defaults.js';

export interface RedisPenaltyStoreOptions {
  /** redis://host:port or rediss://host:port (TLS) (default redis://127.0.0.1:6379). */
  readonly url?: string;
  /** ACL user (Redis 6+) and its password; or only a password for `requirepass`. */
  readonly username?: string;
  readonly password?: string;
  /** TLS to Redis: node:tls options (ca, cert, key, servername, ...); `true` for the defaults. */
  readonly tls?: boolean | ConnectionOptions;
  /** What every key and the channel start with: one fleet, one prefix (default "dnscore:"). */
  readonly prefix?: string;
  /** Cap on a duration read from Redis or a peer, ms (default 300 s, the box's Retry-After cap). */
  readonly maxRemoteMs?: number;
  /** Entries kept locally at most (default 4096). */
  readonly maxEntries?: number;
  /** Commands waiting on a slow Redis at most; beyond, changes wait in a bounded backlog (default 1000). */
  readonly maxInFlight?: number;
  readonly connectTimeoutMs?: number;
  /**
   * A command, or the handshake of a connection, unanswered this long means Redis will not
   * answer (hung, or a connection dead without a reset): the store drops both connections and
   * makes new ones (default 2000 ms).
   */
  readonly commandTimeoutMs?: number;
  /** Backoff between reconnects: doubles from min to max, ms (default 100 .. 5000). */
  readonly reconnectMinMs?: number;
  readonly reconnectMaxMs?: number;
  /** Where the store says Redis went away or came back (default console.warn); once per change. */
  readonly log?: (message: string) => void;
  /** Called after another node's mark or clear is applied here (metrics, logs); a throw is logged once. */
  readonly onRemote?: (key: string, entry: PenaltyEntry | undefined) => void;
  /** Must be the penalty box's clock. */
  readonly clock?: Clock;
}

/** Counters for operators and tests. */
export interface RedisPenaltyStoreStats {
  /** Entries, values and messages from Redis dropped for their shape. */
  readonly dropped: number;
  /** Marks and clears of other nodes applied from pub/sub. */
  readonly received: number;
  /** Rebuilds (SCAN) finished. */
  readonly rebuilds: number;
  /** Marks and clears Redis did not get at once (down, slow); they wait, bounded, for a drain or a rebuild. */
  readonly unshared: number;
}

export class RedisPenaltyStore implements PenaltyStore {
  readonly prefix: string;
  readonly #local: MemoryPenaltyStore;
  readonly #clock: Clock;
  readonly #maxRemoteMs: number;
  readonly #maxInFlight: number;
  readonly #log: (message: string) => void;
  readonly #onRemote: RedisPenaltyStoreOptions['onRemote'];
  readonly #node = randomBytes(8).toString('hex');
  readonly #channel: string;
  readonly #client: RedisClientType;
  readonly #subscriber: RedisClientType;
  readonly #maxEntries: number;
  readonly #commandTimeoutMs: number;
  readonly #backoff: (retries: number) => number;
  /** A connection up but not ready (its handshake unanswered): given up after commandTimeoutMs. */
  readonly #handshakes = new Map<RedisClientType, ReturnType<typeof setTimeout>>();
  /** Bumped when the store drops its connections: what the old ones report afterwards is stale. */
  #generation = 0;
  #unanswered = 0;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set while Redis refuses changes (an error reply): nothing is sent until it runs out. */
  #refusedTimer: ReturnType<typeof setTimeout> | undefined;
  #refusals = 0;
  readonly #backlog = new Map<string, 'mark' | 'clear'>();
  #inFlight = 0;
  #up: boolean | undefined;
  #synced = false;
  #subscribed = false;
  #rebuilding: Promise<void> | undefined;
  #rebuildAgain = false;
  /** Keys cleared here or by a peer since the running SCAN began: what it read of them is older. */
  readonly #clearedSinceScan = new Set<string>();
  #closed = false;
  #started = false;
  #warnedScan = false;
  #warnedOnRemote = false;
  #syncWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  readonly #stats = { dropped: 0, received: 0, rebuilds: 0, unshared: 0 };

  constructor(options: RedisPenaltyStoreOptions = {}) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    if (typeof this.prefix !== 'string' || this.prefix === '' || /[*?[\]\\\s]/.test(this.prefix))
      throw new InvalidArgumentError('a fleet prefix must be a non-empty string without spaces or *?[]\\');
    this.#clock = options.clock ?? systemClock;
    this.#maxRemoteMs = positive(options.maxRemoteMs ?? DEFAULT_MAX_REMOTE_MS, 'maxRemoteMs');
    this.#maxInFlight = positive(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT, 'maxInFlight');
    const minMs = positive(options.reconnectMinMs ?? DEFAULT_RECONNECT_MIN_MS, 'reconnectMinMs');
    const maxMs = positive(options.reconnectMaxMs ?? DEFAULT_RECONNECT_MAX_MS, 'reconnectMaxMs');
    this.#log = options.log ?? ((message) => console.warn(message));
    this.#onRemote = options.onRemote;
    this.#maxEntries = options.maxEntries ?? DEFAULT_PENALTY_MAX_ENTRIES;
    this.#local = new MemoryPenaltyStore({ clock: this.#clock, maxEntries: this.#maxEntries });
    this.#channel = `${this.prefix}penalty`;
    const url = options.url ?? 'redis://127.0.0.1:6379';
    if (typeof url !== 'string' || !/^rediss?:\/\/[^\s]+$/.test(url))
      throw new InvalidArgumentError(`a Redis URL is redis://host:port or rediss://host:port, not ${String(url)}`);
    const tls = options.tls ?? url.startsWith('rediss:');
    this.#commandTimeoutMs = positive(options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, 'commandTimeoutMs');
    // Exponential backoff with jitter, for ever: the local box works meanwhile.
    this.#backoff = (retries) => Math.min(maxMs, minMs * 2 ** Math.min(retries, 20)) * (0.5 + Math.random() / 2);
    const socket = {
      connectTimeout: positive(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, 'connectTimeoutMs'),
      reconnectStrategy: this.#backoff,
      ...(tls ? { tls: true as const, ...(typeof tls === 'object' ? tls : {}) } : {}),
    };
    this.#client = createClient({
      url,
      ...(options.username !== undefined ? { username: options.username } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
      socket,
      // A command for a Redis that is away fails at once instead of piling up; reconnect re-shares.
      disableOfflineQueue: true,
    }) as RedisClientType;
    this.#subscriber = this.#client.duplicate() as RedisClientType;
    for (const client of [this.#client, this.#subscriber]) {
      client.on('error', (error: Error) => {
        this.#answered(client);
        this.#down(error);
      });
      // close() while connecting: node-redis's destroy() misses a socket still connecting, which
      // then connects and would keep the process alive; it is destroyed once it shows up.
      client.on('connect', () => (this.#closed ? client.destroy() : this.#awaitHandshake(client)));
      client.on('ready', () => {
        this.#answered(client);
        if (this.#closed) client.destroy();
        else this.#ready();
      });
    }
  }

  /**
   * Connects (in the background: this resolves at once) and starts listening. Marks made before
   * Redis answers stay local and are shared by the first rebuild. Again, it does nothing.
   */
  start(): this {
    if (this.#closed) throw new InvalidArgumentError('this store is closed');
    // A second connect() of node-redis fails ("Socket already opened"), which read as an outage.
    if (this.#started) return this;
    this.#started = true;
    this.#connect();
    return this;
  }

  /**
   * One listener for the store's life: node-redis keeps a destroyed client's listeners and
   * subscribes them again on connect(), and holds them in a Set, so subscribing the same one
   * again adds nothing. A new one per connect() heard every message once more per reconnect.
   */
  readonly #onMessage = (message: string): void => this.#receive(message);

  #connect(): void {
    const generation = this.#generation;
    const failed = (error: Error): void => {
      if (generation === this.#generation) this.#down(error);
    };
    this.#subscriber
      .connect()
      .then(() => this.#subscriber.subscribe(this.#channel, this.#onMessage))
      // node-redis subscribes again by itself after a reconnect, also after destroy() and connect().
      .then(() => {
        if (generation !== this.#generation) return;
        this.#subscribed = true;
        this.#ready();
      })
      .catch(failed);
    this.#client.connect().catch(failed);
  }

  /** `reply`, or NoAnswerError once commandTimeoutMs passed without it. */
  #answerIn<T>(reply: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new NoAnswerError()), this.#commandTimeoutMs);
      timer.unref();
    });
    return Promise.race([reply, late]).finally(() => clearTimeout(timer));
  }

  #awaitHandshake(client: RedisClientType): void {
    this.#answered(client);
    this.#handshakes.set(
      client,
      unrefTimer(this.#commandTimeoutMs, () => this.#unresponsive()),
    );
  }

  #answered(client: RedisClientType): void {
    clearTimeout(this.#handshakes.get(client));
    this.#handshakes.delete(client);
  }

  /**
   * Redis did not answer a command or a handshake in time: node-redis would wait for ever on a
   * connection that is not reset, so both are dropped (what waited on them goes to the backlog)
   * and made anew, after the reconnect backoff.
   */
  #unresponsive(): void {
    if (this.#closed || this.#reconnectTimer) return;
    this.#generation++;
    this.#down(new Error(`no answer within ${this.#commandTimeoutMs} ms`));
    this.#subscribed = false;
    for (const client of [this.#subscriber, this.#client]) {
      this.#answered(client);
      if (client.isOpen) client.destroy();
    }
    this.#reconnectTimer = unrefTimer(this.#backoff(this.#unanswered++), () => {
      this.#reconnectTimer = undefined;
      if (!this.#closed) this.#connect();
    });
  }

  /** True once a rebuild finished since the last (re)connect: the local view holds the fleet's. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Resolves when the view is synced (at once if it is); rejects with StateError once closed. */
  whenSynced(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (this.#closed) return Promise.reject(notSynced());
    return new Promise((resolve, reject) => this.#syncWaiters.push({ resolve, reject }));
  }

  get stats(): RedisPenaltyStoreStats {
    return { ...this.#stats };
  }

  /** Disconnects both connections; the local box keeps working, unshared. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#synced = false;
    clearTimeout(this.#reconnectTimer);
    clearTimeout(this.#refusedTimer);
    for (const client of [this.#subscriber, this.#client]) {
      this.#answered(client);
      if (client.isOpen) client.destroy();
    }
    // A waiter would wait for ever: nothing syncs a closed store.
    for (const { reject } of this.#syncWaiters.splice(0)) reject(notSynced());
  }

  get(key: string): PenaltyEntry | undefined {
    return this.#local.get(key);
  }

  entries(): readonly PenaltyEntry[] {
    return this.#local.entries();
  }

  /** Expiries and evictions of the local copy (the box publishes them as `leave`). */
  watchLeaves(listener: (entry: PenaltyEntry, reason: PenaltyLeaveReason) => void): void {
    this.#local.watchLeaves(listener);
  }

  mark(key: string, entry: PenaltyEntry): PenaltyEntry {
    const stored = this.#local.mark(key, entry);
    if (stored === entry) this.#share(key, entry);
    return stored;
  }

  clear(key: string): PenaltyEntry | undefined {
    const entry = this.#local.clear(key);
    // A success clears a target that is rarely boxed: only a clear that removed something is news.
    if (entry) {
      this.#noteClear(key);
      this.#sendClear(key);
    }
    return entry;
  }

  #sendClear(key: string): void {
    this.#send(CLEAR_SCRIPT, key, [this.#channel, encodeMessage({ type: 'clear', node: this.#node, key })]);
  }

  /** `refused`: the SHA-1 of a malformed value Redis answered with, which the script then replaces. */
  #share(key: string, entry: PenaltyEntry, refused?: string): void {
    const ms = Math.ceil(entry.until - this.#clock.now());
    if (ms <= 0) return;
    const value = { reason: entry.reason, detail: entry.detail };
    const message = encodeMessage({ type: 'mark', node: this.#node, key, ms, value });
    const args = [encodeValue(value), String(ms), this.#channel, message, String(MAX_WIRE_LENGTH)];
    if (refused !== undefined) args.push(refused);
    this.#send(MARK_SCRIPT, key, args, (reply) => {
      // Redis had a later end from another node: take it (the pub/sub message went to the others only).
      if (!Array.isArray(reply) || this.#apply(key, reply[0], reply[1])) return;
      // A value no node writes, kept by its long expiry, would keep our mark from the fleet:
      // once, replace it if it is still there.
      if (refused === undefined && typeof reply[1] === 'string')
        this.#share(key, entry, createHash('sha1').update(reply[1]).digest('hex'));
    });
  }

  /** False while Redis cannot take a change now: away, refusing, or as busy as allowed. */
  #canSend(): boolean {
    return !this.#closed && this.#client.isReady && !this.#refusedTimer && this.#inFlight < this.#maxInFlight;
  }

  #send(script: string, key: string, args: string[], then?: (reply: unknown) => void): void {
    if (!this.#canSend()) {
      this.#postpone(key, script);
      return;
    }
    this.#inFlight++;
    this.#answerIn(this.#client.sendCommand(['EVAL', script, '1', this.#entryKey(key), ...args]))
      .then((reply) => {
        this.#refusals = 0;
        then?.(reply);
      })
      // A lost connection is logged by the 'error' event; the entry waits for the connection back.
      .catch((error: unknown) => {
        this.#postpone(key, script);
        if (error instanceof NoAnswerError) this.#unresponsive();
        else if (error instanceof ErrorReply) this.#refused(error);
      })
      .finally(() => {
        this.#inFlight--;
        this.#drain();
      });
  }

  /**
   * Redis answered a change with an error (OOM under maxmemory, READONLY after a failover made
   * it a replica, NOPERM): sent again at once, it would be refused again, in a loop as fast as
   * Redis answers. Logged once; nothing is sent for the reconnect backoff, then the backlog is.
   */
  #refused(error: ErrorReply): void {
    if (this.#refusedTimer || this.#closed) return;
    if (this.#refusals === 0)
      this.#log(`penalty-redis: Redis refused a change (${error.message}); the penalty box carries on locally`);
    this.#refusedTimer = unrefTimer(this.#backoff(this.#refusals++), () => {
      this.#refusedTimer = undefined;
      this.#drain();
    });
  }

  /** Remembers what Redis did not get (bounded like the box); a drain or the next rebuild sends it. */
  #postpone(key: string, script: string): void {
    this.#stats.unshared++;
    if (this.#closed || (this.#backlog.size >= this.#maxEntries && !this.#backlog.has(key))) return;
    this.#backlog.delete(key);
    this.#backlog.set(key, script === CLEAR_SCRIPT ? 'clear' : 'mark');
  }

  /** Sends postponed marks and clears while Redis is there and has room, oldest first. */
  #drain(): void {
    for (const [key, change] of this.#backlog) {
      if (!this.#canSend()) return;
      this.#backlog.delete(key);
      if (change === 'clear') this.#sendClear(key);
      else {
        const entry = this.#local.get(key);
        if (entry) this.#share(key, entry);
      }
    }
  }

  #receive(text: string): void {
    const message = decodeMessage(text);
    if (!message) {
      this.#stats.dropped++;
      return;
    }
    if (message.node === this.#node) return;
    this.#stats.received++;
    if (message.type === 'clear') {
      this.#local.clear(message.key);
      this.#noteClear(message.key);
    } else this.#local.mark(message.key, this.#entry(message.key, message.ms, message.value));
    try {
      this.#onRemote?.(message.key, this.#local.get(message.key));
    } catch (error) {
      // Thrown into node-redis, it would read as a broken connection: the store would call Redis
      // unreachable and never say synced again. The application's bug is logged once instead.
      if (!this.#warnedOnRemote)
        this.#log(`penalty-redis: onRemote threw (${error instanceof Error ? error.message : String(error)})`);
      this.#warnedOnRemote = true;
    }
  }

  /** Applies an entry read from Redis (SCAN or a script's reply) after checking its shape; false if dropped. */
  #apply(key: string, ms: unknown, value: unknown): boolean {
    const left = remainingMs(ms);
    const decoded = decodeValue(value);
    if (!isDestinationKey(key) || left === undefined || !decoded) {
      this.#stats.dropped++;
      return false;
    }
    this.#local.mark(key, this.#entry(key, left, decoded));
    return true;
  }

  #noteClear(key: string): void {
    if (this.#rebuilding) this.#clearedSinceScan.add(key);
  }

  /**
   * True when a SCAN must not bring `key` back: a clear made while Redis was away (Redis still
   * holds the mark until the backlog's clear reaches it), or one made since the SCAN began.
   */
  #clearedLater(key: string): boolean {
    return this.#backlog.get(key) === 'clear' || this.#clearedSinceScan.has(key);
  }

  #entry(key: string, ms: number, value: { reason: PenaltyEntry['reason']; detail: string }): PenaltyEntry {
    const [transport, address, port] = key.split(' ') as [SipTransport, string, string];
    return Object.freeze({
      transport,
      address,
      port: Number(port),
      until: this.#clock.now() + Math.min(ms, this.#maxRemoteMs),
      reason: value.reason,
      detail: value.detail,
    });
  }

  #entryKey(key: string): string {
    return `${this.prefix}penalty:${key}`;
  }

  #down(error: Error): void {
    this.#synced = false;
    if (this.#up === false || this.#closed) return;
    this.#up = false;
    this.#log(`penalty-redis: Redis unreachable (${error.message}); the penalty box carries on locally`);
  }

  #ready(): void {
    // Not before the subscription holds: a view rebuilt without hearing of changes is not trusted.
    if (this.#closed || !this.#subscribed || !this.#client.isReady || !this.#subscriber.isReady) return;
    if (this.#up === false) this.#log('penalty-redis: Redis is back; rebuilding the shared penalty box');
    this.#up = true;
    this.#unanswered = 0;
    // A new connection may be to a Redis that takes changes again (a failover, memory freed).
    clearTimeout(this.#refusedTimer);
    this.#refusedTimer = undefined;
    this.#refusals = 0;
    this.#rebuild();
  }

  /** SCAN the fleet's entries into the local box, then share back every local entry (the later end wins). */
  #rebuild(): void {
    if (this.#rebuilding) {
      this.#rebuildAgain = true;
      return;
    }
    this.#clearedSinceScan.clear();
    this.#rebuilding = this.#scan()
      .then(() => {
        // Clears Redis missed first, then every live entry: marks made while away, and the
        // fleet's view back into a Redis that restarted empty (the later end still wins).
        const clears = [...this.#backlog].filter(([, change]) => change === 'clear').map(([key]) => key);
        this.#backlog.clear();
        for (const key of clears) this.#sendClear(key);
        for (const entry of this.#local.entries()) this.#share(keyOf(entry), entry);
        this.#stats.rebuilds++;
        this.#synced = true;
        for (const { resolve } of this.#syncWaiters.splice(0)) resolve();
      })
      // Connection lost mid-SCAN: not synced; the next 'ready' rebuilds.
      .catch((error: unknown) => {
        this.#synced = false;
        if (error instanceof NoAnswerError) this.#unresponsive();
      })
      .finally(() => {
        this.#rebuilding = undefined;
        this.#clearedSinceScan.clear();
        if (this.#rebuildAgain && !this.#closed) {
          this.#rebuildAgain = false;
          this.#rebuild();
        }
      });
  }

  async #scan(): Promise<void> {
    const start = `${this.prefix}penalty:`;
    // A box holds maxEntries; a Redis with many times more keys under the prefix is not a fleet's
    // box but a mistake or an attack, and reading it all would cost time for nothing.
    const limit = this.#maxEntries * 4;
    let read = 0;
    const pages = this.#client.scanIterator({ MATCH: `${start}*`, COUNT: 200 })[Symbol.asyncIterator]();
    for (;;) {
      const page = await this.#answerIn(pages.next());
      if (page.done) return;
      const keys = page.value;
      if (read >= limit) {
        if (!this.#warnedScan)
          this.#log(`penalty-redis: more than ${limit} keys under "${start}"; the rebuild read the first ${read}`);
        this.#warnedScan = true;
        await pages.return(undefined);
        return;
      }
      read += keys.length;
      await Promise.all(
        keys.map(async (fullKey) => {
          const key = String(fullKey).slice(start.length);
          try {
            // A value is read no further than a node writes one: a huge one is not ours, and
            // reading it whole would cost every node its size at every rebuild.
            const [left, start] = await this.#answerIn(
              Promise.all([
                this.#client.sendCommand(['PTTL', String(fullKey)]),
                this.#client.sendCommand(['GETRANGE', String(fullKey), '0', String(MAX_WIRE_LENGTH)]),
              ]),
            );
            const value = typeof start === 'string' && Buffer.byteLength(start) <= MAX_WIRE_LENGTH ? start : undefined;
            if (!this.#clearedLater(key)) this.#apply(key, left, value);
          } catch (error) {
            // WRONGTYPE: not ours. A lost or silent connection ends the rebuild.
            if (!(error instanceof ErrorReply)) throw error;
            this.#stats.dropped++;
          }
        }),
      );
    }
  }
}

/** A command Redis did not answer within commandTimeoutMs (node-redis bounds only the wait to send one). */
class NoAnswerError extends Error {}

function notSynced(): StateError {
  return new StateError('the penalty store was closed before it synced');
}

/** A timer that does not keep the process alive: close() or not, the store never holds an exit. */
function unrefTimer(ms: number, run: () => void): ReturnType<typeof setTimeout> {
  const timer = setTimeout(run, ms);
  timer.unref();
  return timer;
}

function keyOf(entry: PenaltyEntry): string {
  return `${entry.transport} ${entry.address} ${entry.port}`;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
  return value;
}
