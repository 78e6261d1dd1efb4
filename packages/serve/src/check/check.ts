/**
 * `dnscore check DOMAIN|URI`: the walk-through's common mistakes and the RFC 3263 / RFC 2782
 * rules, checked against a domain's SIP DNS. The questions are asked once (gather.ts), the
 * rules read the answers, and the locator of @dnscore/sip adds what only the RFC 3263
 * procedure sees (NAPTR sets a client cannot use).
 */
import { InvalidArgumentError, type DnsApi } from '@dnscore/core';
import { parseHost, parseSipUri, SipLocator, type SipUri, type SipWarning } from '@dnscore/sip';
import { MAX_API_URI_LENGTH } from '../defaults.js';
import { sortFindings, type Finding, type Severity } from './finding.js';
import { gather, type Gathered } from './gather.js';
import { questionText } from './present.js';
import { naptrFindings, noSrvFindings, srvFindings, tlsFindings } from './rules-records.js';
import { dnsErrorFindings, dnssecFindings, ttlFindings } from './rules-health.js';
import { uriFindings } from './rules-uri.js';

export interface CheckReport {
  /** What was given. */
  readonly input: string;
  /** The URI given, or null for a bare domain. */
  readonly uri: string | null;
  /** The domain whose DNS was checked; null for an IP address. */
  readonly domain: string | null;
  /** False when no question got an answer at all (timeouts, network errors). */
  readonly answered: boolean;
  readonly queries: number;
  /** Errors first, then warnings, then infos. */
  readonly findings: readonly Finding[];
  readonly counts: Readonly<Record<Severity, number>>;
}

export interface CheckOptions {
  readonly signal?: AbortSignal;
}

/** A domain name or a sip:/sips: URI; anything else is an InvalidArgumentError. */
export function parseCheckTarget(input: string): { uri: SipUri | undefined; domain: string | undefined } {
  const text = typeof input === 'string' ? input.trim() : '';
  if (text === '') throw new InvalidArgumentError('check needs a domain or a sip: URI');
  if (text.length > MAX_API_URI_LENGTH)
    throw new InvalidArgumentError(`the domain or URI is longer than ${MAX_API_URI_LENGTH} characters`);
  if (/^sips?:/i.test(text)) {
    const uri = parseSipUri(text);
    // RFC 3263 section 4: the TARGET is maddr when present, else the host.
    const target = uri.maddr ?? { host: uri.host, kind: uri.hostKind };
    return { uri, domain: target.kind === 'hostname' ? target.host : undefined };
  }
  const host = parseHost(text.replace(/\.$/, ''));
  if (!host.ok) throw new InvalidArgumentError(`"${text.slice(0, 80)}" is not a domain: ${host.reason}`);
  if (host.host.kind !== 'hostname') return { uri: parseSipUri(`sip:${text}`), domain: undefined };
  return { uri: undefined, domain: host.host.host };
}

export async function runCheck(dns: DnsApi, input: string, options: CheckOptions = {}): Promise<CheckReport> {
  const { uri, domain } = parseCheckTarget(input);
  const findings: Finding[] = uri ? uriFindings(uri) : [];
  let answered = true;
  let queries = 0;
  if (domain !== undefined) {
    const signal = options.signal ? { signal: options.signal } : {};
    const [gathered, resolution] = await Promise.all([
      gather(dns, domain, options.signal),
      new SipLocator(dns).resolve(`sip:${domain}`, signal),
    ]);
    answered = gathered.all.some((a) => a.result !== undefined);
    queries = gathered.all.length;
    findings.push(
      ...naptrFindings(gathered),
      ...locatorFindings(resolution.warnings, domain),
      ...srvFindings(gathered),
      ...tlsFindings(gathered),
      ...noSrvFindings(gathered),
      ...ttlFindings(gathered),
      ...dnssecFindings(gathered),
      ...dnsErrorFindings(gathered),
      ...cappedFindings(gathered),
    );
  }
  const sorted = sortFindings(findings);
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of sorted) counts[f.severity]++;
  return {
    input: input.trim(),
    uri: uri?.text ?? null,
    domain: domain ?? null,
    answered,
    queries,
    findings: sorted,
    counts,
  };
}

/** True when a finding at warning level or above was made (`dnscore check` exits 1). */
export function hasProblems(report: CheckReport): boolean {
  return report.counts.error > 0 || report.counts.warning > 0;
}

/**
 * What the RFC 3263 procedure itself found that the record rules do not cover: NAPTR sets a
 * client cannot fully use. The rest of the locator's warnings have a rule of their own here.
 */
function locatorFindings(warnings: readonly SipWarning[], domain: string): Finding[] {
  const fixes: Partial<Record<SipWarning['code'], string>> = {
    'naptr-incomplete': 'add NAPTR records for the missing services, or none at all (clients then ask SRV directly)',
    'naptr-unusable': 'give the NAPTR records SIP services ("SIP+D2U", "SIP+D2T", "SIPS+D2T") with the "s" flag',
    'naptr-fallback': 'make the lowest-order NAPTR records lead to servers with addresses',
  };
  return warnings.flatMap((w) => {
    const fix = fixes[w.code];
    if (!fix) return [];
    const code = w.code as 'naptr-incomplete' | 'naptr-unusable' | 'naptr-fallback';
    return [{ code, severity: 'warning' as const, record: questionText(domain, 'NAPTR'), message: w.message, fix }];
  });
}

function cappedFindings(g: Gathered): Finding[] {
  if (g.capped.length === 0) return [];
  return [
    {
      code: 'capped',
      severity: 'info',
      record: g.capped
        .slice(0, 4)
        .map((name) => questionText(name, 'SRV/A'))
        .join(', '),
      message:
        `${g.capped.length} more names were not checked: the set-up names more SRV owners or ` +
        `targets than the check follows`,
      fix: 'fewer NAPTR records and SRV targets make the set-up easier to reason about',
    },
  ];
}
