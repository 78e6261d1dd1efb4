/**
 * @dnscore/sip-bridge: a bridge that sends the requests of an application on the npm `sip` stack
 * to RFC 3263 targets, with failover, a penalty box and affinity, resolving through @dnscore/sip.
 */
export { SipBridge, newBranch, type SipBridgeOptions } from './sip-bridge.js';
export type { SendReport, BridgeAttempt, AttemptOutcome } from './send-report.js';
export { SipEndpoint, type SipEndpointOptions, type TryTarget, type TryEvent, type TryHandle } from './sip-endpoint.js';
export { StreamConnections, type StreamTarget, type StreamConnectionsOptions } from './stream-connections.js';
export { nextHop, routeSet, parseRouteHeader, type NextHop } from './route.js';
export { loadSipStack } from './load-sip.js';
export type * from './sip-stack.js';
export { isRequest } from './sip-stack.js';
export * from './defaults.js';
export * from './errors.js';
