/**
 * @dnscore/ext-resolver: dnscore inside SIP stacks that already exist. A resolver shaped like
 * PJSIP's external-resolver callback, and a bridge that sends the requests of an application on
 * the npm `sip` stack to RFC 3263 targets, with failover, a penalty box and affinity. Both
 * resolve through @dnscore/sip.
 */
export {
  createPjsipExtResolver,
  type PjsipExtResolverOptions,
  type PjsipStyleResolver,
  type FailedServer,
} from './pjsip-ext-resolver.js';
export {
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
export {
  SipBridge,
  newBranch,
  type SipBridgeOptions,
  type SendReport,
  type BridgeAttempt,
  type AttemptOutcome,
} from './sip-bridge.js';
export { SipEndpoint, type SipEndpointOptions, type TryTarget, type TryEvent, type TryHandle } from './sip-endpoint.js';
export { StreamConnections, type StreamTarget, type StreamConnectionsOptions } from './stream-connections.js';
export { nextHop, routeSet, parseRouteHeader, type NextHop } from './route.js';
export { loadSipStack } from './load-sip.js';
export type * from './sip-stack.js';
export { isRequest } from './sip-stack.js';
export * from './defaults.js';
export * from './errors.js';
