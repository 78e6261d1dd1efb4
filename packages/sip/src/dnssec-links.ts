/**
 * A target is as secure as its weakest link: the DNS answers it rests on (the NAPTR, SRV and
 * A/AAAA answers that led to it, and the negative answers that decided which rule applied),
 * each with the status the core gave it. The status comes from the core's one rule
 * (weakestStatus); additional-section data was never validated, so it is never secure here.
 */
import { typeName, weakestStatus, type DnsResult, type DnssecStatus } from '@dnscore/core';
import type { DnssecLink, QueryType } from './resolution.js';

export type { DnssecLink };

/** The link of an answer the core returned. */
export function linkOf(result: DnsResult): DnssecLink {
  return { name: result.query.name, type: typeName(result.query.type) as QueryType, dnssec: result.dnssec };
}

/** The status of a chain of links; no link at all means nothing was validated. */
export function chainStatus(links: readonly DnssecLink[]): DnssecStatus {
  return links.length === 0 ? 'insecure' : weakestStatus(...links.map((l) => l.dnssec));
}

/** The first link that is not secure, the one a warning names. */
export function weakestLink(links: readonly DnssecLink[]): DnssecLink | undefined {
  const status = chainStatus(links);
  return links.find((l) => l.dnssec === status && status !== 'secure');
}

/** `a` then the links of `b` not already in `a` (one link per name and type). */
export function joinLinks(a: readonly DnssecLink[], b: readonly DnssecLink[]): DnssecLink[] {
  const seen = new Set(a.map(linkKey));
  return [...a, ...b.filter((l) => !seen.has(linkKey(l)))];
}

/** "SRV _sip._udp.biloxi.example (insecure)" */
export function describeLink(link: DnssecLink): string {
  return `${link.type} ${link.name} (${link.dnssec}${link.note ? `, ${link.note}` : ''})`;
}

function linkKey(link: DnssecLink): string {
  return `${link.type} ${link.name.toLowerCase()}`;
}
