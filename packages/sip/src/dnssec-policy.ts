/**
 * The DNSSEC policy of a resolution, applied once its targets are known: each target is
 * joined with the answers that decided the rule, its status is the weakest of its links, and
 * 'require' drops what is not secure, 'prefer' warns about it. It works on the resolution's
 * segments, so a target plan keeps the joined statuses and the drops for every later draw.
 */
import type { ResolutionContext } from './context.js';
import { type DnssecLink, chainStatus, describeLink, joinLinks, weakestLink } from './dnssec-links.js';
import { InsecureTargetsError } from './errors.js';
import type { DnssecPolicy, SipTarget } from './resolution.js';
import { layOut, srvSegmentOf, type TargetSegment } from './target-segments.js';

/**
 * The segments with every target joined with the deciding links, and under 'require' without
 * the targets that are not secure. The steps and warnings name the targets in the order the
 * core drew (a duplicate left out of that order follows the same rule, silently). Throws
 * InsecureTargetsError when 'require' keeps none.
 */
export function applyDnssecPolicy(
  ctx: ResolutionContext,
  segments: readonly TargetSegment[],
  policy: DnssecPolicy,
): TargetSegment[] {
  const decided = new Map<SipTarget, SipTarget | undefined>();
  const named: string[] = [];
  const drawn = layOut(segments);
  for (const target of drawn) decided.set(target, decide(ctx, target, policy, named));
  if (policy === 'require' && drawn.length > 0 && named.length === drawn.length) {
    const links = [...new Set(named)];
    throw new InsecureTargetsError(
      `DNSSEC policy "require": every target rests on an answer that is not secure (${links.join('; ')})`,
      links,
    );
  }
  const keep = (target: SipTarget): SipTarget | undefined =>
    decided.has(target) ? decided.get(target) : decide(undefined, joined(ctx.deciding, target), policy, []);
  const kept: TargetSegment[] = [];
  for (const segment of segments) {
    if (segment.kind === 'fixed') {
      kept.push({ kind: 'fixed', targets: present(segment.targets.map(keep)) });
      continue;
    }
    const groups = segment.groups
      .map((group) => ({ data: group.data, targets: present(group.targets.map(keep)) }))
      .filter((group) => group.targets.length > 0);
    if (groups.length > 0) kept.push(srvSegmentOf(groups, segment.duplicates));
  }
  return kept;
}

/**
 * The target joined with the deciding links, or undefined when the policy drops it. With a
 * context, a target that is not secure gets its step or warning, and its weakest link is
 * added to `named`.
 */
function decide(
  ctx: ResolutionContext | undefined,
  original: SipTarget,
  policy: DnssecPolicy,
  named: string[],
): SipTarget | undefined {
  const target = ctx ? joined(ctx.deciding, original) : original;
  if (policy === 'off') return target;
  const weak = target.source === 'literal' ? undefined : weakestLink(target.links);
  if (!weak && (target.dnssec === 'secure' || target.source === 'literal')) return target;
  const link = weak ? describeLink(weak) : 'no DNS answer';
  named.push(link);
  if (policy === 'prefer') {
    ctx?.warn('dnssec-insecure', `targets through ${link} are not DNSSEC-secure`);
    return target;
  }
  const where = `${target.address}:${target.port} ${target.transport.toUpperCase()} (${target.host})`;
  ctx?.step({
    kind: 'skip',
    host: target.host,
    port: target.port,
    transport: target.transport,
    reason: `${where} is ${target.dnssec}: it rests on ${link}; DNSSEC policy "require"`,
  });
  ctx?.warn('dnssec-dropped', `targets through ${link} dropped: DNSSEC policy "require" needs every link secure`);
  return undefined;
}

/** A target resting on the answers that decided the rule as well; a literal needs no DNS. */
function joined(deciding: readonly DnssecLink[], target: SipTarget): SipTarget {
  if (target.source === 'literal') return target;
  const links = joinLinks(deciding, target.links);
  return { ...target, dnssec: chainStatus(links), links };
}

function present(targets: readonly (SipTarget | undefined)[]): SipTarget[] {
  return targets.filter((t): t is SipTarget => t !== undefined);
}
