/**
 * The JSON API: each route reads its question (query string or JSON body), picks the DNS
 * (the server's backend, or the page's zone text alone) and answers with @dnscore/sip's and
 * the check's own output.
 */
import type { DnsCore, DnsApi } from '@dnscore/core';
import { runCheck } from '../check/check.js';
import { ladderText } from '../failover/ladder-text.js';
import { simulateFailover } from '../failover/simulate.js';
import { checkQuestion, drawCount, failoverQuestion, sipQuestion, type Params } from '../api/question.js';
import { backendCore, zoneTextCore } from '../api/dns.js';
import { answerDraws, answerSip } from '../api/sip.js';

export interface RouteContext {
  readonly backend: DnsCore;
  readonly description: string;
  readonly limits: Readonly<Record<string, number>>;
}

export type Route = (params: Params, ctx: RouteContext, signal: AbortSignal) => Promise<unknown>;

function dnsFor(ctx: RouteContext, zone: string | undefined, seed: number | undefined): DnsApi {
  return zone !== undefined ? zoneTextCore(zone, seed) : backendCore(ctx.backend, seed);
}

const SIP_PARAMS = ['uri', 'transports', 'ipv4', 'ipv6', 'seed', 'zone'] as const;

export interface ApiRoute {
  readonly methods: readonly string[];
  /** The parameters it reads: any other is refused, so a misspelt one is not silently left out. */
  readonly params: readonly string[];
  readonly route: Route;
}

export const ROUTES: ReadonlyMap<string, ApiRoute> = new Map<string, ApiRoute>([
  [
    '/api/sip',
    {
      methods: ['GET', 'POST'],
      params: SIP_PARAMS,
      route: async (params, ctx, signal) => {
        const q = sipQuestion(params);
        return answerSip(dnsFor(ctx, q.zone, q.seed), q, signal);
      },
    },
  ],
  [
    '/api/draws',
    {
      methods: ['GET', 'POST'],
      params: [...SIP_PARAMS, 'n'],
      route: async (params, ctx, signal) => {
        const q = sipQuestion(params);
        return answerDraws(dnsFor(ctx, q.zone, q.seed), q, drawCount(params), signal);
      },
    },
  ],
  [
    '/api/failover',
    {
      methods: ['POST'],
      params: [...SIP_PARAMS, 'down', 'requests', 'timerMs'],
      route: async (params, ctx, signal) => {
        const q = failoverQuestion(params);
        const ladder = await simulateFailover(dnsFor(ctx, q.zone, q.seed), q, signal);
        return { ...ladder, text: ladderText(ladder) };
      },
    },
  ],
  [
    '/api/check',
    {
      methods: ['GET', 'POST'],
      params: ['target', 'zone'],
      route: async (params, ctx, signal) => {
        const q = checkQuestion(params);
        return runCheck(dnsFor(ctx, q.zone, undefined), q.target, { signal });
      },
    },
  ],
  [
    '/api/info',
    {
      methods: ['GET'],
      params: [],
      route: async (_params, ctx) => ({ backend: ctx.description, limits: ctx.limits }),
    },
  ],
]);
