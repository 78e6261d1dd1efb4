/**
 * Why an answer is insecure when its zone is signed: every algorithm of the zone's DNSKEYs is
 * one this libunbound cannot validate, so it treats the zone as unsigned (RFC 4035 section
 * 5.2) where another validator says secure. `dnscore resolve` says so on stderr.
 */
import { formatName, parseName, type DnsApi } from '@dnscore/core';

/** What the CLI needs of the libunbound backend. */
export interface AlgorithmSupport {
  readonly name: string;
  dnssecSupport(): Promise<{
    readonly algorithms: readonly { readonly number: number; readonly name: string; readonly validates: boolean }[];
  }>;
}

/**
 * The sentence for `name` (an insecure answer's canonical name), or undefined when its zone is
 * unsigned or signed with an algorithm that validates. Asks DNSKEY of `name` and its parents
 * until a zone answers with keys.
 */
export async function unsupportedAlgorithmNote(
  dns: DnsApi,
  validator: AlgorithmSupport,
  name: string,
): Promise<string | undefined> {
  const support = await validator.dnssecSupport();
  const labels = parseName(name);
  for (let i = 0; i < labels.length; i++) {
    const zone = formatName(labels.slice(i));
    let algorithms: number[];
    try {
      const result = await dns.resolve(zone, 'DNSKEY');
      algorithms = result.records.flatMap((r) =>
        r.data instanceof Uint8Array && r.data.length > 3 ? [r.data[3]!] : [],
      );
    } catch {
      return undefined;
    }
    if (algorithms.length === 0) continue;
    const known = new Map(support.algorithms.map((a) => [a.number, a]));
    if (algorithms.some((n) => known.get(n)?.validates !== false)) return undefined;
    const names = [...new Set(algorithms)].map((n) => `${n} (${known.get(n)?.name ?? 'unknown'})`).join(', ');
    return (
      `${zone} is signed only with algorithm ${names}, which this libunbound cannot validate: it is treated as ` +
      `unsigned (RFC 4035 section 5.2)`
    );
  }
  return undefined;
}
