/**
 * DnsCore: the consumer-side entry point (Asterisk's dns_core.h). It validates the question,
 * asks the registry, builds the immutable result and applies the cancel rule.
 */
import 'reflect-metadata';
import { inject, injectAll, injectable } from 'tsyringe';
import { NEVER_ABORTED, raceAbort, throwIfAborted } from './abort.js';
import type { CacheEntry } from './answer-cache.js';
import type { DnsCoreOptions } from './dns-core-options.js';
import type { DnsApi, ResolveOptions } from './dns-api.js';
import { bogusChannel, queryChannel, traceQuery, type QueryAttempt } from './diagnostics.js';
import { silentLogger } from './logger.js';
import { chainStaysInZone } from './bailiwick.js';
import { MalformedAnswerError } from './errors.js';
import { nameEquals, parseName } from './names.js';
import { describeQuery, makeQuery, questionKey, type DnsQuery } from './query.js';
import { QuerySet } from './query-set.js';
import { RecurringQuery, type RecurringOptions } from './recurring.js';
import type { TypedRecord, TypedRecordName } from './records/types.js';
import { ResolverRegistry, type FinishAnswer } from './registry.js';
import type { PluginAnswer } from './plugin-answer.js';
import type { ResolverPlugin } from './resolver-plugin.js';
import type { DnsResult } from './result.js';
import { DEFAULT_MAX_CNAME_CHAIN, buildResult, type ResultBuilderOptions } from './result-builder.js';
import { defaultRandom, type RandomSource } from './random.js';
import { RRType } from './rr-types.js';
import { DNS_CORE_OPTIONS, RESOLVER_PLUGIN } from './tokens.js';

/** A validated question and its cache key (made at the first cache lookup), kept by the text it was asked with. */
interface Question {
  readonly query: DnsQuery;
  key: string | undefined;
  /** The name as asked, when it may be remembered (no explicit class). */
  readonly text: string | undefined;
  readonly type: number | string;
  remembered?: boolean;
}

/** Question texts remembered (name -> type -> question); the memo starts over beyond this. */
const MAX_REMEMBERED_QUESTIONS = 10_000;

@injectable()
export class DnsCore implements DnsApi {
  readonly registry: ResolverRegistry;
  readonly random: RandomSource;
  readonly #options: DnsCoreOptions;
  /** Parsed questions by the text they were asked with: a repeated question is not parsed again. */
  readonly #questions = new Map<string, Map<number | string, Question>>();
  #remembered = 0;
  /** The result last built from a cache entry, reused while its age (whole seconds) is the same. */
  readonly #built = new WeakMap<CacheEntry, DnsResult>();
  /** resolveWith()'s finish for each pick function. */
  readonly #picked = new WeakMap<(result: DnsResult) => unknown, FinishAnswer<unknown>>();
  /** #buildOptions() per plugin. */
  readonly #builds = new WeakMap<ResolverPlugin, ResultBuilderOptions>();

  constructor(
    @injectAll(RESOLVER_PLUGIN, { isOptional: true }) plugins: readonly ResolverPlugin[] = [],
    @inject(DNS_CORE_OPTIONS, { isOptional: true }) options: DnsCoreOptions = {},
  ) {
    this.#options = options;
    this.random = options.random ?? defaultRandom;
    this.registry = new ResolverRegistry(options.logger ?? silentLogger);
    for (const plugin of plugins) this.registry.register(plugin);
  }

  register(plugin: ResolverPlugin): this {
    this.registry.register(plugin);
    return this;
  }

  unregister(plugin: ResolverPlugin | string): boolean {
    return this.registry.unregister(plugin);
  }

