/**
 * @dnscore/resolver-unbound: libunbound with DNSSEC validation as a dnscore resolver plugin.
 * Importing it never fails: without the libunbound addon (not built), the plugin is unavailable
 * and says why, and the registry uses the next backend.
 */
export { UnboundResolver } from './unbound-resolver.js';
export {
  planContext,
  unboundAddress,
  type UnboundOptions,
  type UnboundOptionValue,
  type StubZone,
  type LocalZone,
} from './options.js';
export {
  loadUnboundBinding,
  unboundAvailability,
  explainLoadFailure,
  DEFAULT_BUILD_DIR,
  NOT_BUILT,
  type UnboundBinding,
  type UnboundAddon,
  type NativeContext,
  type NativeResultCallback,
  type UnboundResultRaw,
} from './binding.js';
export { UnboundContext, LibunboundError } from './unbound-context.js';
export { edeOfWhyBogus } from './bogus-reason.js';
export { probeDnssecSupport, type DnssecSupport, type DnssecCapability } from './dnssec-support.js';
export { PROBED_ALGORITHMS, PROBED_DIGESTS } from './probe-keys.js';
export { defaultRootAnchors, rootDsKeyTag, type RootAnchors } from './trust-anchors.js';
export * from './defaults.js';
export * from './errors.js';
