/**
 * The cap on targets per resolution (`maxTargets`, PJSIP's 32). It bounds the work a hostile
 * zone can cause, not which servers are reachable: when some of the first ones are in the
 * penalty box, open targets past the cap take their places, so a walk is never left with dead
 * servers while live ones were cut. The kept targets stay in their order (the cursor hands out
 * boxed ones last anyway).
 */
import type { SipTarget } from './resolution.js';

export interface CappedTargets {
  readonly targets: SipTarget[];
  /** Boxed targets among the first `max` that open ones past the cap replaced. */
  readonly replaced: number;
}

export function capTargets(
  targets: readonly SipTarget[],
  max: number,
  isBoxed: (target: SipTarget) => boolean,
): CappedTargets {
  if (targets.length <= max) return { targets: [...targets], replaced: 0 };
  const boxed = targets.map(isBoxed);
  const open = boxed.reduce((n, b) => n + (b ? 0 : 1), 0);
  // Every open target first (up to the cap), then the boxed ones in order to fill it.
  let boxedRoom = Math.max(0, max - open);
  let openRoom = max - boxedRoom;
  const kept: SipTarget[] = [];
  let replaced = 0;
  for (const [i, target] of targets.entries()) {
    if (boxed[i] ? boxedRoom-- > 0 : openRoom-- > 0) {
      kept.push(target);
      if (!boxed[i] && i >= max) replaced++;
    }
  }
  return { targets: kept, replaced };
}
