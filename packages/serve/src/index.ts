/**
 * @dnscore/serve: the RFC 3263 step-through in a browser (`dnscore serve`: a small HTTP server
 * on loopback, its page and JSON API) and the SIP DNS check behind `dnscore check`. Every RFC
 * rule runs here, on the server, through @dnscore/sip and @dnscore/core; the page only draws.
 */
export { runCheck, parseCheckTarget, hasProblems, type CheckReport, type CheckOptions } from './check/check.js';
export { renderCheck } from './check/text.js';
export type { Finding, FindingCode, Severity } from './check/finding.js';
export * from './defaults.js';
export * from './errors.js';
export { startServer, isLoopback, type ServeOptions, type RunningServer } from './http/server.js';
export { SECURITY_HEADERS } from './http/respond.js';
export { simulateFailover, type LadderJson, type LadderEvent, type Lane } from './failover/simulate.js';
export { ladderText } from './failover/ladder-text.js';
export { answerSip, answerDraws, expectedShares, type DrawsJson, type ExpectedShare } from './api/sip.js';
export { zoneTextCore } from './api/dns.js';
export type { SipQuestion, FailoverQuestion, PeerFault } from './api/question.js';
