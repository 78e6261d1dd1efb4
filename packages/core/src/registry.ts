/**
 * The resolver registry: plugins ordered by priority, availability checked at selection time,
 * and the one function that decides whether a failure falls through to the next plugin.
 */
import { throwIfAborted } from './abort.js';
import { fallbackChannel, selectedChannel, type QueryAttempt } from './diagnostics.js';
import {
  DnsError,
  InvalidResultError,
  MalformedAnswerError,
  NetworkError,
  NoResolverError,
  RegistrationError,
  TimeoutError,
  isAbortError,
} from './errors.js';
import { silentLogger, type Logger } from './logger.js';
import { describeQuery, type DnsQuery } from './query.js';
import { availabilityOf, type AnswerSink, type Availability, type ResolverPlugin } from './resolver-plugin.js';
import type { PluginAnswer } from './plugin-answer.js';
import { Rcode } from './rr-types.js';
import { serversOf, type ServerAttempt } from './server-attempts.js';

/**
 * Decides whether the next plugin is asked after `error` (hickory-dns's try_send match), an
 * error of a plugin that obtained no answer. Answers never come here, nor failures to use
 * one: once a plugin answered, whatever it said, no other plugin is asked, so a validating
 * backend's "bogus" can never be turned into a non-validating backend's "looks fine". The one
 * exception is a stale answer (RFC 8767, `PluginAnswer.stale`): it says its plugin could not
 * refresh it, so the plugins after it are asked first (see ResolverRegistry.resolve()).
 */
export function shouldTryNext(error: unknown): boolean {
  // The caller gave up: asking someone else would answer nobody.
  if (isAbortError(error)) return false;
  // Definite errors (bad input, an answer refused for security) hold for every backend.
  if (error instanceof DnsError) return !error.definite;
  // Anything else is this backend failing to get an answer: the next one may succeed.
  return true;
}

/**
 * Turns the answer of `plugin` into the caller's value. It gets the question, signal and
 * attempts too, so one function can serve every question (nothing made per question for it).
 */
export type FinishAnswer<T> = (
  answer: PluginAnswer,
  plugin: ResolverPlugin,
  query: DnsQuery,
  signal: AbortSignal,
  attempts: QueryAttempt[] | undefined,
) => T | PromiseLike<T>;

export interface SkippedPlugin {
  readonly plugin: ResolverPlugin;
  readonly reason: string;
}

export class ResolverRegistry {
  #plugins: ResolverPlugin[] = [];
  #announced: string | undefined;
  /** The plugin select() found first last time: first() returns it without building lists. */
  #first: ResolverPlugin | undefined;
  /** The candidates select() found last time. */
  #candidates: readonly ResolverPlugin[] = [];

  constructor(private readonly logger: Logger = silentLogger) {}

  /**
   * Adds a plugin before the first one with a larger priority (equal priorities keep their
   * registration order). A duplicate name or an incomplete plugin is refused.
   */
  register(plugin: ResolverPlugin): void {
    const problem = incompleteness(plugin);
    if (problem) throw new RegistrationError(`resolver plugin refused: ${problem}`);
    if (this.#plugins.some((p) => p.name === plugin.name)) {
      throw new RegistrationError(`resolver plugin refused: "${plugin.name}" is already registered`);
    }
    const index = this.#plugins.findIndex((p) => p.priority > plugin.priority);
    if (index < 0) this.#plugins.push(plugin);
    else this.#plugins.splice(index, 0, plugin);
    this.logger.info(`dnscore: registered resolver "${plugin.name}" (priority ${plugin.priority})`);
  }

  /** Removes a plugin (by object or name); unknown ones are ignored. Returns whether one was removed. */
  unregister(plugin: ResolverPlugin | string): boolean {
    const index = this.#plugins.findIndex((p) => (typeof plugin === 'string' ? p.name === plugin : p === plugin));
    if (index < 0) return false;
    this.#plugins.splice(index, 1);
    return true;
  }

