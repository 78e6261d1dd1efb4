/**
 * The cap on targets per resolution (`maxTargets`, PJSIP's 32). It bounds the work a hostile
 * zone can cause, not which servers are reachable: when some of the first ones are in the
 * penalty box, open targets past the cap take their places, so a walk is never left with dead
 * servers while live ones were cut. The kept targets stay in their order (the cursor hands out
 * boxed ones last anyway).
 */
import type { SipTarget, SipWarning } from './resolution.js';

export interface CappedTargets {
  readonly targets: SipTarget[];
  /** Boxed targets among the first `max` that open ones past the cap replaced. */
  readonly replaced: number;
}

/** The `targets-capped` warning of `found` targets cut to `max`, `replaced` of them for boxed ones. */
export function capWarning(found: number, max: number, replaced: number): SipWarning {
  return {
    code: 'targets-capped',
    message:
      replaced === 0
        ? `${found} targets found; only the first ${max} are kept`
        : `${found} targets found; ${max} kept: ${replaced} past the cap in place of as many in the penalty box`,
  };
}

export function capTargets(
  targets: readonly SipTarget[],
  max: number,
  isBoxed: (target: SipTarget) => boolean,
): CappedTargets {
  if (targets.length <= max) return { targets: [...targets], replaced: 0 };
  // The box is read only as far as needed: up to the max-th open target (the first max when none is boxed).
  const open = new Set<number>();
  const boxed: number[] = [];
  for (let i = 0; i < targets.length && open.size < max; i++) {
    if (isBoxed(targets[i]!)) boxed.push(i);
    else open.add(i);
  }
  // Every open target found, then the first boxed ones to fill the cap.
  const fill = new Set(boxed.slice(0, max - open.size));
  const kept: SipTarget[] = [];
  let replaced = 0;
  for (const [i, target] of targets.entries()) {
    if (!open.has(i) && !fill.has(i)) continue;
    kept.push(target);
    if (open.has(i) && i >= max) replaced++;
  }
  return { targets: kept, replaced };
}
