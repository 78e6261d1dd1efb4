/**
 * The DNSSEC policy of a resolution, applied once its targets are known: each target is
 * joined with the answers that decided the rule, its status is the weakest of its links, and
 * 'require' drops what is not secure, 'prefer' warns about it.
 */
import type { ResolutionContext } from './context.js';
import { chainStatus, describeLink, joinLinks, weakestLink } from './dnssec-links.js';
import { InsecureTargetsError } from './errors.js';
import type { DnssecPolicy, SipTarget } from './resolution.js';

export function applyDnssecPolicy(
  ctx: ResolutionContext,
  targets: readonly SipTarget[],
  policy: DnssecPolicy,
): SipTarget[] {
  const joined = targets.map((t): SipTarget => {
    // A literal needs no DNS: no rule was decided by an answer for it.
    if (t.source === 'literal') return t;
    const links = joinLinks(ctx.deciding, t.links);
    return { ...t, dnssec: chainStatus(links), links };
  });
  if (policy === 'off') return joined;
  const kept: SipTarget[] = [];
  const named: string[] = [];
  for (const target of joined) {
    const weak = target.source === 'literal' ? undefined : weakestLink(target.links);
    if (!weak && (target.dnssec === 'secure' || target.source === 'literal')) {
      kept.push(target);
      continue;
    }
    const link = weak ? describeLink(weak) : 'no DNS answer';
    named.push(link);
    const where = `${target.address}:${target.port} ${target.transport.toUpperCase()} (${target.host})`;
    if (policy === 'prefer') {
      kept.push(target);
      ctx.warn('dnssec-insecure', `targets through ${link} are not DNSSEC-secure`);
      continue;
    }
    ctx.step({
      kind: 'skip',
      host: target.host,
      port: target.port,
      transport: target.transport,
      reason: `${where} is ${target.dnssec}: it rests on ${link}; DNSSEC policy "require"`,
    });
    ctx.warn('dnssec-dropped', `targets through ${link} dropped: DNSSEC policy "require" needs every link secure`);
  }
  if (policy === 'require' && joined.length > 0 && kept.length === 0) {
    throw new InsecureTargetsError(
      `DNSSEC policy "require": every target rests on an answer that is not secure (${[...new Set(named)].join('; ')})`,
      [...new Set(named)],
    );
  }
  return kept;
}
