/**
 * The default trust anchors: both root KSKs, from Debian's root.ds when present (the core's,
 * shared with every validating backend).
 */
export { defaultRootAnchors, rootDsKeyTag, type RootAnchors } from '@dnscore/core/plugin';
