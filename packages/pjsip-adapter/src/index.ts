/**
 * @dnscore/pjsip-adapter: a resolver shaped like PJSIP's external-resolver callback
 * (pjsip_ext_resolver), resolving through @dnscore/sip.
 */
export {
  createPjsipExtResolver,
  type PjsipExtResolverOptions,
  type PjsipStyleResolver,
  type FailedServer,
} from './pjsip-ext-resolver.js';
export {
  PJSIP_MAX_RESOLVED_ADDRESSES,
  PjsipTransportFlag,
  PjsipTransportType,
  PjStatus,
  pjStatusName,
  type PjStatusName,
  type PjsipHostInfo,
  type PjSockaddr,
  type PjsipServerAddressRecord,
  type PjsipServerAddresses,
  type PjsipResolverCallback,
  type PjsipExtResolver,
} from './pjsip-types.js';
export { hostInfoFromUri, locatorUri, flagOfType, transportOfType, typeOfTarget, checkHostInfo } from './host-info.js';
export { statusOfError } from './pjsip-status.js';
export { InFlightTracker } from './in-flight.js';
export * from './errors.js';
