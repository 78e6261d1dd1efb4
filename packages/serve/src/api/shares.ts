/**
 * The exact chance that each SRV host is the first target of a draw, as `orderSrv` draws (RFC
 * 2782): within the lowest priority, the weight-0 records first and then the others, a pick
 * uniform over the integers 0..sum, and the first record whose running sum of weights reaches
 * it. A record of weight w is first for w of the sum + 1 picks; pick 0 goes to the first record
 * of that running order: the weight-0 record when there is exactly one, else whichever of the
 * weight-0 records (or, with none, of all) the draw was handed first. That is the answer's order,
 * or for a SIP target plan the order of the draw that made it (kept for the plan's life), so it
 * is said, not guessed.
 */
import type { SipResolution } from '@dnscore/sip';

export interface ExpectedShare {
  readonly host: string;
  readonly priority: number;
  /** The host's SRV weight (the sum, when it has several records of its priority). */
  readonly weight: number;
  /** First for `numerator` of `denominator` equally likely picks (sum of the lowest priority's weights + 1). */
  readonly numerator: number;
  readonly denominator: number;
  /** numerator / denominator. */
  readonly share: number;
  /**
   * Pick 0 (one more of `denominator`) is this host's when it comes first in the order the draw
   * is handed; true for each of the hosts that may: the weight-0 ones, or every one when none is 0.
   */
  readonly pickZero: boolean;
}

/**
 * Each SRV host of the chosen transport once, in priority order then by weight: its exact share
 * of first picks. A host of a larger priority number is never first while one of the lowest is
 * listed.
 */
export function expectedShares(resolution: SipResolution): ExpectedShare[] {
  const transport = resolution.transport;
  const hosts = new Map<string, { priority: number; weight: number; ports: Set<string> }>();
  for (const t of resolution.targets) {
    if (t.transport !== transport || (t.source !== 'srv' && t.source !== 'naptr')) continue;
    const host = hosts.get(t.host);
    // One SRV record gives a target per address; another record of the same host adds its weight.
    const record = `${t.port} ${t.priority} ${t.weight}`;
    if (!host) hosts.set(t.host, { priority: t.priority, weight: t.weight, ports: new Set([record]) });
    else if (host.priority === t.priority && !host.ports.has(record)) {
      host.ports.add(record);
      host.weight += t.weight;
    }
  }
  if (hosts.size === 0) return [];
  const lowest = Math.min(...[...hosts.values()].map((h) => h.priority));
  const group = [...hosts.entries()].filter(([, h]) => h.priority === lowest);
  const denominator = group.reduce((s, [, h]) => s + h.weight, 0) + 1;
  const zero = group.filter(([, h]) => h.weight === 0);
  const pickZeroHosts = new Set((zero.length > 0 ? zero : group).map(([host]) => host));
  const certain = pickZeroHosts.size === 1;
  return [...hosts.entries()]
    .map(([host, { priority, weight }]) => {
      const first = priority === lowest;
      const numerator = first ? weight + (certain && pickZeroHosts.has(host) ? 1 : 0) : 0;
      return {
        host,
        priority,
        weight,
        numerator,
        denominator,
        share: numerator / denominator,
        pickZero: first && !certain && pickZeroHosts.has(host),
      };
    })
    .sort((a, b) => a.priority - b.priority || b.weight - a.weight || (a.host < b.host ? -1 : 1));
}
