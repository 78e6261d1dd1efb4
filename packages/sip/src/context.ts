/**
 * The state of one resolution: its questions, the steps and warnings written so far, and the
 * shortest TTL of the negative answers that decided a rule (a target made after "no NAPTR"
 * must not outlive that "no").
 */
import { Rcode, typeName, type DnsResult } from '@dnscore/core';
import { DEFAULT_MAX_NAPTR_RECORDS, DEFAULT_MAX_SRV_RECORDS, DEFAULT_MAX_TARGETS } from './defaults.js';
import { BogusAnswerError } from './errors.js';
import { type DnssecLink, joinLinks, linkOf } from './dnssec-links.js';
import type { Answer, Lookups } from './lookups.js';
import type { NaptrSkip } from './naptr-memory.js';
import type { ClientCapabilities, SipStep, SipWarning, WarningCode } from './resolution.js';

export class ResolutionContext {
  readonly steps: SipStep[] = [];
  readonly warnings: SipWarning[] = [];
  /** Queries that obtained no answer (timeouts, network errors). */
  readonly dnsErrors: Error[] = [];
  /** Answers that were SERVFAIL (used as no records). */
  servfails = 0;
  /** Seconds: the shortest negative TTL that decided a rule. */
  horizon = Number.POSITIVE_INFINITY;
  /** Answers that decided which rule applies (one per name and type): every target rests on them too. */
  deciding: DnssecLink[] = [];
  /** NAPTRs that failed before (this request, or remembered), by naptrKey: tried after the others of their order. */
  naptrPassed: (key: string) => NaptrSkip | undefined = () => undefined;
  /**
   * Addresses of one A or AAAA record set used: the target cap plus as many to stand in for
   * boxed ones (target-cap.ts), at least 64. A set of thousands costs its first ones, not
   * thousands of targets.
   */
  maxAddresses = 2 * DEFAULT_MAX_TARGETS;
  readonly #failed = new Set<Answer>();

  constructor(
    readonly lookups: Lookups,
    readonly client: ClientCapabilities,
    /** Clock time of the resolution, ms. */
    readonly now: number,
    readonly maxCnameHops: number,
    /** Fan-out bounds: usable NAPTR records followed, records of an SRV answer expanded. */
    readonly maxNaptrRecords = DEFAULT_MAX_NAPTR_RECORDS,
    readonly maxSrvRecords = DEFAULT_MAX_SRV_RECORDS,
    /** Steps are written only when the caller asked for the step-through. */
    readonly recording = true,
  ) {}

  step(step: SipStep): void {
    if (!this.recording) return;
    this.flush();
    this.steps.push(step);
  }

  /** Appends the query steps of the answers obtained so far. */
  flush(): void {
    if (this.recording) this.steps.push(...this.lookups.drain());
  }

  warn(code: WarningCode, message: string): void {
    if (!this.warnings.some((w) => w.code === code && w.message === message)) this.warnings.push({ code, message });
  }

  /**
   * The result of an answer the algorithm needs. A bogus result ends the resolution (no
   * fallback to other data for that name); a failed query counts as "nothing there".
   */
  use(answer: Answer): DnsResult | undefined {
    if (answer.error) {
      if (!this.#failed.has(answer)) {
        this.#failed.add(answer);
        this.dnsErrors.push(answer.error);
        this.warn(
          'dns-error',
          `${answer.name} ${answer.type}: no answer (${answer.error.message}); treated as no records`,
        );
      }
      return undefined;
    }
    const result = answer.result!;
    if (result.bogus) {
      this.flush();
      throw new BogusAnswerError(answer.name, typeName(result.query.type), result.whyBogus ?? 'validation failed');
    }
    if (result.rcode === Rcode.SERVFAIL && !this.#failed.has(answer)) {
      this.#failed.add(answer);
      this.servfails++;
    }
    return result;
  }

  /** A negative answer decided a rule: targets made afterwards expire with it, and rest on it. */
  negative(result: DnsResult | undefined): void {
    if (result && result.records.length === 0) {
      if (result.negativeTtl > 0) this.horizon = Math.min(this.horizon, result.negativeTtl);
      this.deciding = joinLinks(this.deciding, [linkOf(result)]);
    }
  }

  /**
   * An answer (or a failed query for `name`/`type`) decided which rule applies. A query that
   * got no answer decided it too: whoever can drop answers chose the rule, so it is insecure.
   */
  decided(result: DnsResult | undefined, name: string, type: 'NAPTR' | 'SRV'): void {
    const link: DnssecLink = result ? linkOf(result) : { name, type, dnssec: 'insecure', note: 'no answer' };
    this.deciding = joinLinks(this.deciding, [link]);
  }

  /** Expiry time of a target built from records with these TTLs (seconds). */
  expires(...ttls: number[]): number {
    return this.now + 1000 * Math.min(this.horizon, ...ttls);
  }
}
