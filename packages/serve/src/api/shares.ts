/**
 * The exact chance that each SRV host is the first target of a draw, as a SIP target plan draws
 * (RFC 2782): within the lowest priority, a fresh random arrangement of the records, the weight-0
 * ones first, a pick uniform over the integers 0..sum, and the first record whose running sum of
 * weights reaches it. A record of weight w is first for w of the sum + 1 picks; pick 0 goes to
 * the first record of the arrangement: each weight-0 record equally (or, with none, each record).
 * A resolver without a cache makes no plan: the core then draws from the answer's order, and pick
 * 0 is the first weight-0 record's of that order, which this does not guess.
 */
import type { SipResolution } from '@dnscore/sip';

export interface ExpectedShare {
  readonly host: string;
  readonly priority: number;
  /** The host's SRV weight (the sum, when it has several records of its priority). */
  readonly weight: number;
  /**
   * First for `numerator` of `denominator` equally likely outcomes: k * (sum + 1), where sum is the
   * lowest priority's weights and k the number of its records that may take pick 0.
   */
  readonly numerator: number;
  readonly denominator: number;
  /** numerator / denominator. */
  readonly share: number;
  /** Its share holds a part of pick 0: it has a weight-0 record, or no record of its priority has weight 0. */
  readonly pickZero: boolean;
}

/**
 * Each SRV host of the chosen transport once, in priority order then by weight: its exact share
 * of first picks. A host of a larger priority number is never first while one of the lowest is
 * listed.
 */
export function expectedShares(resolution: SipResolution): ExpectedShare[] {
  const transport = resolution.transport;
  const hosts = new Map<string, { priority: number; weights: number[]; records: Set<string> }>();
  for (const t of resolution.targets) {
    if (t.transport !== transport || (t.source !== 'srv' && t.source !== 'naptr')) continue;
    const host = hosts.get(t.host);
    // One SRV record gives a target per address; another record of the same host adds its weight.
    const record = `${t.port} ${t.priority} ${t.weight}`;
    if (!host) hosts.set(t.host, { priority: t.priority, weights: [t.weight], records: new Set([record]) });
    else if (host.priority === t.priority && !host.records.has(record)) {
      host.records.add(record);
      host.weights.push(t.weight);
    }
  }
  if (hosts.size === 0) return [];
  const lowest = Math.min(...[...hosts.values()].map((h) => h.priority));
  const weights = [...hosts.values()].filter((h) => h.priority === lowest).flatMap((h) => h.weights);
  const sum = weights.reduce((s, w) => s + w, 0);
  const anyZero = weights.includes(0);
  // Records that may take pick 0: the weight-0 ones, or every one when none is 0.
  const takesPickZero = (w: number) => !anyZero || w === 0;
  const k = weights.filter(takesPickZero).length;
  const denominator = k * (sum + 1);
  return [...hosts.entries()]
    .map(([host, { priority, weights: own }]) => {
      const weight = own.reduce((s, w) => s + w, 0);
      const first = priority === lowest;
      const pickZeroParts = first ? own.filter(takesPickZero).length : 0;
      const numerator = first ? k * weight + pickZeroParts : 0;
      return {
        host,
        priority,
        weight,
        numerator,
        denominator,
        share: numerator / denominator,
        pickZero: pickZeroParts > 0,
      };
    })
    .sort((a, b) => a.priority - b.priority || b.weight - a.weight || (a.host < b.host ? -1 : 1));
}