  /**
   * Resolves one question through the first available plugin, falling through to the next
   * on a plugin error, and on a stale answer (used only if every plugin after it fails).
   * Rejects with InvalidQueryError for bad input, AbortError when cancelled, and a DnsError
   * when no plugin obtained an answer. A fresh hit in the first
   * plugin's cache is answered at once: one settled promise, no parse, no registry walk.
   */
  resolve<T extends TypedRecordName>(
    name: string,
    type: T,
    options?: ResolveOptions,
  ): Promise<DnsResult<TypedRecord<T>>>;
  resolve(name: string, type?: number | string, options?: ResolveOptions): Promise<DnsResult>;
  resolve(name: string, type: number | string = 'A', options?: ResolveOptions): Promise<DnsResult> {
    let question: Question;
    try {
      question = this.#question(name, type, options?.class);
      throwIfAborted(options?.signal);
    } catch (error) {
      return Promise.reject(error);
    }
    if (queryChannel.hasSubscribers) return this.#traced(question, options?.signal);
    const hit = this.#hit(question);
    return hit !== undefined ? Promise.resolve(hit) : this.#resolve(question.query, options?.signal, 0);
  }

  /**
   * resolve(), handing the result to `pick` as soon as it is made: the promise holds only what
   * `pick` returns. For a caller that keeps part of a result (the addresses): a question that
   * waits long is old in the heap by the time it is answered, and whatever its promise holds
   * then stays until a full collection (in a burst of 10,000, about 2 KB per A answer through
   * resolve(), the picked addresses through this). `pick` runs once; a throw rejects.
   */
  resolveWith<T extends TypedRecordName, V>(
    name: string,
    type: T,
    pick: (result: DnsResult<TypedRecord<T>>) => V,
    options?: ResolveOptions,
  ): Promise<V>;
  resolveWith<V>(
    name: string,
    type: number | string,
    pick: (result: DnsResult) => V,
    options?: ResolveOptions,
  ): Promise<V>;
  resolveWith<V>(
    name: string,
    type: number | string,
    pick: (result: DnsResult) => V,
    options?: ResolveOptions,
  ): Promise<V> {
    let question: Question;
    try {
      question = this.#question(name, type, options?.class);
      throwIfAborted(options?.signal);
    } catch (error) {
      return Promise.reject(error);
    }
    if (queryChannel.hasSubscribers) return this.#traced(question, options?.signal).then(pick);
    const hit = this.#hit(question);
    if (hit === undefined) return this.#resolve(question.query, options?.signal, 0, undefined, this.#pickedFirst(pick));
    try {
      return Promise.resolve(pick(hit));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Resolves an already validated query. */
  resolveQuery(query: DnsQuery, signal?: AbortSignal): Promise<DnsResult> {
    try {
      throwIfAborted(signal);
    } catch (error) {
      return Promise.reject(error);
    }
    const question: Question = { query, key: undefined, text: undefined, type: query.type };
    if (queryChannel.hasSubscribers) return this.#traced(question, signal);
    const hit = this.#hit(question);
    return hit !== undefined ? Promise.resolve(hit) : this.#resolve(query, signal, 0);
  }

  /** resolve() under the `dnscore:query` trace, only while someone listens (a hit: no attempts). */
  #traced(question: Question, signal: AbortSignal | undefined): Promise<DnsResult> {
    return traceQuery(question.query, (attempts) => {
      const hit = this.#hit(question);
      return hit !== undefined ? Promise.resolve(hit) : this.#resolve(question.query, signal, 0, attempts);
    });
  }

  current(results: readonly DnsResult[]): boolean {
    const cache = this.registry.first()?.cache;
    if (cache === undefined) return false;
    // One clock reading for all of them (a SIP target plan checks ten or so on every request).
    const now = cache.now?.();
    for (const result of results) {
      const entry = result.cacheEntry;
      if (entry === undefined || entry.cache !== cache || !entry.current(now)) return false;
    }
    return true;
  }

  /** The remembered question for this text, or a new one (remembered once its answer is a cache hit). */
  #question(name: string, type: number | string, rrclass: number | string | undefined): Question {
    const known = rrclass === undefined ? this.#questions.get(name)?.get(type) : undefined;
    if (known !== undefined) return known;
    return {
      query: makeQuery(name, type, rrclass),
      key: undefined,
      text: rrclass === undefined ? name : undefined,
      type,
    };
  }

