/**
 * SRV answers to targets (RFC 2782 usage rules with RFC 3263 section 4.2): records in the
 * core's order (priority, then weighted draw), each expanded to its addresses. Target "."
 * means "not offered over this transport"; port 0 and hosts without address are skipped; an
 * alias is followed. All address lookups of a batch go out together.
 */
import { nameKey, type SrvData, type TypedRecord } from '@dnscore/core';
import { type AddressLookups, additionalAddresses, type HostAddress } from './addresses.js';
import type { ResolutionContext } from './context.js';
import { type DnssecLink, chainStatus, joinLinks, linkOf } from './dnssec-links.js';
import type { Answer } from './lookups.js';
import type { SipTarget, TargetSource } from './resolution.js';
import type { SipTransport } from './transport.js';

/** One SRV record that gave targets, with all of them (duplicates of earlier records included). */
export interface SrvGroup {
  readonly data: SrvData;
  readonly targets: readonly SipTarget[];
}

export interface SrvOutcome {
  readonly name: string;
  readonly transport: SipTransport;
  /** Targets with source "srv", in order. */
  readonly targets: readonly SipTarget[];
  /** The records behind `targets`, in the same order: a target plan draws their order again (RFC 2782). */
  readonly groups: readonly SrvGroup[];
  /** Some address and port is the target of more than one record. */
  readonly duplicates: boolean;
  /** Every record says target ".": the service is decidedly not offered over this transport. */
  readonly notOffered: boolean;
  /** SRV records in the answer. */
  readonly records: number;
  /** The answer, for negative TTLs. */
  readonly answer: Answer;
}

type SrvRecord = TypedRecord<'SRV'>;

export class SrvExpander {
  readonly #done = new Map<string, Promise<SrvOutcome>>();

  constructor(
    private readonly ctx: ResolutionContext,
    private readonly addresses: AddressLookups,
  ) {}

