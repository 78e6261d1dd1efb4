/**
 * RFC 3263 section 4 for one URI: the rule that picks the transport, and the targets. The
 * first round asks NAPTR, the SRV owners and A/AAAA of the TARGET together (only for what the
 * client supports), so a zone whose SRV answers carry their addresses resolves in one round trip.
 */
import { AddressLookups, addressTypes } from './addresses.js';
import type { ResolutionContext } from './context.js';
import { NoTargetsError } from './errors.js';
import { naptrKey, naptrOrder, type NaptrChoice, type NaptrRef, type NaptrSkip } from './naptr-memory.js';
import { selectNaptr, type NaptrCandidate, type NaptrRecord } from './naptr-selection.js';
import type { NaptrStep, SelectionRule, SipTarget } from './resolution.js';
import { SrvExpander, relabelOutcome, type SrvOutcome } from './srv-targets.js';
import { fixedSegment, srvSegment, type TargetSegment } from './target-segments.js';
import { defaultTransport, fixedTransport } from './transport-selection.js';
import { defaultPort, srvName, type SipTransport } from './transport.js';
import { uriTarget, type SipUri } from './uri.js';
import { SRV_TRANSPORT_ORDER } from './defaults.js';
import { chainStatus, linkOf } from './dnssec-links.js';

export interface ProcedureResult {
  readonly rule: SelectionRule;
  /** The targets in parts, so a target plan can draw the SRV order again (RFC 2782). */
  readonly segments: readonly TargetSegment[];
  /** Rule 'naptr' only: the NAPTR followed and the others of its order. */
  readonly naptr?: NaptrChoice;
}

export async function runProcedure(
  ctx: ResolutionContext,
  uri: SipUri,
  onRule: (rule: SelectionRule) => void,
): Promise<ProcedureResult> {
  const target = uriTarget(uri);
  if (target.from === 'maddr') {
    ctx.step({
      kind: 'note',
      message: `TARGET is the maddr parameter ${target.host}, not the host ${uri.host} (RFC 3263 section 4)`,
    });
  }
  if (uri.transport === 'tls') {
    ctx.warn(
      'transport-tls-deprecated',
      uri.scheme === 'sips'
        ? 'transport=tls is deprecated (RFC 3261 section 26.2.2): a sips: URI means TLS already; drop the parameter'
        : 'transport=tls is deprecated (RFC 3261 section 26.2.2): use a sips: URI for TLS',
    );
  }
  const fixed = fixedTransport(uri, ctx.client);
  const addresses = new AddressLookups(ctx);
  const srv = new SrvExpander(ctx, addresses);
  if (fixed) {
    onRule(fixed.rule);
    ctx.step({ kind: 'rule', rule: fixed.rule, outcome: 'applies', transport: fixed.transport, reason: fixed.reason });
    if (target.kind !== 'hostname') {
      ctx.warn('ip-literal', `the URI's TARGET is the IP address ${target.host}: one target, no DNS, no failover`);
      const port = uri.port ?? defaultPort(fixed.transport);
      const family = target.kind === 'ipv6' ? 6 : 4;
      return {
        rule: fixed.rule,
        segments: fixedSegment([
          {
            transport: fixed.transport,
            host: target.host,
            address: target.host,
            family,
            port,
            priority: 0,
            weight: 0,
            source: 'literal',
            expires: Number.POSITIVE_INFINITY,
            // No DNS, so nothing validated (and nothing to forge: the policy lets it through).
            dnssec: 'insecure',
            links: [],
          },
        ]),
      };
    }
    if (uri.port !== undefined) {
      ctx.warn(
        'port-in-uri',
        `the URI gives port ${uri.port}: NAPTR and SRV are not used, so there is no DNS load sharing or priority ` +
          `failover (remove the port to get them)`,
      );
      return {
        rule: fixed.rule,
        segments: fixedSegment(await hostTargets(ctx, addresses, target.host, fixed.transport, uri.port)),
      };
    }
    return { rule: fixed.rule, segments: await transportSrv(ctx, addresses, srv, target.host, fixed.transport) };
  }
  return discover(ctx, uri, target.host, addresses, srv, onRule);
}

