/**
 * @dnscore/core, the consumer side: ask questions, read results, run query sets and
 * recurring queries, compose resolvers. Backends import @dnscore/core/plugin instead.
 */
export { DnsCore } from './dns-core.js';
export type { DnsApi, QueryApi, ResolveOptions } from './dns-api.js';
export type { DnsCoreOptions } from './dns-core-options.js';
export { RESOLVER_PLUGIN, DNS_CORE_OPTIONS } from './tokens.js';
export { DnsResult } from './result.js';
export { dnssecStatus, weakestStatus, flagsOf, type DnssecStatus, type DnssecFlags } from './dnssec-status.js';
export { Ede, edeName, isEdeCode } from './ede.js';
export { makeQuery, describeQuery, questionKey, type DnsQuery } from './query.js';
export { STALE_TTL, type AnswerCache, type CacheEntry } from './answer-cache.js';
export { QuerySet, type QueryOutcome } from './query-set.js';
export {
  RecurringQuery,
  type RecurringOptions,
  DEFAULT_RECURRING_FLOOR_MS,
  DEFAULT_RECURRING_MARGIN_MS,
  DEFAULT_RECURRING_MAX_BACKOFF_MS,
  DEFAULT_RECURRING_MAX_INTERVAL_MS,
} from './recurring.js';
export { ResolverRegistry, shouldTryNext, type FinishAnswer, type SkippedPlugin } from './registry.js';
export type { AnswerSink, ResolverPlugin, Availability } from './resolver-plugin.js';
export {
  withCache,
  type CacheOptions,
  type CacheStats,
  type CachingPlugin,
  DEFAULT_CACHE_MAX_STALE_SECONDS,
  PREFETCH_SHARE,
  DEFAULT_CACHE_MAX_ENTRIES,
  DEFAULT_CACHE_MAX_TTL,
  DEFAULT_CACHE_MAX_NEGATIVE_TTL,
  DEFAULT_CACHE_MAX_BOGUS_TTL,
} from './cache.js';
export {
  ZoneResolver,
  DEFAULT_ZONE_PRIORITY,
  type ZoneResolverOptions,
  type ZoneSource,
} from './zone/zone-resolver.js';
export {
  parseZone,
  DEFAULT_MAX_INCLUDES,
  DEFAULT_MAX_INCLUDE_BYTES,
  type ZoneRecord,
  type ParseZoneOptions,
} from './zone/parser.js';
export type {
  DnsRecord,
  RecordBase,
  RawRecord,
  TypedRecord,
  TypedRecordName,
  AnyTypedRecord,
  RecordOf,
  RecordDataMap,
  DroppedRecord,
  SrvData,
  NaptrData,
  MxData,
  SoaData,
  TlsaData,
} from './records/types.js';
export { isRecordType } from './records/types.js';
export { orderSrv } from './records/srv.js';
export { orderNaptr, parseNaptrRegexp, type NaptrRegexp } from './records/naptr.js';
export { formatRecord, formatRdata, toHex } from './presentation.js';
export { escapeText, quoteText, MAX_QUOTED_CHARS } from './untrusted-text.js';
export { abortError, onAbort } from './abort.js';
export {
  RRType,
  RRClass,
  Rcode,
  typeName,
  className,
  rcodeName,
  parseType,
  parseClass,
  parseRcode,
} from './rr-types.js';
export { parseName, formatName, nameEquals, nameKey, isSubdomain, type Labels } from './names.js';
export { defaultRandom, seededRandom, type RandomSource } from './random.js';
export { systemClock, systemTimers, type Clock, type Timers } from './clock.js';
export { silentLogger, stderrLogger, type Logger } from './logger.js';
export {
  checkIntegerInRange,
  checkNonNegativeNumber,
  checkPositiveInteger,
  checkPositiveNumber,
  describeValue,
  optionError,
} from './option-checks.js';
export * from './errors.js';
