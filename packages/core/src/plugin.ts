/**
 * @dnscore/core/plugin, the backend side (Asterisk's dns_resolver.h): the plugin contract,
 * the result builder, the wire framing and the helpers a backend needs. Consumers (sip,
 * ext-resolver, applications) never import this door.
 */
export type { ResolverPlugin, Availability } from './resolver-plugin.js';
export { availabilityOf } from './resolver-plugin.js';
export {
  ResultBuilder,
  buildResult,
  type PluginAnswer,
  type ResultBuilderOptions,
  DEFAULT_MAX_CNAME_CHAIN,
} from './result-builder.js';
export {
  parseMessage,
  HEADER_LENGTH,
  type WireMessage,
  type WireHeader,
  type WireQuestion,
  type WireRecord,
  type WireEdns,
} from './wire/message.js';
export { WireReader, WireError, type DecodedName } from './wire/reader.js';
export { decodeRecord, hasTypedView } from './records/decode.js';
export { RdataError } from './records/rdata-error.js';
export { formatIpv6 } from './records/address.js';
export { answerLifetime, type LifetimeLimits } from './answer-lifetime.js';
export { abortError, onAbort, raceAbort, throwIfAborted } from './abort.js';
export { makeQuery, describeQuery, type DnsQuery } from './query.js';
export {
  parseName,
  formatName,
  nameKey,
  nameEquals,
  labelEquals,
  isSubdomain,
  wireLength,
  type Labels,
} from './names.js';
export { RRType, RRClass, Rcode, typeName, className, rcodeName, parseType, parseClass } from './rr-types.js';
export { systemClock, systemTimers, type Clock, type Timers } from './clock.js';
export * from './errors.js';