  /** Registered plugins, in the order they are tried. */
  get plugins(): readonly ResolverPlugin[] {
    return [...this.#plugins];
  }

  get(name: string): ResolverPlugin | undefined {
    return this.#plugins.find((p) => p.name === name);
  }

  /**
   * The available plugins in order, and why the others are skipped. Nothing after an
   * unavailable plugin that fails closed is a candidate.
   */
  select(): { readonly candidates: readonly ResolverPlugin[]; readonly skipped: SkippedPlugin[] } {
    const candidates: ResolverPlugin[] = [];
    const skipped: SkippedPlugin[] = [];
    let closedBy: ResolverPlugin | undefined;
    for (const plugin of this.#plugins) {
      if (closedBy) {
        skipped.push({ plugin, reason: `not asked in place of "${closedBy.name}", which fails closed` });
        continue;
      }
      let availability: Availability;
      try {
        availability = availabilityOf(plugin);
      } catch (error) {
        availability = { available: false, reason: `available() threw: ${(error as Error).message}` };
      }
      if (availability.available) candidates.push(plugin);
      else {
        skipped.push({ plugin, reason: availability.reason ?? 'unavailable' });
        if (availability.failClosed === true) closedBy = plugin;
      }
    }
    this.#announce(candidates[0], skipped);
    this.#first = candidates[0];
    // The same list as last time is handed out again: each question in flight keeps it.
    const last = this.#candidates;
    if (last.length === candidates.length && last.every((p, i) => p === candidates[i]))
      return { candidates: last, skipped };
    this.#candidates = candidates;
    return { candidates, skipped };
  }

  /**
   * The plugin that would be asked first, or undefined when none is available. The same one
   * as last time costs only the available() calls up to it; a change goes through select().
   */
  first(): ResolverPlugin | undefined {
    for (const plugin of this.#plugins) {
      const availability = quietAvailability(plugin);
      if (availability === true) return plugin === this.#first ? plugin : this.select().candidates[0];
      // Nothing behind a plugin that fails closed answers in its place: select() says so.
      if (availability === 'closed') break;
    }
    return this.select().candidates[0];
  }

  /**
   * Asks the available plugins in order until one answers; `finish` turns the answer into the
   * caller's value. An error of `finish` (a malformed packet, a broken result) is definite: the
   * plugin did answer, and an attacker who can break an answer must not get to choose the
   * backend. If every plugin fails to answer, the most specific error is thrown with the
   * others as its cause. Each backend asked is appended to `attempts` (a query trace's).
   *
   * A stale answer (RFC 8767 sections 5 and 6: served only when the data cannot be refreshed)
   * is the last resort: the plugins after the one that offered it are asked first, and it is
   * finished only when none of them answers (each fails, or says SERVFAIL without a bogus
   * verdict). Any other answer of theirs wins, NXDOMAIN and bogus included. Of several stale
   * answers the first plugin's is used.
   */
  resolve<T>(query: DnsQuery, signal: AbortSignal, finish: FinishAnswer<T>, attempts?: QueryAttempt[]): Promise<T> {
    const unchanged = this.#allAvailableAsBefore();
    if (unchanged !== undefined) return this.#ask(unchanged, 0, query, signal, finish, undefined, attempts);
    const { candidates, skipped } = this.select();
    if (candidates.length === 0) {
      const why = skipped.map((s) => `${s.plugin.name}: ${s.reason}`).join('; ');
      return Promise.reject(
        new NoResolverError(`no resolver available for ${describeQuery(query)}${why ? ` (${why})` : ''}`),
      );
    }
    return this.#ask(candidates, 0, query, signal, finish, undefined, attempts);
  }

  /**
   * The last candidates when every plugin is available and they are the plugins registered:
   * nothing to announce, no lists made (resolve() asks this per question). Else undefined.
   */
  #allAvailableAsBefore(): readonly ResolverPlugin[] | undefined {
    const last = this.#candidates;
    const plugins = this.#plugins;
    if (last.length !== plugins.length || last.length === 0) return undefined;
    for (let i = 0; i < plugins.length; i++) {
      if (plugins[i] !== last[i] || quietAvailability(plugins[i]!) !== true) return undefined;
    }
    return last;
  }