  /** Remembers a question that hit the cache: the next hit skips the parse. */
  #remember(question: Question): void {
    question.remembered = true;
    if (question.text === undefined) return;
    if (this.#remembered >= MAX_REMEMBERED_QUESTIONS) {
      this.#questions.clear();
      this.#remembered = 0;
    }
    let types = this.#questions.get(question.text);
    if (types === undefined) {
      types = new Map<number | string, Question>();
      this.#questions.set(question.text, types);
    }
    types.set(question.type, question);
    this.#remembered++;
  }

  /**
   * A fresh hit in the cache of the plugin that would answer, or undefined. A result of the
   * same entry at the same age is handed out again (results are immutable); SRV is drawn again
   * on every hit (RFC 2782). A cached answer that cannot be built, or whose CNAME chain leaves
   * its zone, goes the long way.
   */
  #hit(question: Question): DnsResult | undefined {
    const plugin = this.registry.first();
    const cache = plugin?.cache;
    if (cache === undefined) return undefined;
    question.key ??= questionKey(question.query);
    const entry = cache.hit(question.query, question.key);
    if (entry === undefined) return undefined;
    if (question.remembered !== true) this.#remember(question);
    const built = this.#built.get(entry);
    if (built !== undefined && built.age === entry.age && built.query === question.query) return published(built);
    let result: DnsResult;
    try {
      result = this.#finish(question.query, { ...entry.answer, age: entry.age }, plugin!, entry);
    } catch {
      return undefined;
    }
    if (this.#leavesZone(question.query, result)) return undefined;
    if (question.query.type !== RRType.SRV) this.#built.set(entry, result);
    return published(result);
  }

  #finish(query: DnsQuery, answer: PluginAnswer, plugin: ResolverPlugin, cacheEntry?: CacheEntry): DnsResult {
    const options = this.#buildOptions(plugin);
    return buildResult(query, answer, cacheEntry ? { ...options, cacheEntry } : options);
  }

  /** The result builder's options for answers of `plugin` without a cache entry: made once per plugin. */
  #buildOptions(plugin: ResolverPlugin): ResultBuilderOptions {
    let options = this.#builds.get(plugin);
    if (options === undefined) {
      options = {
        resolver: plugin.name,
        random: this.random,
        ...(this.#options.maxCnameChain ? { maxCnameChain: this.#options.maxCnameChain } : {}),
      };
      this.#builds.set(plugin, options);
    }
    return options;
  }

  /**
   * The long way: the registry, then a re-ask when the CNAME chain leaves its zone. One promise
   * step of the registry's per question, not async functions: a question waiting for its
   * backend holds little (a burst holds thousands).
   */
  #resolve(
    query: DnsQuery,
    signal: AbortSignal | undefined,
    reasks: number,
    attempts?: QueryAttempt[],
  ): Promise<DnsResult>;
  #resolve<V>(
    query: DnsQuery,
    signal: AbortSignal | undefined,
    reasks: 0,
    attempts: QueryAttempt[] | undefined,
    picked: FinishAnswer<V>,
  ): Promise<V>;
  #resolve(
    query: DnsQuery,
    signal: AbortSignal | undefined,
    reasks: number,
    attempts?: QueryAttempt[],
    picked?: FinishAnswer<unknown>,
  ): Promise<unknown> {
    try {
      throwIfAborted(signal);
    } catch (error) {
      return Promise.reject(error);
    }
    // A hit never leaves its zone (#hit sends those the long way).
    const hit = reasks > 0 ? this.#hit({ query, key: undefined, text: undefined, type: query.type }) : undefined;
    if (hit !== undefined) return Promise.resolve(hit);
    const finish: FinishAnswer<unknown> =
      reasks === 0
        ? (picked ?? this.#answeredFirst)
        : (answer, plugin) => this.#answered(query, this.#finish(query, answer, plugin), signal, reasks, attempts);
    return raceAbort(this.registry.resolve(query, signal ?? NEVER_ABORTED, finish, attempts), signal);
  }

  /** The registry's finish for a question not re-asked yet: one function for every question. */
  readonly #answeredFirst: FinishAnswer<DnsResult> = (answer, plugin, query, signal, attempts) =>
    this.#answered(query, this.#finish(query, answer, plugin, plugin.cache?.stored?.(answer)), signal, 0, attempts);

  /** #answeredFirst, then `pick`: one function per pick (a caller's pick is usually one function). */
  #pickedFirst<V>(pick: (result: DnsResult) => V): FinishAnswer<V> {
    let finish = this.#picked.get(pick) as FinishAnswer<V> | undefined;
    if (finish === undefined) {
      finish = (answer, plugin, query, signal, attempts) => {
        const result = this.#answeredFirst(answer, plugin, query, signal, attempts);
        return result instanceof Promise ? result.then(pick) : pick(result as DnsResult);
      };
      this.#picked.set(pick, finish);
    }
    return finish;
  }

  /** A backend's answer as a result, or the re-ask of its chain's end when the chain leaves its zone. */
  #answered(
    query: DnsQuery,
    result: DnsResult,
    signal: AbortSignal | undefined,
    reasks: number,
    attempts: QueryAttempt[] | undefined,
  ): DnsResult | Promise<DnsResult> {
    published(result);
    return this.#leavesZone(query, result) ? this.#reaskOutOfZone(query, result, signal, reasks, attempts) : result;
  }

  /**
   * A CNAME chain into another zone: the records the server added for the chain's end are not
   * trusted; the end is asked on its own (RFC 5452 section 6). A DNSSEC-secure chain was
   * validated link by link and is kept. The re-asked end is no more secure than the chain that
   * led to it (weakestStatus): whoever controls an unsigned link chooses where it points.
   */
  #leavesZone(query: DnsQuery, result: DnsResult): boolean {
    if (this.#options.reaskCrossZoneCnames === false || result.secure || result.bogus) return false;
    if (
      query.type === RRType.CNAME ||
      query.type === RRType.ANY ||
      result.canonical === query.name ||
      nameEquals(result.canonical, query.name)
    )
      return false;
    return !chainStaysInZone(parseName(result.canonical), query.labels);
  }

  async #reaskOutOfZone(
    query: DnsQuery,
    result: DnsResult,
    signal: AbortSignal | undefined,
    reasks: number,
    attempts: QueryAttempt[] | undefined,
  ): Promise<DnsResult> {
    if (reasks >= (this.#options.maxCnameChain ?? DEFAULT_MAX_CNAME_CHAIN)) {
      throw new MalformedAnswerError(
        `${describeQuery(query)}: CNAME chains across zones go on for more than ${reasks} re-asks`,
      );
    }
    const target = makeQuery(result.canonical, query.type, query.class);
    return (await this.#resolve(target, signal, reasks + 1, attempts)).answering(query, result);
  }

  /** A new query set over this core. */
  querySet(): QuerySet {
    return new QuerySet(this);
  }

  /** Keeps a question answered: re-asks when the lowest TTL runs out. */
  resolveRecurring(name: string, type: number | string, options: RecurringOptions): RecurringQuery {
    return new RecurringQuery(this, makeQuery(name, type, options.class), options);
  }

  /** Closes every registered plugin. */
  close(): Promise<void> {
    return this.registry.close();
  }
}

/** Says a bogus answer on `dnscore:bogus` (only while someone listens); returns the result. */
function published(result: DnsResult): DnsResult {
  if (result.bogus && bogusChannel.hasSubscribers)
    bogusChannel.publish({
      query: result.query,
      resolver: result.resolver,
      ede: result.ede,
      whyBogus: result.whyBogus,
    });
  return result;
}
