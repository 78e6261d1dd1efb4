/**
 * A resolution's targets in parts: fixed lists (an IP literal, A/AAAA of a host) and SRV
 * answers kept as their records, each with its targets. Laid out in the order the core drew,
 * they are the targets of that resolution; a target plan lays them out again with a new
 * RFC 2782 draw for every request, each from a new random arrangement of every priority's
 * records (the RFC's "any order"), so pick 0 of the running sum has no favourite.
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
  /**
   * Room for the same records, arranged anew before each draw: the segment's own scratch, so a
   * draw allocates nothing more than `orderSrv` does. layOut() is synchronous, so no draw sees another's.
   */
  readonly arrangement: SrvGroup[];
}

export function srvSegmentOf(groups: readonly SrvGroup[], duplicates: boolean): SrvSegment {
  return { kind: 'srv', groups, duplicates, arrangement: [...groups] };
}

export function fixedSegment(targets: readonly SipTarget[]): TargetSegment[] {
  return [{ kind: 'fixed', targets }];
}

/** The records of an SRV answer that gave targets; none when it gave none. */
export function srvSegment(outcome: SrvOutcome): TargetSegment[] {
  return outcome.groups.length === 0 ? [] : [srvSegmentOf(outcome.groups, outcome.duplicates)];
}

/**
 * The targets, segment after segment; each SRV segment's records drawn again with `random` (from
 * a fresh random arrangement), or kept in the order given without it. An address and port
 * already listed by an earlier record of the same answer is left out.
 */
export function layOut(segments: readonly TargetSegment[], random?: RandomSource): SipTarget[] {
  const targets: SipTarget[] = [];
  for (const segment of segments) {
    if (segment.kind === 'fixed') {
      for (const target of segment.targets) targets.push(target);
      continue;
    }
    const groups =
      random && segment.groups.length > 1
        ? orderSrv(arrange(segment.groups, segment.arrangement, random), random)
        : segment.groups;
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

/**
 * Writes into `into` a uniformly random arrangement of each run of equal priority of `records`
 * (Fisher-Yates "inside-out": one random number per record but the first of a run), from the
 * order given, so every draw's arrangement depends on its own numbers alone. RFC 2782 lets a
 * client arrange a priority's records in any order before its running-sum draw, weight-0 ones
 * first (orderSrv does that part, stably); the order it was handed would make the first of them
 * the owner of pick 0 on every draw.
 */
function arrange(records: readonly SrvGroup[], into: SrvGroup[], random: RandomSource): SrvGroup[] {
  for (let start = 0; start < records.length; ) {
    const priority = records[start]!.data.priority;
    into[start] = records[start]!;
    let i = start + 1;
    for (; i < records.length && records[i]!.data.priority === priority; i++) {
      const j = start + Math.min(i - start, Math.floor(random() * (i - start + 1)));
      into[i] = into[j]!;
      into[j] = records[i]!;
    }
    start = i;
  }
  return into;
}