  /**
   * Candidate `i`, then the next one on a failure that allows it. A question waiting for its
   * backend holds one Asking record when the plugin has ask(), else one promise step: two
   * callbacks over one scope; no list of failures yet either way.
   */
  #ask<T>(
    candidates: readonly ResolverPlugin[],
    i: number,
    query: DnsQuery,
    signal: AbortSignal,
    finish: FinishAnswer<T>,
    failed: Failed | undefined,
    attempts: QueryAttempt[] | undefined,
  ): Promise<T> {
    const plugin = candidates[i]!;
    let asked: Promise<PluginAnswer>;
    try {
      throwIfAborted(signal);
      if (plugin.ask !== undefined) {
        const asking = new Asking(this.#settle, this.#next, candidates, i, query, signal, finish, failed, attempts);
        return askInto(plugin, asking);
      }
      asked = plugin.resolve(query, signal);
    } catch (error) {
      if (isAbortError(error)) return Promise.reject(error);
      return this.#next(error, candidates, i, query, signal, finish, failed, attempts);
    }
    // An error of finish is about this answer, never a fallback: onRejected does not see it.
    return asked.then(
      (answer) => this.#settle(answer, candidates, i, query, signal, finish, failed, attempts),
      (error: unknown) => this.#next(error, candidates, i, query, signal, finish, failed, attempts),
    );
  }

  /**
   * Candidate `i`'s answer, finished; a stale one waits for the candidates after it (resolve()).
   * A stale answer kept from before stands for a SERVFAIL that is no bogus verdict.
   */
  readonly #settle: SettleAnswer = (answer, candidates, i, query, signal, finish, failed, attempts) => {
    const plugin = candidates[i]!;
    if (attempts) attempts.push(tried(plugin.name, answer.servers));
    const kept = failed?.stale;
    if (answer.stale === true) {
      const stale = kept ?? { answer, plugin };
      if (i + 1 === candidates.length) return finish(stale.answer, stale.plugin, query, signal, attempts);
      const next = failed ?? { errors: [], stale };
      next.stale = stale;
      return this.#ask(candidates, i + 1, query, signal, finish, next, attempts);
    }
    if (kept !== undefined && answer.rcode === Rcode.SERVFAIL && answer.bogus !== true)
      return finish(kept.answer, kept.plugin, query, signal, attempts);
    return finish(answer, plugin, query, signal, attempts);
  };

  /** After candidate `i` failed: the next candidate when the failure allows it, else the most specific failure. */
  readonly #next: NextCandidate = (error, candidates, i, query, signal, finish, failed, attempts) => {
    const plugin = candidates[i]!;
    const failure = error instanceof Error ? error : new Error(String(error));
    // A definite failure (requireSecure's InsecureAnswerError) is an attempt too; a cancel is not.
    if (attempts && !isAbortError(failure)) attempts.push(tried(plugin.name, serversOf(failure), failure));
    if (!shouldTryNext(failure)) return Promise.reject(failure);
    const misses = failed ?? { errors: [], stale: undefined };
    misses.errors.push(failure);
    const after = candidates[i + 1];
    if (fallbackChannel.hasSubscribers)
      fallbackChannel.publish({ query, plugin: plugin.name, error: failure, next: after?.name });
    if (after) return this.#ask(candidates, i + 1, query, signal, finish, misses, attempts);
    const stale = misses.stale;
    if (stale === undefined) return Promise.reject(mostSpecific(misses.errors));
    // Every plugin after the stale answer failed: it is the answer (an error of finish is about it).
    try {
      return Promise.resolve(finish(stale.answer, stale.plugin, query, signal, attempts));
    } catch (finishError) {
      return Promise.reject(finishError);
    }
  };

  /** Closes every plugin; failures are collected, not thrown one by one. */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.#plugins.map(async (p) => p.close()));
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    if (errors.length > 0) throw new AggregateError(errors, 'closing resolver plugins failed');
  }

  /** Says once which backend answers and why the ones before it do not. */
  #announce(first: ResolverPlugin | undefined, skipped: readonly SkippedPlugin[]): void {
    const before = first ? skipped.filter((s) => s.plugin.priority <= first.priority) : skipped;
    const line = first
      ? `dnscore: resolving with "${first.name}"` +
        (before.length ? ` (${before.map((s) => `${s.plugin.name} unavailable: ${s.reason}`).join('; ')})` : '')
      : `dnscore: no resolver available`;
    if (line === this.#announced) return;
    const previous = this.#announced;
    this.#announced = line;
    if (selectedChannel.hasSubscribers)
      selectedChannel.publish({ plugin: first?.name, skipped: before.map((s) => s.plugin.name) });
    // Only a change worth knowing is logged: a fallback at first use, or a later change of backend.
    if (before.length > 0 || previous !== undefined) this.logger.warn(line);
  }
}

/** ask() of `plugin` into `asking`; a throw is a failure. The caller's promise. */
function askInto<T>(plugin: ResolverPlugin, asking: Asking<T>): Promise<T> {
  try {
    plugin.ask!(asking.query, asking.signal, asking);
  } catch (error) {
    asking.fail(error);
  }
  return asking.promise;
}

/** What the candidates asked so far failed with, and the first stale answer one of them offered. */
interface Failed {
  readonly errors: Error[];
  stale: { readonly answer: PluginAnswer; readonly plugin: ResolverPlugin } | undefined;
}

