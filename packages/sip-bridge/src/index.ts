/**
 * @dnscore/sip-bridge: a bridge that sends the requests of an application on the npm `sip` stack
 * to RFC 3263 targets, with failover, a penalty box and affinity, resolving through @dnscore/sip.
 * The public API only: tests import what they test from its own file.
 */
export { SipBridge, type SipBridgeOptions } from './sip-bridge.js';
export type { SendReport, BridgeAttempt, AttemptOutcome } from './send-report.js';
export type { NextHop } from './route.js';
export { SipEndpoint, type SipEndpointOptions, type TryTarget, type TryEvent, type TryHandle } from './sip-endpoint.js';
export type { InboundLimits, InboundStats } from './guarded-transport.js';
export type { MessageLimits, RejectReason } from './message-guard.js';
export { loadSipStack } from './load-sip.js';
export type * from './sip-stack.js';
export * from './errors.js';
