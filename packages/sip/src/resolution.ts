/**
 * What a resolution produces: the ordered targets, and for people the steps that led to them
 * and the warnings about the set-up. Steps and warnings are plain data, ready for JSON.
 */
import type { DnssecStatus } from '@dnscore/core';
import type { SipError } from './errors.js';
import type { SipHost } from './host.js';
import type { NaptrChoice } from './naptr-memory.js';
import type { AddressFamily, SipTransport } from './transport.js';
import type { SipUri } from './uri.js';

/**
 * Where a target came from: the URI's IP literal, A/AAAA of the URI's host, an SRV record, or SRV
 * reached through NAPTR. A Call-ID pin is used only when the resolution lists it, so a pinned
 * try keeps the source of the listed target.
 */
export type TargetSource = 'literal' | 'host' | 'srv' | 'naptr';

/** One place to send a request. */
export interface SipTarget {
  readonly transport: SipTransport;
  /** The SRV target, the URI's TARGET (host or maddr), or the literal address. */
  readonly host: string;
  /** RFC 5952 for IPv6, without brackets. */
  readonly address: string;
  readonly family: AddressFamily;
  readonly port: number;
  /** SRV priority and weight; 0 when the target did not come from SRV. */
  readonly priority: number;
  readonly weight: number;
  readonly source: TargetSource;
  /** Milliseconds since the epoch when the DNS data behind it runs out; Infinity for a literal. */
  readonly expires: number;
  /**
   * The weakest status among `links`: secure only if every answer that led here was validated
   * secure. Insecure when no DNS was involved (a literal): nothing was validated.
   */
  readonly dnssec: DnssecStatus;
  /** The answers it rests on: rule-deciding negatives, then NAPTR, SRV and A/AAAA (CNAME hops included). */
  readonly links: readonly DnssecLink[];
}

/**
 * What DNSSEC status a resolution asks of its targets: 'off' checks nothing, 'prefer' keeps
 * every target and warns about those not secure, 'require' drops them (with a warning naming
 * the link that was not). Each target's status is reported whatever the policy.
 */
export type DnssecPolicy = 'off' | 'prefer' | 'require';

/** The rules of RFC 3263 section 4.1, in the order they are tried. */
export type SelectionRule = 'transport-param' | 'ip-literal' | 'port' | 'naptr' | 'srv' | 'host';

export type QueryType = 'NAPTR' | 'SRV' | 'A' | 'AAAA';

/** One DNS answer a target rests on, with the status the core gave it. */
export interface DnssecLink {
  readonly name: string;
  readonly type: QueryType;
  readonly dnssec: DnssecStatus;
  /** Why it is not the answer's own status ("additional section of ...", "no answer"). */
  readonly note?: string;
}