/** The registry's #next(): after candidate `i` failed, the next one, the stale answer, or the most specific failure. */
type NextCandidate = <T>(
  error: unknown,
  candidates: readonly ResolverPlugin[],
  i: number,
  query: DnsQuery,
  signal: AbortSignal,
  finish: FinishAnswer<T>,
  failed: Failed | undefined,
  attempts: QueryAttempt[] | undefined,
) => Promise<T>;

/** The registry's #settle(): candidate `i`'s answer finished, or the next candidate asked after a stale one. */
type SettleAnswer = <T>(
  answer: PluginAnswer,
  candidates: readonly ResolverPlugin[],
  i: number,
  query: DnsQuery,
  signal: AbortSignal,
  finish: FinishAnswer<T>,
  failed: Failed | undefined,
  attempts: QueryAttempt[] | undefined,
) => T | PromiseLike<T>;

/**
 * A question asked of candidate `i` through its ask(): the sink the plugin answers into, and
 * the caller's promise. While the backend works, the question holds this record and that
 * promise, nothing else of the registry's.
 */
class Asking<T> implements AnswerSink {
  readonly promise: Promise<T>;
  #resolve!: (value: T | PromiseLike<T>) => void;
  #reject!: (error: unknown) => void;
  #done = false;

  constructor(
    private readonly settle: SettleAnswer,
    private readonly next: NextCandidate,
    private readonly candidates: readonly ResolverPlugin[],
    private readonly i: number,
    readonly query: DnsQuery,
    readonly signal: AbortSignal,
    private readonly finish: FinishAnswer<T>,
    private readonly failed: Failed | undefined,
    private readonly attempts: QueryAttempt[] | undefined,
  ) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** The answer, finished (or kept when stale); an error of finish is about this answer, never a fallback. */
  answer(answer: PluginAnswer): void {
    if (this.#done) return;
    this.#done = true;
    const { candidates, i, query, signal, finish, failed, attempts } = this;
    try {
      this.#resolve(this.settle(answer, candidates, i, query, signal, finish, failed, attempts));
    } catch (error) {
      this.#reject(error);
    }
  }

  /** No answer: the next candidate when the failure allows it, else a stale answer or the most specific failure. */
  fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    const { candidates, i, query, signal, finish, failed, attempts } = this;
    this.#resolve(this.next(error, candidates, i, query, signal, finish, failed, attempts));
  }
}

/** A trace's attempt: the backend, its error when it got no answer, the servers it says it asked. */
function tried(backend: string, servers: readonly ServerAttempt[] | undefined, error?: Error): QueryAttempt {
  return { backend, ...(error ? { error } : {}), ...(servers ? { servers } : {}) };
}

/**
 * available() without an object per call (first() runs on every question): true, false, or
 * 'closed' when unavailable and failing closed. A plugin whose available() throws is not.
 */
function quietAvailability(plugin: ResolverPlugin): boolean | 'closed' {
  try {
    const value = plugin.available();
    if (typeof value === 'boolean') return value;
    if (value.available) return true;
    return value.failClosed === true ? 'closed' : false;
  } catch {
    return false;
  }
}

function incompleteness(plugin: ResolverPlugin | null | undefined): string | undefined {
  if (!plugin || typeof plugin !== 'object') return 'not an object';
  if (typeof plugin.name !== 'string' || plugin.name.trim() === '') return 'it has no name';
  if (typeof plugin.priority !== 'number' || !Number.isFinite(plugin.priority))
    return `"${plugin.name}" has no finite priority`;
  for (const method of ['available', 'resolve', 'close'] as const) {
    if (typeof plugin[method] !== 'function') return `"${plugin.name}" has no ${method}() method`;
  }
  return undefined;
}

/** The most informative failure (hickory-dns's most_specific), the others attached as its cause. */
function mostSpecific(failures: Error[]): Error {
  const rank = (e: Error): number =>
    e instanceof MalformedAnswerError || e instanceof InvalidResultError
      ? 3
      : e instanceof TimeoutError || e instanceof NetworkError
        ? 2
        : e instanceof DnsError
          ? 1
          : 0;
  let best = failures[0]!;
  for (const failure of failures) if (rank(failure) > rank(best)) best = failure;
  const others = failures.filter((f) => f !== best);
  if (others.length > 0 && best.cause === undefined) {
    Object.defineProperty(best, 'cause', {
      value: new AggregateError(others, 'the other resolvers failed too'),
      configurable: true,
      writable: true,
    });
  }
  return best;
}
