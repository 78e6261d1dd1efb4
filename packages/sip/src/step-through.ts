/**
 * The step-through: a resolution as text a person reads to understand their DNS (what
 * `dnscore sip URI` prints): each query and answer in the order they mattered, which rule chose
 * the transport and why, the targets with priority and weight, and the warnings.
 */
import { describeLink, weakestLink } from './dnssec-links.js';
import { formatHost } from './host.js';
import type { QueryStep, SipResolution, SipStep, SipTarget } from './resolution.js';
import { describeTransports } from './transport.js';

export function renderStepThrough(resolution: SipResolution): string {
  const { uri, target, client } = resolution;
  const lines: string[] = [uri.text];
  lines.push(`  TARGET ${formatHost(target)} (${target.from === 'maddr' ? 'the maddr parameter' : "the URI's host"})`);
  const families =
    client.ipv4 && client.ipv6
      ? `IPv4 and IPv6${client.preferIpv6 ? ', AAAA first' : ', A first'}`
      : client.ipv6
        ? 'IPv6 only'
        : 'IPv4 only';
  lines.push(`  client: ${describeTransports(client.transports)}; ${families}`);
  lines.push('', 'Steps');
  for (const step of resolution.steps) lines.push(...renderStep(step));
  lines.push('');
  if (resolution.targets.length > 0) {
    const trips =
      `${resolution.roundTrips} round trip${resolution.roundTrips === 1 ? '' : 's'}, ` +
      `${resolution.queries} quer${resolution.queries === 1 ? 'y' : 'ies'}`;
    lines.push(`Targets: ${resolution.targets.length}, ${resolution.transport} by rule ${resolution.rule} (${trips})`);
    lines.push(...targetTable(resolution.targets, resolution.resolvedAt));
    lines.push(...weakLinks(resolution.targets));
    if (resolution.stale) {
      lines.push('  stale: the backend failed; expired answers stand in (RFC 8767) and are asked again within 30 s');
    }
  } else {
    lines.push(
      `No targets: ` +
        `${resolution.error?.message ?? 'none found'}${resolution.error ? ` [${resolution.error.code}]` : ''}`,
    );
  }
  lines.push('');
  if (resolution.warnings.length === 0) lines.push('Warnings: none');
  else {
    lines.push('Warnings');
    for (const w of resolution.warnings) lines.push(`  ! ${w.message} [${w.code}]`);
  }
  return `${lines.join('\n')}\n`;
}

function renderStep(step: SipStep): string[] {
  switch (step.kind) {
    case 'query':
      return renderQuery(step);
    case 'rule':
      return [
        `  rule ${step.rule} ` +
          (step.outcome === 'applies'
            ? `applies${step.transport ? ` -> ${step.transport.toUpperCase()}` : ''}`
            : 'passed') +
          `: ${step.reason}`,
      ];
    case 'naptr':
      return [
        `  NAPTR ${step.record}`,
        `        ${step.outcome}${step.transport ? ` (${step.transport.toUpperCase()})` : ''}: ${step.reason}`,
      ];
    case 'additional':
      return [
        `  additional ${step.host} ${step.addresses.join(', ')} (from ${step.srv}): ` +
          `${step.used ? '' : 'ignored, '}${step.reason}`,
      ];
    case 'skip':
      return [
        `  skipped ` +
          step.host +
          (step.port !== undefined ? `:${step.port}` : '') +
          (step.transport ? ` ${step.transport.toUpperCase()}` : '') +
          `: ${step.reason}`,
      ];
    case 'note':
      return [`  note: ${step.message}`];
  }
}

function renderQuery(step: QueryStep): string[] {
  const head = `  [round ${step.round}] ${step.name} ${step.type}: `;
  if (step.error) return [`${head}no answer (${step.error.code}: ${step.error.message})`];
  if (step.bogus) return [`${head}${step.rcode}, DNSSEC BOGUS (${step.whyBogus ?? 'validation failed'}): not used`];
  const flags =
    `${step.secure ? ', secure' : ''}${step.stale ? ', STALE (the backend failed; RFC 8767)' : ''}` +
    `${step.canonical ? `, alias of ${step.canonical}` : ''}`;
  const lines: string[] = [];
  if (step.records.length === 0) {
    const what = step.rcode === 'NOERROR' ? 'NODATA' : step.rcode;
    lines.push(`${head}${what}${step.ttl > 0 ? `, negative TTL ${step.ttl}` : ''}${flags}`);
  } else {
    lines.push(
      `${head}${step.rcode}, ${step.records.length} record${step.records.length === 1 ? '' : 's'}, TTL ` +
        `${step.ttl}${flags}`,
    );
    for (const record of step.records) lines.push(`      ${record}`);
  }
  for (const record of step.additional) lines.push(`      + additional ${record}`);
  for (const dropped of step.dropped ?? []) lines.push(`      - dropped ${dropped}`);
  return lines;
}

/** For targets that are not secure: the answer that made each so, once per answer. */
function weakLinks(targets: readonly SipTarget[]): string[] {
  const byLink = new Map<string, number[]>();
  targets.forEach((t, i) => {
    const weak = weakestLink(t.links);
    if (!weak) return;
    const key = describeLink(weak);
    byLink.set(key, [...(byLink.get(key) ?? []), i + 1]);
  });
  return [...byLink].map(
    ([link, rows]) => `  DNSSEC: target${rows.length > 1 ? 's' : ''} ${rows.join(', ')} through ${link}`,
  );
}

function targetTable(targets: readonly SipTarget[], now: number): string[] {
  const rows = [
    ['#', 'transport', 'address', 'port', 'priority', 'weight', 'host', 'source', 'dnssec', 'expires'],
    ...targets.map((t, i) => [
      String(i + 1),
      t.transport,
      t.address,
      String(t.port),
      String(t.priority),
      String(t.weight),
      t.host,
      t.source,
      t.dnssec,
      Number.isFinite(t.expires) ? `in ${Math.max(0, Math.round((t.expires - now) / 1000))} s` : 'never',
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map(
    (r) =>
      `  ${r
        .map((cell, c) => (c === 0 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
        .join('  ')
        .trimEnd()}`,
  );
}
