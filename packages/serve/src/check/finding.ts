/**
 * What `dnscore check` reports: findings, each a mistake or a weak spot of a domain's SIP DNS
 * with its severity, the record at fault and the fix.
 */

/**
 * error: clients fail, or an RFC rule is broken; warning: failover or load sharing is weaker than
 * it looks; info: worth knowing.
 */
export type Severity = 'error' | 'warning' | 'info';

export const SEVERITIES: readonly Severity[] = Object.freeze(['error', 'warning', 'info']);

export type FindingCode =
  | 'uri-port'
  | 'uri-transport'
  | 'uri-ip-literal'
  | 'no-srv'
  | 'naptr-no-srv'
  | 'naptr-to-dot'
  | 'naptr-incomplete'
  | 'naptr-unusable'
  | 'naptr-fallback'
  | 'srv-not-offered'
  | 'srv-dot-mixed'
  | 'srv-target-alias'
  | 'srv-target-no-address'
  | 'srv-port-zero'
  | 'srv-weight-zero-mixed'
  | 'srv-single-target'
  | 'srv-sip-tls'
  | 'tls-without-sips-srv'
  | 'ttl-short'
  | 'ttl-long'
  | 'dnssec-bogus'
  | 'dnssec-partial'
  | 'dns-error'
  | 'capped';

export interface Finding {
  readonly code: FindingCode;
  readonly severity: Severity;
  /** The record at fault in presentation form, or the name or URI when there is no record. */
  readonly record: string;
  readonly message: string;
  readonly fix: string;
}

/** Errors first, then warnings, then infos; the order found within a severity. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITIES.indexOf(a.f.severity) - SEVERITIES.indexOf(b.f.severity) || a.i - b.i)
    .map(({ f }) => f);
}
