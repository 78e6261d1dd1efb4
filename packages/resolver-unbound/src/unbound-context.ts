/**
 * One asynchronous libunbound context of the addon as promises: each question is a
 * ub_resolve_event on the addon's thread, whose answer comes back on the JS thread in a batch
 * with the others ready then. Aborting a question calls ub_cancel: its promise
 * rejects with the core's AbortError at once and libunbound never calls back for it.
 * Identical questions in flight are merged by libunbound's mesh (one query on the wire).
 */
import { StateError, abortError, mayAbort, onAbort } from '@dnscore/core/plugin';
import type { NativeAnswer, NativeContext, NativeResultCallback, UnboundAddon, UnboundResultRaw } from './binding.js';
import { eventResult } from './event-result.js';
import { contextClosed, contextMade } from './freed-memory.js';

interface Pending {
  readonly name: string;
  readonly type: number;
  readonly rrclass: number;
  readonly resolve: (result: UnboundResultRaw) => void;
  readonly reject: (error: Error) => void;
  /** Leaves the signal's listeners; undefined when the question cannot be aborted. */
  forget: (() => void) | undefined;
}

/** libunbound's error number as the Error the resolver maps ("libunbound: ... (-7)", code ERR_UNBOUND). */
export class LibunboundError extends Error {
  override name = 'LibunboundError';
  readonly code = 'ERR_UNBOUND';
  constructor(
    message: string,
    readonly unboundCode: number,
  ) {
    super(message);
  }
}

const MAX_TOKEN = 0x7fffffff;
/** How often ready() looks whether the worker is made (it takes milliseconds, once per context). */
const READY_POLL_MS = 1;
/** DNSKEY (RFC 4034) and IN: what priming a trust anchor asks. */
const TYPE_DNSKEY = 48;
const CLASS_IN = 1;

export class UnboundContext {
  readonly #addon: UnboundAddon;
  readonly #native: NativeContext;
  /** Held here: the addon holds it weakly while no question waits, so a dropped context is collected. */
  readonly #onResult: NativeResultCallback = (token, err, rcode, packet, sec, whyBogus, rateLimited) =>
    this.#settle(token, err, rcode, packet, sec, whyBogus, rateLimited);
  readonly #pending = new Map<number, Pending>();
  #token = 0;
  #retiring = false;

  constructor(addon: UnboundAddon) {
    this.#addon = addon;
    contextMade();
    this.#native = new addon.Context(this.#onResult);
  }

  setOption(option: string, value: string): this {
    this.#native.setOption(option, value);
    return this;
  }
  setForward(address: string): this {
    this.#native.setForward(address);
    return this;
  }
  setStub(zone: string, address: string, prime: boolean): this {
    this.#native.setStub(zone, address, prime);
    return this;
  }
  setResolveConf(file: string): this {
    this.#native.setResolveConf(file);
    return this;
  }
  setHosts(file: string): this {
    this.#native.setHosts(file);
    return this;
  }
  addTrustAnchor(anchor: string): this {
    this.#native.addTrustAnchor(anchor);
    return this;
  }
  addTrustAnchorFile(file: string): this {
    this.#native.addTrustAnchorFile(file);
    return this;
  }
  removeZone(name: string): this {
    this.#native.removeZone(name);
    return this;
  }

  /**
   * Makes libunbound's worker (sockets' table, buffers, mesh: a few ms) now, on the JS thread
   * (the addon's make_worker says why), and starts the resolver thread, so the first question
   * does not wait for either. Only once the configuration is final.
   */
  warm(): void {
    this.#native.warm();
  }

