/**
 * @dnscore/resolver-unbound: libunbound with DNSSEC validation as a dnscore resolver plugin.
 * Importing it never fails: without the libunbound addon (not built), the plugin is unavailable
 * and says why, and the registry uses the next backend. This file is the public API only;
 * the addon loader, the context planner and libunbound's context stay internal.
 */
export { UnboundResolver } from './unbound-resolver.js';
export type { UnboundOptions, UnboundOptionValue, StubZone, LocalZone } from './options.js';
export { unboundAvailability } from './binding.js';
export type { DnssecSupport, DnssecCapability } from './dnssec-support.js';
export { UnboundOptionError, UnboundResolveError, UnboundUnavailableError, InsecureAnswerError } from './errors.js';
