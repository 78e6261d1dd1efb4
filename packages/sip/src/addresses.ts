/**
 * Addresses of a host name: AAAA and A asked together (only for the families the client has
 * on), CNAMEs followed and reported, each name looked up once per resolution. And the one
 * place additional-section A/AAAA may stand in for a query (ARCHITECTURE.md, decisions).
 */
import { RRType, formatName, isSubdomain, nameKey, parseName, type DnsResult } from '@dnscore/core';
import type { ResolutionContext } from './context.js';
import { type DnssecLink, linkOf } from './dnssec-links.js';
import type { AdditionalStep, QueryType } from './resolution.js';
import type { AddressFamily } from './transport.js';

export interface HostAddress {
  readonly address: string;
  readonly family: AddressFamily;
  readonly ttl: number;
  /** The answers this address rests on (the A or AAAA answer and any CNAME hop before it). */
  readonly links: readonly DnssecLink[];
}

export interface HostAddresses {
  readonly name: string;
  /** In the client's family order (AAAA first when IPv6 is preferred). */
  readonly addresses: readonly HostAddress[];
  /** End of the CNAME chain when the name is an alias. */
  readonly alias?: string;
  /** The round of the last answer this depended on. */
  readonly round: number;
}

/** Address types to ask, in target order. */
export function addressTypes(ctx: ResolutionContext): ('AAAA' | 'A')[] {
  const { ipv4, ipv6, preferIpv6 } = ctx.client;
  const types: ('AAAA' | 'A')[] = [];
  if (ipv6 && preferIpv6) types.push('AAAA');
  if (ipv4) types.push('A');
  if (ipv6 && !preferIpv6) types.push('AAAA');
  return types;
}

export class AddressLookups {
  readonly #known = new Map<string, Promise<HostAddresses>>();

  constructor(private readonly ctx: ResolutionContext) {}

  /** Addresses of `name`, asked after an answer of round `after`. */
  lookup(name: string, after: number): Promise<HostAddresses> {
    const key = nameKey(name);
    let known = this.#known.get(key);
    if (!known) {
      known = this.#lookup(name, after);
      this.#known.set(key, known);
    }
    return known;
  }

  async #lookup(name: string, after: number): Promise<HostAddresses> {
    const chains = await Promise.all(addressTypes(this.ctx).map((type) => this.#follow(name, type, after)));
    const addresses = withoutMappedTwins(chains.flatMap((c) => c.addresses));
    const alias = chains.find((c) => c.canonical !== undefined && nameKey(c.canonical) !== nameKey(name))?.canonical;
    return { name, addresses, ...(alias ? { alias } : {}), round: Math.max(after, ...chains.map((c) => c.round)) };
  }

  /** One type, following a CNAME chain that the answer leaves unfinished. */
  async #follow(
    name: string,
    type: 'A' | 'AAAA',
    after: number,
  ): Promise<{ addresses: HostAddress[]; canonical?: string; round: number }> {
    let current = name;
    let round = after;
    const links: DnssecLink[] = [];
    for (let hop = 0; hop <= this.ctx.maxCnameHops; hop++) {
      const answer = await this.ctx.lookups.ask(current, type, round);
      round = answer.round;
      const result = this.ctx.use(answer);
      if (!result) return { addresses: [], round };
      links.push(linkOf(result));
      if (result.records.length > 0)
        return {
          addresses: capAddresses(this.ctx, current, type, addressesOf(result, links)),
          canonical: result.canonical,
          round,
        };
      if (result.rcode !== 0 || nameKey(result.canonical) === nameKey(current))
        return { addresses: [], canonical: result.canonical, round };
      if (hop === this.ctx.maxCnameHops) break;
      this.ctx.step({
        kind: 'note',
        message: `${current} is an alias of ${result.canonical}; asking ${type} for ${result.canonical}`,
      });
      current = result.canonical;
    }
    this.ctx.step({
      kind: 'note',
      message: `${name} ${type}: CNAME chain longer than ${this.ctx.maxCnameHops} hops; given up`,
    });
    return { addresses: [], round };
  }
}

/**
 * An AAAA record holding an IPv4-mapped address (::ffff:192.0.2.1) names the IPv4 node an A
 * record of the same host lists too: one target, the A one, not the same server twice.
 */
function withoutMappedTwins(addresses: HostAddress[]): HostAddress[] {
  const ipv4 = new Set(addresses.flatMap((a) => (a.family === 4 ? [a.address] : [])));
  if (ipv4.size === 0) return addresses;
  return addresses.filter((a) => {
    const mapped = a.family === 6 ? /^::ffff:([0-9.]+)$/.exec(a.address) : null;
    return !mapped || !ipv4.has(mapped[1]!);
  });
}

