/** Records as findings quote them: presentation form on one line, single spaces. */
import { formatRecord, type DnsRecord } from '@dnscore/core';

export function recordText(record: DnsRecord): string {
  return formatRecord(record).replace(/\t/g, ' ');
}

/** "name. TYPE" for a question. */
export function questionText(name: string, type: string): string {
  return `${name.endsWith('.') ? name : `${name}.`} ${type}`;
}
