/**
 * A resolution's targets in parts: fixed lists (an IP literal, A/AAAA of a host) and SRV
 * answers kept as their records, each with its targets. Laid out in the order the core drew,
 * they are the targets of that resolution; a target plan lays them out again with a new
 * RFC 2782 draw for every request (`orderSrv`, which arranges each priority's records at
 * random before its running sum, so pick 0 has no favourite).
 */
import { orderSrv, type RandomSource } from '@dnscore/core';
import type { SipTarget } from './resolution.js';
import type { SrvGroup, SrvOutcome } from './srv-targets.js';

export type TargetSegment = { readonly kind: 'fixed'; readonly targets: readonly SipTarget[] } | SrvSegment;

export interface SrvSegment {
  readonly kind: 'srv';
  /** The records, by priority ascending, in the order the core drew them. */
  readonly groups: readonly SrvGroup[];
  readonly duplicates: boolean;
}

export function srvSegmentOf(groups: readonly SrvGroup[], duplicates: boolean): SrvSegment {
  return { kind: 'srv', groups, duplicates };
}

export function fixedSegment(targets: readonly SipTarget[]): TargetSegment[] {
  return [{ kind: 'fixed', targets }];
}

/** The records of an SRV answer that gave targets; none when it gave none. */
export function srvSegment(outcome: SrvOutcome): TargetSegment[] {
  return outcome.groups.length === 0 ? [] : [srvSegmentOf(outcome.groups, outcome.duplicates)];
}

/**
 * The targets, segment after segment; each SRV segment's records drawn again with `random`, or
 * kept in the order given without it. An address and port already listed by an earlier record
 * of the same answer is left out.
 */
export function layOut(segments: readonly TargetSegment[], random?: RandomSource): SipTarget[] {
  const targets: SipTarget[] = [];
  for (const segment of segments) {
    if (segment.kind === 'fixed') {
      for (const target of segment.targets) targets.push(target);
      continue;
    }
    const groups = random && segment.groups.length > 1 ? orderSrv(segment.groups, random) : segment.groups;
    if (!segment.duplicates) {
      for (const group of groups) for (const target of group.targets) targets.push(target);
      continue;
    }
    const seen = new Set<string>();
    for (const group of groups) {
      for (const target of group.targets) {
        const id = `${target.address} ${target.port}`;
        if (seen.has(id)) continue;
        seen.add(id);
        targets.push(target);
      }
    }
  }
  return targets;
}
