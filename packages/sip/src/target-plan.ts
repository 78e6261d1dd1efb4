/**
 * Target plans: what a resolution derived from its DNS answers alone (the rule, the SRV records
 * with their targets, the warnings), kept per URI text. A plan is used only while every answer
 * it was built from is still the one the resolver's cache serves (DnsApi.current): an
 * answer that expires, is replaced (a prefetch) or evicted, or a change of backend ends it, and
 * a stale answer never makes one. A warm resolution is then a map lookup, that check and the
 * RFC 2782 draw.
 */
import type { DnsResult } from '@dnscore/core';
import type { SelectionRule, SipResolution, SipWarning } from './resolution.js';
import type { TargetSegment } from './target-segments.js';
import type { SipUri } from './uri.js';

/** Target plans (one per URI text) a locator keeps at most; the oldest goes first beyond this. */
export const DEFAULT_MAX_TARGET_PLANS = 10_000;

export interface TargetPlan {
  readonly uri: SipUri;
  readonly target: SipResolution['target'];
  readonly rule: SelectionRule;
  readonly segments: readonly TargetSegment[];
  readonly warnings: readonly SipWarning[];
  /** The earliest expiry of its targets (ms). */
  readonly expires: number;
  readonly roundTrips: number;
  readonly queries: number;
  /** The answers it was built from. */
  readonly results: readonly DnsResult[];
}

/** Plans by URI text, at most `max`; the oldest goes first. */
export class TargetPlans {
  readonly #plans = new Map<string, TargetPlan>();

  constructor(readonly max: number) {}

  get(key: string): TargetPlan | undefined {
    return this.#plans.get(key);
  }

  set(key: string, plan: TargetPlan): void {
    this.#plans.delete(key);
    this.#plans.set(key, plan);
    if (this.#plans.size > this.max) this.#plans.delete(this.#plans.keys().next().value!);
  }

  delete(key: string): void {
    this.#plans.delete(key);
  }

  get size(): number {
    return this.#plans.size;
  }
}
