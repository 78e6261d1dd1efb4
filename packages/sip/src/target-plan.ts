/**
 * Target plans: what a resolution derived from its DNS answers alone (the rule, the SRV records
 * with their targets, the warnings), kept per URI text. A plan is used only while every answer
 * it was built from is still the one the resolver's cache serves (DnsApi.current): an
 * answer that expires, is replaced (a prefetch) or evicted, or a change of backend ends it, and
 * a stale answer never makes one. A warm resolution is then a map lookup, that check and the
 * RFC 2782 draw. A NAPTR plan holds as many variants as NAPTR memory made (which of its order's
 * NAPTRs were passed over, and why): the variant of the current memory is used, never another.
 */
import type { DnsResult } from '@dnscore/core';
import { naptrKey, type NaptrChoice, type NaptrRef, type NaptrSkip } from './naptr-memory.js';
import type { SelectionRule, SipResolution, SipWarning } from './resolution.js';
import type { TargetSegment } from './target-segments.js';
import type { SipUri } from './uri.js';

/** Target plans (one per URI text) a locator keeps at most; the oldest goes first beyond this. */
export const DEFAULT_MAX_TARGET_PLANS = 10_000;

/** Variants of one URI's plan (NAPTRs passed over) kept at most; the oldest goes first. */
const MAX_VARIANTS = 8;

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
  /** Rule 'naptr': what it followed; `passed` is rebuilt from the memory of the moment at each use. */
  readonly naptr?: NaptrChoice;
}

/** The plans of one URI: one per variant of NAPTR memory over the same NAPTR candidates. */
export interface PlanVariants {
  /** The usable NAPTRs of the chosen order; none for the other rules. */
  readonly candidates: readonly NaptrRef[];
  /** Their naptrKey()s. */
  readonly keys: readonly string[];
  readonly byVariant: Map<string, TargetPlan>;
}

/**
 * Plans by URI text, at most `max` URIs; the oldest goes first. `variant` names which NAPTRs of
 * the plan's order were passed over and why ("" when none): see variantOf().
 */
export class TargetPlans {
  readonly #plans = new Map<string, PlanVariants>();

  constructor(readonly max: number) {}

  /** The plans of a URI, with the NAPTR candidates they share (none when they are not NAPTR plans). */
  variants(key: string): PlanVariants | undefined {
    return this.#plans.get(key);
  }

  set(key: string, variant: string, plan: TargetPlan): void {
    const candidates = plan.naptr?.candidates ?? [];
    let entry = this.#plans.get(key);
    // Other candidates: the NAPTR answer changed, so the old variants are dead anyway.
    if (!entry || !sameRefs(entry.candidates, candidates))
      entry = { candidates, keys: candidates.map(naptrKey), byVariant: new Map() };
    this.#plans.delete(key);
    this.#plans.set(key, entry);
    entry.byVariant.delete(variant);
    entry.byVariant.set(variant, plan);
    if (entry.byVariant.size > MAX_VARIANTS) entry.byVariant.delete(entry.byVariant.keys().next().value!);
    if (this.#plans.size > this.max) this.#plans.delete(this.#plans.keys().next().value!);
  }

  delete(key: string, variant: string): void {
    const entry = this.#plans.get(key);
    entry?.byVariant.delete(variant);
    if (entry?.byVariant.size === 0) this.#plans.delete(key);
  }

  /** URIs with a plan. */
  get size(): number {
    return this.#plans.size;
  }
}

/** "" when nothing is passed over, else each passed NAPTR's key and why (the order depends on both). */
export function variantOf(keys: readonly string[], skips: readonly (NaptrSkip | undefined)[]): string {
  let variant = '';
  for (const [i, key] of keys.entries()) {
    const skip = skips[i];
    if (skip) variant += `${key}\t${skip.reason}\n`;
  }
  return variant;
}

function sameRefs(a: readonly NaptrRef[], b: readonly NaptrRef[]): boolean {
  return a.length === b.length && a.every((ref, i) => ref.owner === b[i]!.owner && ref.record === b[i]!.record);
}