/** transport= without a port: SRV of that transport, else A/AAAA at its default port (RFC 3263 section 4.2). */
async function transportSrv(
  ctx: ResolutionContext,
  addresses: AddressLookups,
  srv: SrvExpander,
  host: string,
  transport: SipTransport,
): Promise<TargetSegment[]> {
  const owner = srvName(transport, host);
  const [answer] = await Promise.all([ctx.lookups.ask(owner, 'SRV', 0), askAddresses(ctx, host)]);
  ctx.flush();
  const [outcome] = await srv.expand([{ answer, transport }]);
  if (outcome!.targets.length > 0) {
    ctx.step({ kind: 'note', message: `SRV ${owner} gives ${outcome!.targets.length} target(s)` });
    return srvSegment(outcome!);
  }
  if (outcome!.notOffered) {
    throw new NoTargetsError(
      `${owner} has target ".": ${host} does not offer ${transport.toUpperCase()}, the transport the URI asks for`,
      ctx.dnsErrors,
      ctx.servfails,
    );
  }
  ctx.negative(answer.result);
  const none = noSrvTarget(outcome!.records, owner);
  ctx.warn(
    'no-srv',
    `${none.what}: only the A/AAAA records of ${host} at port ${defaultPort(transport)}, so no priority or weight` +
      none.deviation,
  );
  ctx.step({
    kind: 'note',
    message: `${none.what}: A/AAAA of ${host} at the default port ${defaultPort(transport)} (${none.rfc})`,
  });
  return fixedSegment(await hostTargets(ctx, addresses, host, transport, defaultPort(transport)));
}

/**
 * How the A/AAAA fallback is worded: RFC 3263 falls back when no SRV records exist. Records
 * whose targets all give no address (or port 0) fall back too, as a documented deviation, like
 * the NAPTR branch's: a listed server is better than none.
 */
function noSrvTarget(records: number, where: string): { what: string; rfc: string; deviation: string } {
  if (records === 0) return { what: `no SRV records for ${where}`, rfc: 'RFC 3263 sections 4.1, 4.2', deviation: '' };
  return {
    what: `no usable SRV target for ${where} (${records} SRV record(s), none with an address and port)`,
    rfc: 'a documented deviation: RFC 3263 section 4.2 falls back only when no SRV records exist',
    deviation: ' (RFC 3263 would stop here; a listed server is better than none)',
  };
}

/** NAPTR, then SRV for each supported transport, then A/AAAA at the default port. */
async function discover(
  ctx: ResolutionContext,
  uri: SipUri,
  host: string,
  addresses: AddressLookups,
  srv: SrvExpander,
  onRule: (rule: SelectionRule) => void,
): Promise<ProcedureResult> {
  const { lookups, client } = ctx;
  const plan = SRV_TRANSPORT_ORDER.filter((t) => client.transports.has(t) && (uri.scheme === 'sip' || t === 'tls')).map(
    (transport) => ({
      transport,
      owner: srvName(transport, host),
    }),
  );
  ctx.step({
    kind: 'note',
    message:
      `round 1: NAPTR, SRV (${plan.map((p) => p.owner).join(', ')}) and ${addressTypes(ctx).join('/')} of ` +
      `${host} asked together`,
  });
  const [naptrAnswer, srvAnswers] = await Promise.all([
    lookups.ask(host, 'NAPTR', 0),
    Promise.all(plan.map((p) => lookups.ask(p.owner, 'SRV', 0))),
    askAddresses(ctx, host),
  ]);
  ctx.flush();

  // Rule 4: NAPTR.
  const naptr = ctx.use(naptrAnswer);
  // The NAPTR answer decides which rule applies, whatever it holds: every target rests on it.
  ctx.decided(naptr, naptrAnswer.name, 'NAPTR');
  const records = (naptr?.records ?? []) as readonly NaptrRecord[];
  if (records.length === 0) {
    ctx.negative(naptr);
    ctx.step({
      kind: 'rule',
      rule: 'naptr',
      outcome: 'passed',
      reason: `no NAPTR records for ${host}${naptr ? ` (${naptr.rcodeName})` : ''}: SRV for each supported transport`,
    });
  } else {
    const chosen = await followNaptr(ctx, uri, host, records, naptrAnswer.round, srv);
    if (chosen) {
      onRule('naptr');
      const relabeled = relabelOutcome(chosen.outcome, 'naptr', ctx, chosen.candidate.record.ttl, [linkOf(naptr!)]);
      return { rule: 'naptr', segments: srvSegment(relabeled), naptr: chosen.choice };
    }
  }

  // Rule 5: SRV for each supported transport, most secure first.
  const outcomes = await srv.expand(plan.map((p, i) => ({ answer: srvAnswers[i]!, transport: p.transport })));
  const targets = outcomes.flatMap((o) => o.targets);
  if (targets.length > 0) {
    onRule('srv');
    const first = outcomes.find((o) => o.targets.length > 0)!;
    ctx.step({
      kind: 'rule',
      rule: 'srv',
      outcome: 'applies',
      transport: first.transport,
      reason: `SRV for each supported transport, TLS then TCP then UDP: ${describeOutcomes(outcomes)}`,
    });
    return { rule: 'srv', segments: outcomes.flatMap(srvSegment) };
  }
  for (const o of outcomes) ctx.negative(o.answer.result);
  const notOffered = new Set(outcomes.filter((o) => o.notOffered).map((o) => o.transport));
  ctx.step({
    kind: 'rule',
    rule: 'srv',
    outcome: 'passed',
    reason: `no SRV target: ${describeOutcomes(outcomes) || 'no SRV owner asked'}`,
  });

  // Rule 6: A/AAAA of the TARGET at the default port.
  const transport = defaultTransport(uri.scheme, client, notOffered);
  if (notOffered.has(transport)) {
    throw new NoTargetsError(
      `${host} declares every transport the client supports not offered (SRV target ".")`,
      ctx.dnsErrors,
      ctx.servfails,
    );
  }
  onRule('host');
  // Records saying "." only decline their transport: they are not records that gave nothing.
  const none = noSrvTarget(
    outcomes.reduce((sum, o) => sum + (o.notOffered ? 0 : o.records), 0),
    host,
  );
  ctx.warn(
    'no-srv',
    `${none.what}: only its A/AAAA records at port ${defaultPort(transport)}, so no priority or weight` +
      none.deviation,
  );
  ctx.step({
    kind: 'rule',
    rule: 'host',
    outcome: 'applies',
    transport,
    reason:
      `${none.what}: ${transport.toUpperCase()} for a ${uri.scheme.toUpperCase()} URI, A/AAAA of ${host} at ` +
      `port ${defaultPort(transport)} (${none.rfc})`,
  });
  return {
    rule: 'host',
    segments: fixedSegment(await hostTargets(ctx, addresses, host, transport, defaultPort(transport))),
  };
}