  /**
   * Resolves once libunbound's worker is made (after warm()): a question asked then waits for
   * no setup: at once after warm(). Rejects with StateError when the context is closed first.
   * A context never warmed makes its worker at its first question, on the resolver thread.
   */
  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const look = (): void => {
        if (this.#native.closed) reject(new StateError('the libunbound context was closed before it was ready'));
        else if (this.#native.workerMade) resolve();
        else setTimeout(look, READY_POLL_MS);
      };
      look();
    });
  }

  /**
   * Asks the DNSKEY of each zone (the trust anchors') now, so that validated questions find
   * the key validated and cached when their answers come, instead of each one's validator
   * asking for it then: a cold validated question saves a round trip. The answers only fill
   * libunbound's key cache; a failure shows in the questions that need the key.
   */
  prime(zones: readonly string[]): void {
    for (const zone of zones) this.resolve(zone, TYPE_DNSKEY, CLASS_IN).catch(() => {});
  }

  /** Questions handed to libunbound and not settled yet. */
  get inFlight(): number {
    return this.#pending.size;
  }

  get closed(): boolean {
    return this.#native.closed;
  }

  /**
   * Asks libunbound. Rejects with LibunboundError when libunbound gives no result, AbortError
   * at once on `signal` (the query is cancelled inside libunbound), StateError after close().
   */
  resolve(name: string, type: number, rrclass: number, signal?: AbortSignal): Promise<UnboundResultRaw> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.#native.closed || this.#retiring)
      return Promise.reject(new StateError('the libunbound context is closed'));
    const token = this.#nextToken();
    let sent: number | NativeAnswer;
    try {
      sent = this.#native.resolve(name, type, rrclass, token);
    } catch (error) {
      return Promise.reject(this.#fromNative(error));
    }
    if (typeof sent !== 'number') {
      // Answered inside the call (libunbound's cache, local data, or libunbound's error).
      const [err, rcode, packet, sec, whyBogus, rateLimited] = sent;
      if (err !== 0) return Promise.reject(this.#error(err));
      return Promise.resolve(eventResult(name, type, rrclass, rcode, packet, sec, whyBogus, rateLimited));
    }
    const id = sent;
    return new Promise<UnboundResultRaw>((resolve, reject) => {
      const pending: Pending = { name, type, rrclass, resolve, reject, forget: undefined };
      this.#pending.set(token, pending);
      // One listener per signal however many questions wait on it (onAbort); none on a
      // signal that never aborts (the core's default), so a burst adds no listeners at all.
      if (mayAbort(signal)) {
        pending.forget = onAbort(signal, () => {
          if (!this.#pending.delete(token)) return;
          this.#native.cancel(id);
          reject(abortError(signal));
          this.#closeIfRetired();
        });
      }
    });
  }

  /**
   * Frees the context now: every question in flight rejects with `error` (StateError by
   * default) and libunbound drops them. Idempotent.
   */
  close(error: Error = new StateError('the libunbound context was closed')): void {
    if (!this.#native.closed) {
      this.#native.close();
      contextClosed(this.#addon);
    }
    for (const [token, pending] of [...this.#pending]) {
      this.#pending.delete(token);
      pending.forget?.();
      pending.reject(error);
    }
  }

  /** Takes no new questions and closes once those in flight are settled (a reload's old context). */
  retire(): void {
    this.#retiring = true;
    this.#closeIfRetired();
  }

  #closeIfRetired(): void {
    if (this.#retiring && this.#pending.size === 0) this.close();
  }

  #nextToken(): number {
    do this.#token = this.#token >= MAX_TOKEN ? 1 : this.#token + 1;
    while (this.#pending.has(this.#token));
    return this.#token;
  }

  #settle(
    token: number,
    err: number,
    rcode: number,
    packet: Uint8Array | null,
    sec: number,
    whyBogus: string | null,
    rateLimited: boolean,
  ): void {
    if (token === 0) {
      this.close(this.#error(err));
      return;
    }
    const pending = this.#pending.get(token);
    if (!pending) return; // cancelled, or settled by close(): nothing of ours to touch
    this.#pending.delete(token);
    pending.forget?.();
    if (err !== 0) pending.reject(this.#error(err));
    else {
      pending.resolve(
        eventResult(pending.name, pending.type, pending.rrclass, rcode, packet, sec, whyBogus, rateLimited),
      );
    }
    this.#closeIfRetired();
  }

  #error(err: number): LibunboundError {
    return new LibunboundError(`libunbound: ${this.#addon.strerror(err)} (${err})`, err);
  }

  #fromNative(error: unknown): Error {
    const code = (error as { unboundCode?: unknown } | null)?.unboundCode;
    if (typeof code === 'number') return this.#error(code);
    return error instanceof Error ? error : new Error(String(error));
  }
}
