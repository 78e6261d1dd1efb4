/**
 * What libunbound was configured to ask, for the query trace. libunbound does not say which
 * server it asked (nor whether it answered from its cache or local data), so the trace reports
 * what is true of every question: the stub zone that covers the name, else the forwarders (the
 * `nameservers` option, then resolv.conf's), else recursion from the root.
 */
import { readFileSync } from 'node:fs';
import { isSubdomain, parseName, type DnsQuery } from '@dnscore/core/plugin';

export interface UpstreamPlan {
  /** Stub zones ("biloxi.example.") with their addresses as libunbound takes them ("IP@PORT"). */
  readonly stubZones: readonly { readonly zone: string; readonly addresses: readonly string[] }[];
  /** Forwarders given as options, in order ("IP" or "IP@PORT"). */
  readonly forwarders: readonly string[];
  /** The resolv.conf libunbound reads forwarders from, if any. */
  readonly resolvConf: string | undefined;
}

export class Upstream {
  readonly #stubs: readonly { readonly zone: string; readonly depth: number; readonly text: string }[];
  /** "forwarders a, b" or "recursion": what a name outside every stub zone goes to. */
  readonly #default: string;

  constructor(plan: UpstreamPlan) {
    const stubs = new Map<string, string[]>();
    for (const { zone, addresses } of plan.stubZones) stubs.set(zone, [...(stubs.get(zone) ?? []), ...addresses]);
    // Deepest zone first: the most specific one covers a name (as libunbound chooses).
    this.#stubs = [...stubs.entries()]
      .map(([zone, addresses]) => ({
        zone,
        depth: parseName(zone).length,
        text: `stub zone ${zone}: ${addresses.join(', ')}`,
      }))
      .sort((a, b) => b.depth - a.depth);
    const forwarders = [...plan.forwarders, ...resolvConfNameservers(plan.resolvConf)];
    this.#default = forwarders.length > 0 ? `forwarders ${forwarders.join(', ')}` : 'recursion';
  }

  /** Who libunbound asks for `query`, as far as its configuration says. */
  describe(query: DnsQuery): string {
    for (const stub of this.#stubs) if (isSubdomain(query.name, stub.zone)) return stub.text;
    return this.#default;
  }
}

/** The `nameserver` lines of a resolv.conf, as libunbound's ub_ctx_resolvconf reads them; none if unreadable. */
function resolvConfNameservers(path: string | undefined): string[] {
  if (path === undefined) return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const servers: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    if (match) servers.push(match[1]!);
  }
  return servers;
}
