/**
 * `dnscore sip --draws N`: N resolutions in a row, counting which SRV target came first. The
 * weighted draw happens in the core (RFC 2782 order), with the core's random source; seed it
 * once and the counts are repeatable, and over many draws they approach the weights.
 */
import { InvalidArgumentError } from '@dnscore/core';
import type { SipLocator } from './locator.js';
import { parseSipUri, type SipUri } from './uri.js';

export interface DrawCounts {
  readonly n: number;
  /** Host name of the first target -> how often it came first (SRV and NAPTR targets only), by name. */
  readonly first: Readonly<Record<string, number>>;
}

/** Most draws in one call. */
export const MAX_DRAWS = 1_000_000;

export async function drawFirstTargets(
  locator: SipLocator,
  uri: string | SipUri,
  n: number,
  options: { readonly signal?: AbortSignal } = {},
): Promise<DrawCounts> {
  if (!Number.isInteger(n) || n < 1 || n > MAX_DRAWS)
    throw new InvalidArgumentError(`the number of draws must be an integer in 1..${MAX_DRAWS}`);
  const parsed = typeof uri === 'string' ? parseSipUri(uri) : uri;
  const counts = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const first = (await locator.resolve(parsed, options)).targets[0];
    if (first && (first.source === 'srv' || first.source === 'naptr'))
      counts.set(first.host, (counts.get(first.host) ?? 0) + 1);
  }
  const first: Record<string, number> = {};
  for (const host of [...counts.keys()].sort()) first[host] = counts.get(host)!;
  return { n, first };
}
