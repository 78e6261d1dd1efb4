/**
 * @dnscore/sip: RFC 3263 server location over dnscore. A SIP or SIPS URI becomes the ordered
 * targets to send a request to (NAPTR, SRV with RFC 2782 load sharing, A/AAAA), walked by a
 * failover cursor with a shared penalty box, transaction and Call-ID affinity, and the
 * 1300-byte rule. Works over any DnsApi (a DnsCore with any backend). The public API only:
 * tests import what they test from its own file.
 */
export { SipLocator, type SipLocatorOptions, type SipResolveOptions } from './locator.js';
export { DEFAULT_MAX_TARGET_PLANS } from './target-plan.js';
export {
  FailoverCursor,
  type FailoverCursorOptions,
  type SipAttempt,
  type TryOutcome,
  type ReportVerdict,
  type CursorHost,
} from './failover-cursor.js';
export {
  FailoverPolicy,
  type FailoverPolicyOptions,
  type PenaltyPolicy,
  type ResolvedPenaltyPolicy,
} from './failover-policy.js';
export {
  MemoryPenaltyStore,
  type MemoryPenaltyStoreOptions,
  type PenaltyStore,
  type PenaltyEntry,
  type PenaltyLeaveReason,
  type PenaltyReason,
} from './penalty-store.js';
export {
  PenaltyBox,
  destinationKey,
  type PenaltyBoxOptions,
  type Destination,
  type MarkOptions,
} from './penalty-box.js';
export {
  NaptrMemory,
  naptrKey,
  NAPTR_MEMORY_MODES,
  type NaptrMemoryMode,
  type NaptrMemoryOptions,
  type NaptrMemoryEntry,
  type NaptrRef,
  type NaptrChoice,
  type NaptrSkip,
  type NaptrSkipReason,
} from './naptr-memory.js';
export { TransactionAffinity, type TransactionAffinityOptions } from './transaction-affinity.js';
export { CallIdAffinity, type CallIdAffinityOptions, type CallIdPin } from './call-id-affinity.js';
export { parseSipUri, formatSipUri, isSipToken, type SipUri } from './uri.js';
export { parseHost, normalizeAddress, formatHost, type SipHost, type HostKind } from './host.js';
export {
  defaultPort,
  isSipTransport,
  type SipTransport,
  type SipScheme,
  type AddressFamily,
} from './transport.js';
export type {
  SipResolution,
  SipTarget,
  TargetSource,
  SelectionRule,
  SipStep,
  QueryStep,
  RuleStep,
  NaptrStep,
  AdditionalStep,
  SkipStep,
  NoteStep,
  QueryType,
  SipWarning,
  WarningCode,
  ClientCapabilities,
  DnssecPolicy,
} from './resolution.js';
export { chainStatus, weakestLink, describeLink, type DnssecLink } from './dnssec-links.js';
export { renderStepThrough } from './step-through.js';
export { resolutionToJson, type SipNaptrJson, type SipResolutionJson, type SipTargetJson } from './json.js';
export { drawFirstTargets, MAX_DRAWS, type DrawCounts } from './draws.js';
export {
  DEFAULT_FAILOVER_ON,
  DEFAULT_NAPTR_MEMORY,
  DEFAULT_PENALTY_MS,
  DEFAULT_TARGET_TIMEOUT_MS,
  DEFAULT_TRANSACTION_TIMEOUT_MS,
} from './defaults.js';
export * from './errors.js';