/** A question and its answer. `round` counts round trips: 1 for the first round, +1 for each answer waited for. */
export interface QueryStep {
  readonly kind: 'query';
  readonly round: number;
  readonly name: string;
  readonly type: QueryType;
  readonly rcode?: string;
  /** End of the CNAME chain, when it is not `name`. */
  readonly canonical?: string;
  /** RDATA in presentation form, in the order the core returned (RFC 2782 / RFC 3403 order). */
  readonly records: readonly string[];
  /** Additional-section records, "name TYPE rdata". */
  readonly additional: readonly string[];
  /** Smallest TTL of the records; the negative TTL for NXDOMAIN/NODATA. */
  readonly ttl: number;
  readonly secure: boolean;
  readonly bogus: boolean;
  readonly whyBogus?: string;
  /** Set when the backend failed and the cache served an expired answer (RFC 8767); its TTLs are 30. */
  readonly stale?: true;
  /** Records the core left out, with the rule they broke. */
  readonly dropped?: readonly string[];
  /** Set when no answer was obtained. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** Which rule chose (or could not choose) the transport, and why. */
export interface RuleStep {
  readonly kind: 'rule';
  readonly rule: SelectionRule;
  readonly outcome: 'applies' | 'passed';
  readonly transport?: SipTransport;
  readonly reason: string;
}

/** What became of one NAPTR record. */
export interface NaptrStep {
  readonly kind: 'naptr';
  readonly record: string;
  readonly outcome: 'chosen' | 'usable' | 'ignored';
  readonly transport?: SipTransport;
  readonly reason: string;
}

/** Additional-section A/AAAA of an SRV answer: used instead of a query, or ignored. */
export interface AdditionalStep {
  readonly kind: 'additional';
  readonly srv: string;
  readonly host: string;
  readonly addresses: readonly string[];
  readonly used: boolean;
  readonly reason: string;
}

/** An SRV record or host that gave no target. */
export interface SkipStep {
  readonly kind: 'skip';
  readonly host: string;
  readonly port?: number;
  readonly transport?: SipTransport;
  readonly reason: string;
}

/** Anything else worth telling (TARGET from maddr, a CNAME followed, ...). */
export interface NoteStep {
  readonly kind: 'note';
  readonly message: string;
}

export type SipStep = QueryStep | RuleStep | NaptrStep | AdditionalStep | SkipStep | NoteStep;

export type WarningCode =
  | 'port-in-uri'
  | 'ip-literal'
  | 'transport-tls-deprecated'
  | 'naptr-incomplete'
  | 'naptr-unusable'
  | 'naptr-srv-empty'
  | 'naptr-fallback'
  | 'no-srv'
  | 'srv-target-alias'
  | 'srv-target-no-address'
  | 'srv-port-zero'
  | 'dns-error'
  | 'targets-capped'
  | 'naptr-records-capped'
  | 'srv-records-capped'
  | 'addresses-capped'
  | 'dnssec-insecure'
  | 'dnssec-dropped'
  | 'query-budget';

/** A common mistake in an RFC 3263 set-up, or something that weakens failover. */
export interface SipWarning {
  readonly code: WarningCode;
  readonly message: string;
}

/** What the client can do; the locator's options, resolved. */
export interface ClientCapabilities {
  readonly transports: ReadonlySet<SipTransport>;
  readonly ipv4: boolean;
  readonly ipv6: boolean;
  /** AAAA targets before A targets of the same host. */
  readonly preferIpv6: boolean;
  /** DNSSEC policy for sip: URIs. */
  readonly dnssec: DnssecPolicy;
  /** DNSSEC policy for sips: URIs. */
  readonly sipsDnssec: DnssecPolicy;
}

export interface SipResolution {
  readonly uri: SipUri;
  /** TARGET of RFC 3263 section 4: maddr when present, else the host. */
  readonly target: SipHost & { readonly from: 'host' | 'maddr' };
  /** The rule that chose the transport; undefined when resolution failed before one applied. */
  readonly rule: SelectionRule | undefined;
  /** The transport of the first target (the chosen one); undefined without targets. */
  readonly transport: SipTransport | undefined;
  readonly targets: readonly SipTarget[];
  /** The step-through: only when asked for (`resolve(uri, { stepThrough: true })`), else empty. */
  readonly steps: readonly SipStep[];
  readonly warnings: readonly SipWarning[];
  /** Clock time of the resolution (ms). */
  readonly resolvedAt: number;
  /** The earliest `expires` of the targets; `resolvedAt` without targets. */
  readonly expires: number;
  /** Round trips on the longest chain of dependent queries (0 when no query was needed). */
  readonly roundTrips: number;
  readonly queries: number;
  readonly client: ClientCapabilities;
  /** Why there are no targets; undefined when there are. */
  readonly error: SipError | undefined;
  /**
   * Some answer behind it was stale (RFC 8767: the backend failed, an expired answer stood in
   * with TTL 30): the targets expire within 30 s and the next resolution asks again.
   */
  readonly stale: boolean;
  /**
   * Rule 'naptr': the NAPTR followed, the others of its order, and those passed over because
   * they failed before (NAPTR memory); absent for the other rules.
   */
  readonly naptr?: NaptrChoice;
}
