/**
 * Rules over the answers rather than the records: TTLs that make caches useless or failover
 * by DNS slow, DNSSEC that is bogus or covers only part of the set-up, questions that got no
 * answer. A DNSSEC finding is never better than what was validated.
 */
import { nameKey } from '@dnscore/core';
import { LONG_TTL_S, SHORT_TTL_S } from '../defaults.js';
import type { Finding } from './finding.js';
import type { Asked, Gathered } from './gather.js';
import { questionText } from './present.js';

/** Questions that were answered with records, bogus ones aside. */
const withRecords = (g: Gathered): Asked[] =>
  g.all.filter((a) => a.result && !a.result.bogus && a.result.records.length > 0);

export function ttlFindings(g: Gathered): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  // Questions answered without an alias first: through one, the TTLs are capped by the alias's
  // (DnsResult.chainTtl), and the owner's own record set is what the zone configures.
  const answered = withRecords(g);
  const ordered = [
    ...answered.filter((a) => a.result!.chainTtl === undefined),
    ...answered.filter((a) => a.result!.chainTtl !== undefined),
  ];
  for (const asked of ordered) {
    // An alias and its target share one record set: report it once, under its owner.
    const owner = asked.result!.canonical;
    if (seen.has(`${nameKey(owner)} ${asked.type}`)) continue;
    seen.add(`${nameKey(owner)} ${asked.type}`);
    const ttl = Math.min(...asked.result!.records.map((r) => r.ttl));
    const record = `${questionText(owner, asked.type)} TTL ${ttl}`;
    if (ttl < SHORT_TTL_S) {
      findings.push({
        code: 'ttl-short',
        severity: ttl === 0 ? 'warning' : 'info',
        record,
        message:
          ttl === 0
            ? 'TTL 0: nothing is cached, every request waits for this question'
            : `TTL ${ttl} s: caches keep the answer under a minute, so most requests wait for the DNS`,
        fix: `a TTL of a few minutes to an hour (300-3600 s), lower only shortly before a planned change`,
      });
    } else if (ttl > LONG_TTL_S) {
      findings.push({
        code: 'ttl-long',
        severity: 'warning',
        record,
        message:
          `TTL ${ttl} s: a server taken out of these records keeps getting requests for up to ` +
          `${Math.round(ttl / 3600)} h from caches`,
        fix: `a TTL of at most a day, and of minutes for records you may change to fail over`,
      });
    }
  }
  return findings;
}

export function dnssecFindings(g: Gathered): Finding[] {
  const findings: Finding[] = [];
  for (const asked of g.all.filter((a) => a.result?.bogus)) {
    findings.push({
      code: 'dnssec-bogus',
      severity: 'error',
      record: questionText(asked.name, asked.type),
      message:
        `the answer is DNSSEC bogus (${asked.result!.whyBogus ?? 'validation failed'}): ` +
        `validating clients refuse it`,
      fix: 'fix the signatures (re-sign the zone, check the DS record at the parent and the key rollover)',
    });
  }
  const answered = g.all.filter((a) => a.result && !a.result.bogus);
  const secure = answered.filter((a) => a.result!.secure);
  const insecure = withRecords(g).filter((a) => !a.result!.secure);
  if (secure.length > 0 && insecure.length > 0) {
    const names = insecure.map((a) => questionText(a.name, a.type));
    findings.push({
      code: 'dnssec-partial',
      severity: 'warning',
      record: names.slice(0, 8).join(', ') + (names.length > 8 ? `, and ${names.length - 8} more` : ''),
      message:
        `${secure.length} answer(s) are DNSSEC secure, but ${insecure.length} are not signed: an ` +
        `attacker can forge those (often SRV targets in another, unsigned zone)`,
      fix: 'sign the zones of every name on the path, or move the targets into the signed zone',
    });
  }
  return findings;
}

export function dnsErrorFindings(g: Gathered): Finding[] {
  return g.all
    .filter((a) => a.error)
    .map((asked) => ({
      code: 'dns-error' as const,
      severity: 'warning' as const,
      record: questionText(asked.name, asked.type),
      message: `no answer: ${asked.error!.message} [${asked.error!.code}]; the findings cannot cover it`,
      fix: 'check that the authoritative servers answer this question (and over TCP)',
    }));
}
