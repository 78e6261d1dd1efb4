/** Renders the run into BENCHMARKS.md: environment, how to run, method, every table, notes. */
import type { Section, Table } from '../cases/section.js';
import type { Environment } from './environment.js';
import { HOW_TO_READ, HOW_TO_RUN, METHOD, REMAINING_GAPS } from './text.js';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderTable(table: Table): string {
  const lines: string[] = [];
  if (table.caption) lines.push(`**${table.caption}**`, '');
  lines.push(`| ${table.headers.map(cell).join(' | ')} |`);
  lines.push(`|${table.headers.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
  for (const row of table.rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

export function renderSection(section: Section): string {
  const parts = [`## ${section.title}`, '', section.method, ''];
  for (const table of section.tables) parts.push(renderTable(table), '');
  for (const note of section.notes) parts.push(`- ${note}`);
  if (section.notes.length > 0) parts.push('');
  if (section.seconds !== undefined) parts.push(`_This part took ${section.seconds.toFixed(0)} s._`, '');
  return parts.join('\n');
}

export function renderReport(env: Environment, sections: readonly Section[], partial: boolean): string {
  const parts = [
    '# Benchmarks',
    '',
    '_Written by `npm run bench` (bench/src/report/); do not edit by hand: run it again._',
    partial ? '\n**This is a partial or quick run: fewer runs per figure, some parts skipped.**\n' : '',
    'dnscore measured side by side with what a Node.js user would use instead, in one run, on one machine, ' +
      'against servers on loopback. No figure here is a test: nothing fails on a slow machine, but every ' +
      "system's answer is checked before it is timed.",
    '',
    '## Machine and versions',
    '',
    '| | |',
    '|---|---|',
    ...env.rows.map(([k, v]) => `| ${cell(k)} | ${cell(v)} |`),
    '',
    HOW_TO_RUN,
    METHOD,
    HOW_TO_READ,
    ...sections.map(renderSection),
    REMAINING_GAPS,
  ];
  return `${parts
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
