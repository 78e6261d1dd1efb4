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

export interface ExpectedShare {
  readonly host: string;
  readonly priority: number;
  readonly weight: number;
  /** The RFC 2782 share of first picks: weight / sum of weights of the lowest priority; 0 above it. */
  readonly share: number;
}

export interface DrawsJson {
  readonly uri: string;
  readonly n: number;
  /** Host -> how often it came first. */
  readonly first: Readonly<Record<string, number>>;
  readonly expected: readonly ExpectedShare[];
}

/** N resolutions in a row (`dnscore sip --draws N`) and the shares RFC 2782 aims at. */
export async function answerDraws(dns: DnsApi, q: SipQuestion, n: number, signal: AbortSignal): Promise<DrawsJson> {
  const locator = locatorFor(dns, q);
  const resolution = await locator.resolve(q.uri, { signal });
  if (resolution.targets.length === 0) return { uri: resolution.uri.text, n: 0, first: {}, expected: [] };
  const counts = await drawFirstTargets(locator, resolution.uri, n, { signal });
  return { uri: resolution.uri.text, n: counts.n, first: { ...counts.first }, expected: expectedShares(resolution) };
}

/**
 * Each SRV host of the chosen transport once, with its share of first picks: within the lowest
 * priority, weight / sum (equal shares when every weight is 0); a host of a larger priority
 * number is never first while one of the lowest is listed.
 */
export function expectedShares(resolution: SipResolution): ExpectedShare[] {
  const transport = resolution.transport;
  const hosts = new Map<string, { priority: number; weight: number }>();
  for (const t of resolution.targets) {
    if (t.transport !== transport || (t.source !== 'srv' && t.source !== 'naptr') || hosts.has(t.host)) continue;
    hosts.set(t.host, { priority: t.priority, weight: t.weight });
  }
  if (hosts.size === 0) return [];
  const lowest = Math.min(...[...hosts.values()].map((h) => h.priority));
  const group = [...hosts.values()].filter((h) => h.priority === lowest);
  const sum = group.reduce((s, h) => s + h.weight, 0);
  return [...hosts.entries()]
    .map(([host, { priority, weight }]) => ({
      host,
      priority,
      weight,
      share: priority !== lowest ? 0 : sum === 0 ? 1 / group.length : weight / sum,
    }))
    .sort((a, b) => a.priority - b.priority || b.weight - a.weight || (a.host < b.host ? -1 : 1));
}
