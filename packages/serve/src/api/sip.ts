/**
 * GET /api/sip and /api/draws: the RFC 3263 step-through as `dnscore sip --json` prints it,
 * and the share chart over N draws. Both are @dnscore/sip's own code; nothing is decided here.
 */
import type { DnsApi } from '@dnscore/core';
import {
  drawFirstTargets,
  resolutionToJson,
  SipLocator,
  type SipResolution,
  type SipResolutionJson,
} from '@dnscore/sip';
import type { SipQuestion } from './question.js';
import { expectedShares, type ExpectedShare } from './shares.js';

export function locatorFor(dns: DnsApi, q: SipQuestion): SipLocator {
  return new SipLocator(dns, { transports: q.transports, ipv4: q.ipv4, ipv6: q.ipv6 });
}

/**
 * The resolution with its step-through. The step-through is asked for explicitly: a locator that
 * builds it only on request (for callers that do not read it) still builds it here.
 */
export async function resolveWithSteps(locator: SipLocator, uri: string, signal: AbortSignal): Promise<SipResolution> {
  const options = { signal, stepThrough: true };
  return locator.resolve(uri, options);
}

/** Exactly the document `dnscore sip URI --json` prints for the same question. */
export async function answerSip(dns: DnsApi, q: SipQuestion, signal: AbortSignal): Promise<SipResolutionJson> {
  return resolutionToJson(await resolveWithSteps(locatorFor(dns, q), q.uri, signal));
}

export interface DrawsJson {
  readonly uri: string;
  readonly n: number;
  /** Host -> how often it came first. */
  readonly first: Readonly<Record<string, number>>;
  readonly expected: readonly ExpectedShare[];
}

/** N resolutions in a row (`dnscore sip --draws N`) and the exact share of each host the draw gives. */
export async function answerDraws(dns: DnsApi, q: SipQuestion, n: number, signal: AbortSignal): Promise<DrawsJson> {
  const locator = locatorFor(dns, q);
  const resolution = await locator.resolve(q.uri, { signal });
  if (resolution.targets.length === 0) return { uri: resolution.uri.text, n: 0, first: {}, expected: [] };
  const counts = await drawFirstTargets(locator, resolution.uri, n, { signal });
  return { uri: resolution.uri.text, n: counts.n, first: { ...counts.first }, expected: expectedShares(resolution) };
}
