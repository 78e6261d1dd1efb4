/**
 * DnsCore: the consumer-side entry point (Asterisk's dns_core.h). It validates the question,
 * asks the registry, builds the immutable result and applies the cancel rule.
 */
import 'reflect-metadata';
import { inject, injectAll, injectable } from 'tsyringe';
import { raceAbort, throwIfAborted } from './abort.js';
import type { DnsCoreOptions } from './dns-core-options.js';
import type { DnsApi, ResolveOptions } from './dns-api.js';
import type { CachingPlugin } from './cache.js';
import { bogusChannel, queryChannel, traceQuery, type QueryAttempt } from './diagnostics.js';
import { silentLogger } from './logger.js';
import { chainStaysInZone } from './bailiwick.js';
import { MalformedAnswerError } from './errors.js';
import { nameEquals, parseName } from './names.js';
import { describeQuery, makeQuery, type DnsQuery } from './query.js';
import { QuerySet } from './query-set.js';
import { RecurringQuery, type RecurringOptions } from './recurring.js';
import type { TypedRecord, TypedRecordName } from './records/types.js';
import { ResolverRegistry } from './registry.js';
import type { PluginAnswer, ResolverPlugin } from './resolver-plugin.js';
import type { DnsResult } from './result.js';
import { DEFAULT_MAX_CNAME_CHAIN, buildResult } from './result-builder.js';
import { RRType } from './rr-types.js';
import { DNS_CORE_OPTIONS, RESOLVER_PLUGIN } from './tokens.js';

@injectable()
export class DnsCore implements DnsApi {
  readonly registry: ResolverRegistry;
  readonly #options: DnsCoreOptions;

  constructor(
    @injectAll(RESOLVER_PLUGIN, { isOptional: true }) plugins: readonly ResolverPlugin[] = [],
    @inject(DNS_CORE_OPTIONS, { isOptional: true }) options: DnsCoreOptions = {},
  ) {
    this.#options = options;
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
   * on a plugin error. Rejects with InvalidQueryError for bad input, AbortError when
   * cancelled, and a DnsError when no plugin obtained an answer.
   */
  resolve<T extends TypedRecordName>(
    name: string,
    type: T,
    options?: ResolveOptions,
  ): Promise<DnsResult<TypedRecord<T>>>;
  resolve(name: string, type?: number | string, options?: ResolveOptions): Promise<DnsResult>;
  async resolve(name: string, type: number | string = 'A', options: ResolveOptions = {}): Promise<DnsResult> {
    const query = makeQuery(name, type, options.class);
    return this.resolveQuery(query, options.signal);
  }

  /** Resolves an already validated query. */
  async resolveQuery(query: DnsQuery, signal?: AbortSignal): Promise<DnsResult> {
    if (queryChannel.hasSubscribers) return traceQuery(query, (attempts) => this.#resolve(query, signal, 0, attempts));
    return this.#resolve(query, signal, 0);
  }

  async #resolve(
    query: DnsQuery,
    signal: AbortSignal | undefined,
    reasks: number,
    attempts?: QueryAttempt[],
  ): Promise<DnsResult> {
    throwIfAborted(signal);
    const finish = (answer: Parameters<typeof buildResult>[1], plugin: ResolverPlugin): DnsResult =>
      buildResult(query, answer, {
        resolver: plugin.name,
        ...(this.#options.random ? { random: this.#options.random } : {}),
        ...(this.#options.maxCnameChain ? { maxCnameChain: this.#options.maxCnameChain } : {}),
      });
    const result =
      this.#cacheHit(query, finish) ??
      (await raceAbort(this.registry.resolve(query, signal ?? new AbortController().signal, finish, attempts), signal));
    if (result.bogus && bogusChannel.hasSubscribers)
      bogusChannel.publish({ query, resolver: result.resolver, ede: result.ede, whyBogus: result.whyBogus });
    return this.#reaskOutOfZone(query, result, signal, reasks, attempts);
  }

  /**
   * A hit in the cache of the plugin that would answer, built at once: no AbortController, no
   * walk through the registry. A cached answer that cannot be built goes the long way, where
   * the registry decides about fallback as for any other answer.
   */
  #cacheHit(
    query: DnsQuery,
    finish: (answer: PluginAnswer, plugin: ResolverPlugin) => DnsResult,
  ): DnsResult | undefined {
    const first = this.registry.select().candidates[0];
    const hit =
      first && typeof (first as Partial<CachingPlugin>).peek === 'function'
        ? (first as CachingPlugin).peek(query)
        : undefined;
    if (!hit) return undefined;
    try {
      return finish(hit, first!);
    } catch {
      return undefined;
    }
  }

  /**
   * A CNAME chain into another zone: the records the server added for the chain's end are not
   * trusted; the end is asked on its own (RFC 5452 section 6). A DNSSEC-secure chain was
   * validated link by link and is kept. The re-asked end is no more secure than the chain that
   * led to it (weakestStatus): whoever controls an unsigned link chooses where it points.
   */
  async #reaskOutOfZone(
    query: DnsQuery,
    result: DnsResult,
    signal: AbortSignal | undefined,
    reasks: number,
    attempts: QueryAttempt[] | undefined,
  ): Promise<DnsResult> {
    if (this.#options.reaskCrossZoneCnames === false || result.secure || result.bogus) return result;
    if (query.type === RRType.CNAME || query.type === RRType.ANY || nameEquals(result.canonical, query.name))
      return result;
    const end = parseName(result.canonical);
    if (chainStaysInZone(end, query.labels)) return result;
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