/** The usable NAPTRs of the lowest order, by preference, until one gives a target. */
async function followNaptr(
  ctx: ResolutionContext,
  uri: SipUri,
  host: string,
  records: readonly NaptrRecord[],
  round: number,
  srv: SrvExpander,
): Promise<{ candidate: NaptrCandidate; outcome: SrvOutcome; choice: NaptrChoice } | undefined> {
  const selection = selectNaptr(records, uri.scheme, ctx.client.transports);
  if (selection.hasSipService && selection.missingServices.length > 0) {
    ctx.warn(
      'naptr-incomplete',
      `the NAPTR records of ${host} lack ${selection.missingServices.join(', ')}: clients that need those transports ` +
        `skip NAPTR here`,
    );
  }
  const candidates = selection.candidates.slice(0, ctx.maxNaptrRecords);
  if (selection.candidates.length > candidates.length) {
    ctx.warn(
      'naptr-records-capped',
      `${selection.candidates.length} usable NAPTR records of ${host}; only the first ${candidates.length} are ` +
        `followed`,
    );
  }
  if (candidates.length === 0) {
    for (const v of selection.verdicts) ctx.step(v.ignored!);
    ctx.warn(
      'naptr-unusable',
      `none of the ${records.length} NAPTR record(s) of ${host} is usable by this client: SRV is used instead`,
    );
    ctx.step({
      kind: 'rule',
      rule: 'naptr',
      outcome: 'passed',
      reason: `no usable NAPTR record for ${host}: SRV for each supported transport`,
    });
    return undefined;
  }
  // Round 2 (when not asked in round 1): the SRV owners of every candidate, together.
  const answers = await Promise.all(candidates.map((c) => ctx.lookups.ask(c.srv, 'SRV', round)));
  ctx.flush();
  const results = new Map<NaptrCandidate, NaptrStep>();
  // A NAPTR that failed before goes after the others of its order, never out: remembered ones
  // (an earlier request) before those that failed in this request.
  const refs = candidates.map((c) => naptrRef(host, c));
  const passed = refs.map((ref) => ctx.naptrPassed(naptrKey(ref)));
  const tryOrder = naptrOrder(passed);
  let chosen: { candidate: NaptrCandidate; outcome: SrvOutcome; index: number } | undefined;
  for (const i of tryOrder) {
    const candidate = candidates[i]!;
    const [outcome] = await srv.expand([{ answer: answers[i]!, transport: candidate.transport }]);
    if (outcome!.targets.length > 0) {
      chosen = { candidate, outcome: outcome!, index: i };
      break;
    }
    ctx.negative(answers[i]!.result);
    const why = outcome!.notOffered
      ? 'has target "."'
      : outcome!.records === 0
        ? 'has no SRV records'
        : 'gives no address';
    ctx.warn(
      'naptr-srv-empty',
      `NAPTR ${candidate.record.data.services} of ${host} points to ${candidate.srv}, which ${why}`,
    );
    results.set(candidate, {
      kind: 'naptr',
      record: candidate.text,
      outcome: 'usable',
      transport: candidate.transport,
      reason: `${candidate.srv} ${why}: next NAPTR of the same order`,
    });
  }
  for (const v of selection.verdicts) {
    if (v.ignored) ctx.step(v.ignored);
    else if (v.candidate === chosen?.candidate) {
      const before = passed[chosen.index];
      ctx.step({
        kind: 'naptr',
        record: v.candidate.text,
        outcome: 'chosen',
        transport: v.candidate.transport,
        reason: before
          ? `every NAPTR of its order failed before; this one again (failed NAPTRs go last, never out): ` +
            `${before.detail}; ${v.candidate.srv} gives ${chosen.outcome.targets.length} target(s)`
          : `lowest order, then lowest preference, among the services the client supports` +
            `${passed.some(Boolean) ? ' that did not fail before' : ''}; ${v.candidate.srv} ` +
            `gives ${chosen.outcome.targets.length} target(s)`,
      });
    } else {
      const i = candidates.indexOf(v.candidate);
      const skip = passed[i];
      ctx.step(
        results.get(v.candidate) ??
          (skip && {
            kind: 'naptr',
            record: v.candidate.text,
            outcome: 'usable',
            transport: v.candidate.transport,
            reason: `passed over, ${skipText(skip)}: next NAPTR of the same order (RFC 3403 section 4.1)`,
          }) ?? {
            kind: 'naptr',
            record: v.candidate.text,
            outcome: 'usable',
            transport: v.candidate.transport,
            reason: 'not needed: a NAPTR before it gave targets',
          },
      );
    }
  }
  if (chosen) {
    const { candidate } = chosen;
    ctx.step({
      kind: 'rule',
      rule: 'naptr',
      outcome: 'applies',
      transport: candidate.transport,
      reason:
        `NAPTR ${candidate.record.data.order} ${candidate.record.data.preference} ` +
        `${candidate.record.data.services} -> ${candidate.srv} (${candidate.transport.toUpperCase()})`,
    });
    const choice: NaptrChoice = Object.freeze({
      chosen: refs[chosen.index]!,
      expires: ctx.now + 1000 * candidate.record.ttl,
      candidates: Object.freeze(refs),
      passed: Object.freeze(tryOrder.flatMap((i) => (i !== chosen!.index && passed[i] ? [passed[i]!] : []))),
    });
    return { ...chosen, choice };
  }
  const order = candidates[0]!.record.data.order;
  ctx.warn(
    'naptr-fallback',
    `no NAPTR of order ${order} for ${host} gave a target: falling back to SRV and A/AAAA (RFC 3403 would stop here; ` +
      `a listed server is better than none)`,
  );
  ctx.step({
    kind: 'rule',
    rule: 'naptr',
    outcome: 'passed',
    reason: `no NAPTR of order ${order} gave a target: SRV for each supported transport (documented deviation)`,
  });
  return undefined;
}

