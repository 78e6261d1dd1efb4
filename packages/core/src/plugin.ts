/**
 * @dnscore/core/plugin, the backend side (Asterisk's dns_resolver.h): the plugin contract,
 * the result builder, the wire framing and the helpers a backend needs. Consumers (sip,
 * pjsip-adapter, sip-bridge, applications) never import this door.
 */
export type { AnswerSink, ResolverPlugin, Availability } from './resolver-plugin.js';
export type { PluginAnswer } from './plugin-answer.js';
export { serversOf, withServers, type ServerAttempt } from './server-attempts.js';
export { STALE_TTL, type AnswerCache, type CacheEntry, type CacheStats } from './answer-cache.js';
export { Ede, edeName, isEdeCode } from './ede.js';
export { dnssecStatus, weakestStatus, type DnssecStatus, type DnssecFlags } from './dnssec-status.js';
export {
  ResultBuilder,
  buildResult,
  type ResultBuilderOptions,
} from './result-builder.js';
export {
  parseMessage,
  scanMessage,
  HEADER_LENGTH,
  type MessageSummary,
  type WireMessage,
  type WireHeader,
  type WireQuestion,
  type WireRecord,
  type WireEdns,
} from './wire/message.js';
export { WireReader, WireError, type DecodedName } from './wire/reader.js';
export {
  BUILT_IN_ROOT_ANCHORS,
  DEFAULT_ROOT_DS_FILE,
  ROOT_KSK_2017_DS,
  ROOT_KSK_2024_DS,
  defaultRootAnchors,
  rootDsKeyTag,
  type RootAnchors,
} from './root-anchors.js';
export { answerLifetime, type LifetimeLimits } from './answer-lifetime.js';
export { NEVER_ABORTED, abortError, mayAbort, onAbort, raceAbort, throwIfAborted } from './abort.js';
export { ConcurrencyLimiter, type LimiterJob } from './concurrency-limiter.js';
export { LazyAbort, type Abortable, type AbortListener } from './lazy-abort.js';
export { SharedAnswer, SharedAnswers } from './shared-answers.js';
export { makeQuery, describeQuery, questionKey, type DnsQuery } from './query.js';
export {
  parseName,
  formatName,
  nameKey,
  nameEquals,
  labelsEqual,
  isSubdomain,
  wireLength,
  wireName,
  MAX_LABEL_LENGTH,
  MAX_NAME_LENGTH,
  type Labels,
} from './names.js';
export { RRType, RRClass, Rcode, typeName, className, rcodeName, parseType, parseClass } from './rr-types.js';
export { systemClock, systemTimers, type Clock, type Timers } from './clock.js';
export {
  checkIntegerInRange,
  checkNonNegativeNumber,
  checkPositiveInteger,
  checkPositiveNumber,
  describeValue,
  optionError,
} from './option-checks.js';
export * from './errors.js';
