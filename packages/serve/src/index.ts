/**
 * @dnscore/serve: the RFC 3263 step-through in a browser (`dnscore serve`: a small HTTP server
 * on loopback, its page and JSON API) and the SIP DNS check behind `dnscore check`. Every RFC
 * rule runs here, on the server, through @dnscore/sip and @dnscore/core; the page only draws.
 * The public API only: tests import what they test from its own file.
 */
export { runCheck, parseCheckTarget, hasProblems, type CheckReport, type CheckOptions } from './check/check.js';
export { renderCheck } from './check/text.js';
export type { Finding, FindingCode, Severity } from './check/finding.js';
export * from './defaults.js';
export * from './errors.js';
export { startServer, isLoopback, type ServeOptions, type RunningServer } from './http/server.js';
export { SECURITY_HEADERS } from './http/respond.js';
export type { LadderJson, LadderEvent, Lane } from './failover/simulate.js';
export type { DrawsJson } from './api/sip.js';
export type { ExpectedShare } from './api/shares.js';
export type { PeerFault } from './api/question.js';