/**
 * Round 1 asks A/AAAA of the TARGET without using the answers: a rule that needs them reads
 * them later (a bogus answer no rule needs must not fail the resolution).
 */
function askAddresses(ctx: ResolutionContext, host: string): Promise<unknown> {
  return Promise.all(addressTypes(ctx).map((type) => ctx.lookups.ask(host, type, 0)));
}

/** A/AAAA of `host` at `port` (RFC 3263 section 4.2), usually asked in round 1 already. */
async function hostTargets(
  ctx: ResolutionContext,
  addresses: AddressLookups,
  host: string,
  transport: SipTransport,
  port: number,
): Promise<SipTarget[]> {
  const found = await addresses.lookup(host, 0);
  ctx.flush();
  if (found.alias) ctx.step({ kind: 'note', message: `${host} is an alias of ${found.alias}` });
  if (found.addresses.length === 0) {
    throw new NoTargetsError(`${host} has no ${addressTypes(ctx).join(' or ')} record`, ctx.dnsErrors, ctx.servfails);
  }
  return found.addresses.map((a) => ({
    transport,
    host,
    address: a.address,
    family: a.family,
    port,
    priority: 0,
    weight: 0,
    source: 'host',
    expires: ctx.expires(a.ttl),
    dnssec: chainStatus(a.links),
    links: a.links,
  }));
}

function naptrRef(owner: string, candidate: NaptrCandidate): NaptrRef {
  return Object.freeze({ owner, record: candidate.text, transport: candidate.transport });
}

function skipText(skip: NaptrSkip): string {
  return skip.reason === 'remembered'
    ? `remembered as failed until its TTL ends (${skip.detail})`
    : `every target failed in this request (${skip.detail})`;
}

function describeOutcomes(outcomes: readonly SrvOutcome[]): string {
  return outcomes.map((o) => `${o.name} ${outcomeText(o)}`).join('; ');
}

function outcomeText(o: SrvOutcome): string {
  if (o.targets.length > 0) return `${o.targets.length} target(s)`;
  if (o.notOffered) return '"." (not offered)';
  return o.records > 0 ? 'no address' : 'no records';
}
