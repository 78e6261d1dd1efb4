/**
 * What an application without dnscore would write with node:dns (a private `dns.Resolver`
 * pointed at the bench's server), for an RFC 3263 client with UDP, TCP and TLS:
 * - `sequentialWalk`: one question at a time, NAPTR -> SRV -> A, never the same one twice;
 * - `parallelWalk`: the best node:dns can do: NAPTR and the three SRV names together, then
 *   A and AAAA of every target together (two round trips; it has no additional section).
 * Both return targets as "transport address port", in the order found.
 */
import { promises as dnsPromises, type NaptrRecord, type SrvRecord } from 'node:dns';

type Resolver = dnsPromises.Resolver;
type Transport = 'tls' | 'tcp' | 'udp';

const SRV_OWNERS: readonly (readonly [Transport, string])[] = [
  ['tls', '_sips._tcp'],
  ['tcp', '_sip._tcp'],
  ['udp', '_sip._udp'],
];
const NAPTR_SERVICES: Record<string, Transport> = { 'SIPS+D2T': 'tls', 'SIP+D2T': 'tcp', 'SIP+D2U': 'udp' };

/** A new private resolver asking `endpoint` ("127.0.0.1:PORT") only, with c-ares's cache empty. */
export function nodeResolver(endpoint: string, timeoutMs = 2000): Resolver {
  const resolver = new dnsPromises.Resolver({ timeout: timeoutMs, tries: 1 });
  resolver.setServers([endpoint]);
  return resolver;
}

/** NODATA and NXDOMAIN are "no records" to a walk; anything else is a failure. */
async function orEmpty<T>(ask: Promise<T[]>): Promise<T[]> {
  try {
    return await ask;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
    throw error;
  }
}

interface Branch {
  readonly transport: Transport;
  readonly owner: string;
}

/** The NAPTR records a SIP client with all three transports uses, lowest order then preference. */
function naptrBranch(records: readonly NaptrRecord[]): Branch | undefined {
  const usable = records
    .filter((r) => r.flags.toLowerCase() === 's' && NAPTR_SERVICES[r.service.toUpperCase()] !== undefined)
    .sort((a, b) => a.order - b.order || a.preference - b.preference);
  const first = usable[0];
  return first ? { transport: NAPTR_SERVICES[first.service.toUpperCase()]!, owner: first.replacement } : undefined;
}

function byPriority(records: SrvRecord[]): SrvRecord[] {
  return [...records].sort((a, b) => a.priority - b.priority || b.weight - a.weight);
}

export async function sequentialWalk(resolver: Resolver, host: string): Promise<string[]> {
  const branch = naptrBranch(await orEmpty(resolver.resolveNaptr(host)));
  const branches: Branch[] = branch
    ? [branch]
    : SRV_OWNERS.map(([transport, prefix]) => ({ transport, owner: `${prefix}.${host}` }));
  const srv: { transport: Transport; target: string; port: number }[] = [];
  for (const b of branches) {
    for (const r of byPriority(await orEmpty(resolver.resolveSrv(b.owner))))
      srv.push({ transport: b.transport, target: r.name, port: r.port });
  }
  const addresses = new Map<string, string[]>();
  for (const { target } of srv) {
    if (!addresses.has(target)) addresses.set(target, await orEmpty(resolver.resolve4(target)));
  }
  if (srv.length === 0) {
    // No SRV: A records of the host at the default port (RFC 3263 section 4.2).
    return (await orEmpty(resolver.resolve4(host))).map((a) => `udp ${a} 5060`);
  }
  return srv.flatMap((s) => (addresses.get(s.target) ?? []).map((a) => `${s.transport} ${a} ${s.port}`));
}

export async function parallelWalk(resolver: Resolver, host: string): Promise<string[]> {
  const [naptr, ...srvSets] = await Promise.all([
    orEmpty(resolver.resolveNaptr(host)),
    ...SRV_OWNERS.map(([, prefix]) => orEmpty(resolver.resolveSrv(`${prefix}.${host}`))),
  ]);
  const branch = naptrBranch(naptr as NaptrRecord[]);
  let chosen: { transport: Transport; records: SrvRecord[] }[];
  if (branch) {
    const known = SRV_OWNERS.findIndex(
      ([, prefix]) => `${prefix}.${host}`.toLowerCase() === branch.owner.toLowerCase(),
    );
    const records = known >= 0 ? (srvSets[known] as SrvRecord[]) : await orEmpty(resolver.resolveSrv(branch.owner));
    chosen = [{ transport: branch.transport, records }];
  } else {
    chosen = SRV_OWNERS.map(([transport], i) => ({ transport, records: srvSets[i] as SrvRecord[] }));
  }
  const targets = [...new Set(chosen.flatMap((c) => c.records.map((r) => r.name)))];
  const found = await Promise.all(
    targets.map(async (t) => {
      const [v6, v4] = await Promise.all([orEmpty(resolver.resolve6(t)), orEmpty(resolver.resolve4(t))]);
      return [t, [...v6, ...v4]] as const;
    }),
  );
  const addresses = new Map(found);
  return chosen.flatMap((c) =>
    byPriority(c.records).flatMap((r) => (addresses.get(r.name) ?? []).map((a) => `${c.transport} ${a} ${r.port}`)),
  );
}

/**
 * The warm-throughput unit for node:dns (the "resolveSrv + resolve4"): the SRV of one
 * transport, then A of each of its targets together.
 */
export async function srvThenA(resolver: Resolver, owner: string, transport: Transport): Promise<string[]> {
  const records = await resolver.resolveSrv(owner);
  const addresses = await Promise.all(records.map((r) => resolver.resolve4(r.name)));
  return records.flatMap((r, i) => addresses[i]!.map((a) => `${transport} ${a} ${r.port}`));
}
