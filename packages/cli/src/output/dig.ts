/** The text form of a result, laid out as dig lays out an answer. */
import { edeName, formatRecord, typeName, type DnsRecord, type DnsResult } from '@dnscore/core';

export function resultToText(result: DnsResult): string {
  const lines = [
    `; <<>> dnscore <<>> ${result.query.name} ${typeName(result.query.type)}`,
    `;; resolver: ${result.resolver}`,
    `;; ->>HEADER<<- status: ${result.rcodeName}, dnssec: ${dnssecState(result)}`,
  ];
  if (result.canonical.toLowerCase() !== result.query.name.toLowerCase())
    lines.push(`;; canonical name: ${absolute(result.canonical)}`);
  lines.push('', ';; QUESTION SECTION:', `;${absolute(result.query.name)}\t\tIN\t${typeName(result.query.type)}`);
  section(lines, 'ANSWER', result.records);
  section(lines, 'AUTHORITY', result.authority);
  section(lines, 'ADDITIONAL', result.additional);
  if (result.dropped.length > 0) {
    lines.push('', ';; DROPPED (records that broke a rule):');
    for (const d of result.dropped) lines.push(`;${absolute(d.name)}\t${d.type}\t${d.section}: ${d.rule}: ${d.reason}`);
  }
  if (result.age > 0) lines.push('', `;; from cache, ${result.age} s old`);
  return `${lines.join('\n')}\n`;
}

/** secure / insecure / bogus (EDE n Name: why), as RFC 4035 section 4.3 and RFC 8914 name them. */
export function dnssecState(result: DnsResult): string {
  if (result.bogus) return `bogus (${edeText(result)}${result.whyBogus ?? 'validation failed'})`;
  return result.secure ? 'secure' : 'insecure';
}

/** "EDE 7 Signature Expired: " when the result carries an Extended DNS Error; else nothing. */
export function edeText(result: DnsResult): string {
  return result.ede === undefined ? '' : `EDE ${result.ede} ${edeName(result.ede)}: `;
}

function section(lines: string[], name: string, records: readonly DnsRecord[]): void {
  if (records.length === 0) return;
  lines.push('', `;; ${name} SECTION:`, ...records.map(formatRecord));
}

function absolute(name: string): string {
  return name === '.' ? '.' : `${name}.`;
}