/** The first ctx.maxAddresses of one record set, with a warning when it had more. */
function capAddresses(
  ctx: ResolutionContext,
  name: string,
  type: 'A' | 'AAAA',
  addresses: HostAddress[],
): HostAddress[] {
  if (addresses.length <= ctx.maxAddresses) return addresses;
  ctx.warn(
    'addresses-capped',
    `${name} has ${addresses.length} ${type} records; only the first ${ctx.maxAddresses} are used`,
  );
  return addresses.slice(0, ctx.maxAddresses);
}

function addressesOf(result: DnsResult, links: readonly DnssecLink[]): HostAddress[] {
  return result.records.flatMap((r) =>
    r.type === 'A' || r.type === 'AAAA'
      ? [{ address: r.data as string, family: (r.type === 'A' ? 4 : 6) as AddressFamily, ttl: r.ttl, links }]
      : [],
  );
}

/** "_sip._udp.biloxi.example" -> "biloxi.example": the domain the SRV question was about. */
export function srvDomain(owner: string): string {
  const labels = parseName(owner);
  let i = 0;
  while (i < labels.length - 1 && labels[i]![0] === 0x5f) i++;
  return formatName(labels.slice(i));
}

/**
 * Additional-section addresses usable for the targets of an SRV answer: only for names that
 * are targets in that answer, at or below the queried domain, in a family the client has on.
 * A target with any usable address there is taken as complete (the server adds every address
 * of a name it holds), so it gets no query of its own.
 */
export function additionalAddresses(
  ctx: ResolutionContext,
  srvOwner: string,
  result: DnsResult,
  targets: ReadonlySet<string>,
): { readonly byName: Map<string, HostAddress[]>; readonly steps: AdditionalStep[] } {
  const domain = srvDomain(srvOwner);
  // Most validators check the answer section only: unvalidated addresses must not ride on a
  // secure answer. A backend that validated them too says so (additionalSecure).
  const unvalidatedOnSecure = result.secure && !result.additionalSecure;
  const validated = result.additionalSecure;
  const families = new Set(addressTypes(ctx));
  const grouped = new Map<string, { name: string; records: HostAddress[] }>();
  for (const r of result.additional) {
    if (r.rrtype !== RRType.A && r.rrtype !== RRType.AAAA) continue;
    const key = nameKey(r.name);
    const group = grouped.get(key) ?? { name: r.name, records: [] };
    const type = r.rrtype === RRType.A ? 'A' : 'AAAA';
    // Secure only when the backend validated the additional section too.
    const link: DnssecLink = {
      name: r.name,
      type,
      dnssec: validated ? 'secure' : 'insecure',
      note: `additional section of ${srvOwner}${validated ? ', validated' : ''}`,
    };
    group.records.push({ address: r.data as string, family: type === 'A' ? 4 : 6, ttl: r.ttl, links: [link] });
    grouped.set(key, group);
  }
  const byName = new Map<string, HostAddress[]>();
  const steps: AdditionalStep[] = [];
  // The core already refuses additional records outside the question's domain (RFC 5452): say so.
  const refused = new Set<string>();
  for (const dropped of result.dropped) {
    if (
      dropped.rule !== 'out-of-bailiwick' ||
      (dropped.type !== 'A' && dropped.type !== 'AAAA') ||
      refused.has(nameKey(dropped.name))
    )
      continue;
    refused.add(nameKey(dropped.name));
    steps.push({
      kind: 'additional',
      srv: srvOwner,
      host: dropped.name,
      addresses: [],
      used: false,
      reason: `outside ${domain}, the domain asked about: refused by the core, it gets its own query if it is a target`,
    });
  }
  for (const [key, { name, records }] of grouped) {
    const step = (used: boolean, reason: string, shown = records): void => {
      steps.push({
        kind: 'additional',
        srv: srvOwner,
        host: name,
        addresses: shown.map((a) => a.address),
        used,
        reason,
      });
    };
    if (unvalidatedOnSecure) {
      step(false, 'the SRV answer is DNSSEC-secure but additional data is not validated: asked instead');
      continue;
    }
    if (!targets.has(key)) {
      step(false, 'not a target of this SRV answer');
      continue;
    }
    if (!isSubdomain(name, domain)) {
      step(
        false,
        `outside ${domain}, the domain asked about: it gets its own query (additional data cannot prove a zone cut)`,
      );
      continue;
    }
    const usable = records.filter((a) => families.has(a.family === 6 ? 'AAAA' : 'A'));
    if (usable.length === 0) {
      step(false, `IPv${records[0]!.family} is off`);
      continue;
    }
    const ordered = withoutMappedTwins(
      addressTypes(ctx).flatMap((t: QueryType) =>
        capAddresses(
          ctx,
          name,
          t as 'A' | 'AAAA',
          usable.filter((a) => (a.family === 6) === (t === 'AAAA')),
        ),
      ),
    );
    byName.set(key, ordered);
    step(true, `used instead of A/AAAA queries (a target of this answer, inside ${domain})`, ordered);
  }
  return { byName, steps };
}
