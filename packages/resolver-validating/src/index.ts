/**
 * @dnscore/resolver-validating: a DNSSEC-validating stub resolver in TypeScript, as a dnscore
 * plugin (no native library). This file is the public API only.
 */
export { ValidatingResolver } from './validating-resolver.js';
export type { ValidatingResolverConfig, ValidatingResolverOptions } from './options.js';
export type { ProbeOutcome } from './upstream-probe.js';
export type { BudgetLimits } from './validate/index.js';
export {
  InsecureAnswerError,
  UpstreamNotValidatingError,
  ValidatingOptionError,
  ZoneCutLimitError,
} from './errors.js';
export {
  DEFAULT_VALIDATING_NAME,
  DEFAULT_VALIDATING_PRIORITY,
  DEFAULT_MAX_CHAIN_LINKS,
  DEFAULT_MAX_ZONE_CUTS,
  DEFAULT_KEY_CACHE_SIZE,
  DEFAULT_ANSWER_CACHE_SIZE,
  DEFAULT_ANSWER_CACHE_BYTES,
} from './defaults.js';