  /** Expands SRV answers together: their address lookups share one round. Each is expanded once. */
  expand(groups: readonly { readonly answer: Answer; readonly transport: SipTransport }[]): Promise<SrvOutcome[]> {
    const fresh = groups.filter((g) => !this.#done.has(key(g.answer.name, g.transport)));
    if (fresh.length > 0) {
      const batch = this.#expandBatch(fresh);
      for (const [i, g] of fresh.entries()) {
        this.#done.set(
          key(g.answer.name, g.transport),
          batch.then((outcomes) => outcomes[i]!),
        );
      }
    }
    return Promise.all(groups.map((g) => this.#done.get(key(g.answer.name, g.transport))!));
  }

  async #expandBatch(
    groups: readonly { readonly answer: Answer; readonly transport: SipTransport }[],
  ): Promise<SrvOutcome[]> {
    const { ctx } = this;
    const prepared = groups.map(({ answer, transport }) => {
      const result = ctx.use(answer);
      const all = (result?.records ?? []) as readonly SrvRecord[];
      // The first records in RFC 2782 order are the ones a client would try anyway.
      const records = all.slice(0, ctx.maxSrvRecords);
      if (all.length > records.length) {
        ctx.warn(
          'srv-records-capped',
          `${answer.name} has ${all.length} SRV records; only the first ${records.length} (in RFC 2782 order) are ` +
            `expanded`,
        );
      }
      const names = new Set(records.filter((r) => r.data.target !== '.').map((r) => nameKey(r.data.target)));
      const extra = result && names.size > 0 ? additionalAddresses(ctx, answer.name, result, names) : undefined;
      for (const step of extra?.steps ?? []) ctx.step(step);
      return { answer, transport, records, additional: extra?.byName ?? new Map<string, HostAddress[]>() };
    });
    // Every target not covered by additional data is looked up now, all at once.
    const lookups = new Map<string, ReturnType<AddressLookups['lookup']>>();
    for (const group of prepared) {
      for (const r of group.records) {
        const target = nameKey(r.data.target);
        if (r.data.target === '.' || r.data.port === 0 || group.additional.has(target) || lookups.has(target)) continue;
        lookups.set(target, this.addresses.lookup(r.data.target, group.answer.round));
      }
    }
    // Awaited together, so a second failure (bogus) is never left unobserved.
    const settled = await Promise.all(lookups.values());
    const found = new Map([...lookups.keys()].map((target, i) => [target, settled[i]!]));
    ctx.flush();
    return prepared.map((group) => this.#targets(group, found));
  }

  #targets(
    group: {
      answer: Answer;
      transport: SipTransport;
      records: readonly SrvRecord[];
      additional: Map<string, HostAddress[]>;
    },
    found: Map<string, Awaited<ReturnType<AddressLookups['lookup']>>>,
  ): SrvOutcome {
    const { ctx } = this;
    const { answer, transport, records } = group;
    const notOffered = records.length > 0 && records.every((r) => r.data.target === '.');
    const targets: SipTarget[] = [];
    const groups: SrvGroup[] = [];
    let duplicates = false;
    const seen = new Set<string>();
    const srvLinks: DnssecLink[] = answer.result ? [linkOf(answer.result)] : [];
    for (const record of records) {
      const { target, port, priority, weight } = record.data;
      const skip = (reason: string): void => ctx.step({ kind: 'skip', host: target, port, transport, reason });
      if (target === '.') {
        skip(`target "." in ${answer.name}: the service is not offered over ${transport.toUpperCase()}`);
        continue;
      }
      if (port === 0) {
        skip(`port 0 in ${answer.name}`);
        ctx.warn('srv-port-zero', `SRV record ${answer.name} -> ${target} has port 0: skipped`);
        continue;
      }
      const key = nameKey(target);
      const additional = group.additional.get(key);
      const looked = found.get(key);
      if (looked?.alias) {
        ctx.warn(
          'srv-target-alias',
          `SRV target ${target} (${answer.name}) is an alias of ${looked.alias}: RFC 2782 forbids aliases; followed`,
        );
      }
      const addresses = additional ?? looked?.addresses ?? [];
      if (addresses.length === 0) {
        skip(`${target} has no ${familiesText(ctx)} address`);
        ctx.warn(
          'srv-target-no-address',
          `SRV target ${target} (${answer.name}) has no ${familiesText(ctx)} address: skipped`,
        );
        continue;
      }
      const made: SipTarget[] = [];
      for (const a of addresses) {
        const links = joinLinks(srvLinks, a.links);
        const one: SipTarget = {
          transport,
          host: target,
          address: a.address,
          family: a.family,
          port,
          priority,
          weight,
          source: 'srv',
          expires: ctx.expires(record.ttl, a.ttl),
          dnssec: chainStatus(links),
          links,
        };
        made.push(one);
        const id = `${a.address} ${port}`;
        if (seen.has(id)) {
          duplicates = true;
          skip(`${a.address} port ${port} is already a target`);
          continue;
        }
        seen.add(id);
        targets.push(one);
      }
      groups.push({ data: record.data, targets: made });
    }
    return { name: answer.name, transport, targets, groups, duplicates, notOffered, records: records.length, answer };
  }
}

/**
 * The outcome's targets and groups under another source (NAPTR), expiring no later than `ttl`
 * seconds from now, resting on `links` (the NAPTR answer that led to them) as well.
 */
export function relabelOutcome(
  outcome: SrvOutcome,
  source: TargetSource,
  ctx: ResolutionContext,
  ttl: number,
  links: readonly DnssecLink[] = [],
): SrvOutcome {
  const moved = new Map<SipTarget, SipTarget>();
  const move = (t: SipTarget): SipTarget => {
    let m = moved.get(t);
    if (!m) {
      const joined = joinLinks(links, t.links);
      m = { ...t, source, expires: Math.min(t.expires, ctx.expires(ttl)), dnssec: chainStatus(joined), links: joined };
      moved.set(t, m);
    }
    return m;
  };
  return {
    ...outcome,
    targets: outcome.targets.map(move),
    groups: outcome.groups.map((g) => ({ data: g.data, targets: g.targets.map(move) })),
  };
}

function key(name: string, transport: SipTransport): string {
  return `${transport} ${nameKey(name)}`;
}

function familiesText(ctx: ResolutionContext): string {
  const { ipv4, ipv6 } = ctx.client;
  return ipv4 && ipv6 ? 'A or AAAA' : ipv6 ? 'AAAA' : 'A';
}
