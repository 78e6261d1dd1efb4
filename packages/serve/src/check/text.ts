/** The text of `dnscore check` without --json: one block per finding, errors first. */
import type { CheckReport } from './check.js';

export function renderCheck(report: CheckReport): string {
  const lines: string[] = [];
  const what = report.domain ?? report.uri ?? report.input;
  lines.push(`SIP DNS check of ${what}${report.uri && report.domain ? ` (from ${report.uri})` : ''}`);
  if (report.domain) lines.push(`  ${report.queries} questions asked${report.answered ? '' : ', none answered'}`);
  lines.push('');
  for (const f of report.findings) {
    lines.push(`${f.severity.toUpperCase()} [${f.code}] ${f.message}`);
    lines.push(`  record: ${f.record}`);
    lines.push(`  fix:    ${f.fix}`);
    lines.push('');
  }
  const { error, warning, info } = report.counts;
  lines.push(
    report.findings.length === 0
      ? 'No findings: nothing to fix.'
      : `${error} error(s), ${warning} warning(s), ${info} info(s)`,
  );
  return `${lines.join('\n')}\n`;
}
