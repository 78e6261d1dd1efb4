/**
 * The rules over the records themselves (RFC 3263, RFC 2782): NAPTR replacements with no SRV,
 * SRV targets that are "." or aliases or have no address, weight 0 beside weights, one server
 * with no failover, TLS offered without _sips._tcp, and no SRV at all.
 */
import { nameKey, type TypedRecord } from '@dnscore/core';
import { isSipTransport } from '@dnscore/sip';
import type { Finding } from './finding.js';
import type { Asked, Gathered, HostAddresses, SrvName } from './gather.js';
import { sipTlsName, srvName } from './gather.js';
import { questionText, recordText } from './present.js';

type SrvRecord = TypedRecord<'SRV'>;
type NaptrRecord = TypedRecord<'NAPTR'>;

const records = <T extends 'NAPTR' | 'SRV' | 'A' | 'AAAA'>(asked: Asked<T> | undefined): readonly TypedRecord<T>[] =>
  asked?.result && !asked.result.bogus ? asked.result.records : [];

/** Answered with NXDOMAIN or NODATA (not an error, not bogus). */
const empty = (asked: Asked | undefined): boolean =>
  asked?.result !== undefined && !asked.result.bogus && asked.result.records.length === 0;

/** NAPTR records that lead to SIP SRV names ("s" flag, a SIP service). */
function sipNaptrs(g: Gathered): NaptrRecord[] {
  return records(g.naptr).filter(
    (r) =>
      r.data.flags.toLowerCase() === 's' && /^sips?\+d2[a-z]$/i.test(r.data.services) && r.data.replacement !== '.',
  );
}

export function naptrFindings(g: Gathered): Finding[] {
  const findings: Finding[] = [];
  for (const record of sipNaptrs(g)) {
    const srv = g.srv.get(nameKey(record.data.replacement!));
    if (!srv) continue;
    const targets = records(srv.asked);
    if (empty(srv.asked)) {
      findings.push({
        code: 'naptr-no-srv',
        severity: 'error',
        record: recordText(record),
        message:
          `the NAPTR record points to ${srv.owner}, which has no SRV records: clients that follow ` +
          `it find no server there`,
        fix: `publish SRV records at ${srv.owner}, or remove this NAPTR record`,
      });
    } else if (targets.length > 0 && targets.every((t) => t.data.target === '.')) {
      findings.push({
        code: 'naptr-to-dot',
        severity: 'warning',
        record: recordText(record),
        message:
          `the NAPTR record offers ${record.data.services} at ${srv.owner}, whose SRV target "." ` +
          `says the service is decidedly not available`,
        fix: `remove this NAPTR record, or give ${srv.owner} real targets`,
      });
    }
  }
  return findings;
}

export function srvFindings(g: Gathered): Finding[] {
  const findings: Finding[] = [];
  for (const srv of g.srv.values()) {
    // RFC 2782 order is a random draw; a report is in a fixed order: priority, then target.
    const set = [...records(srv.asked)].sort(
      (a, b) => a.data.priority - b.data.priority || (a.data.target < b.data.target ? -1 : 1),
    );
    if (set.length === 0) continue;
    findings.push(...dotFindings(srv, set), ...weightFindings(set), ...singleTargetFindings(srv, set));
    for (const record of set) findings.push(...targetFindings(record, g.hosts.get(nameKey(record.data.target))));
  }
  const tls = g.srv.get(nameKey(sipTlsName(g.domain)));
  if (tls && records(tls.asked).length > 0) {
    findings.push({
      code: 'srv-sip-tls',
      severity: 'warning',
      record: recordText(records(tls.asked)[0]!),
      message: `${tls.owner} is not a name RFC 3263 clients ask: SIP over TLS is found at _sips._tcp`,
      fix: `publish these records at ${srvName('tls', g.domain)} instead`,
    });
  }
  return findings;
}

function dotFindings(srv: SrvName, set: readonly SrvRecord[]): Finding[] {
  const dots = set.filter((r) => r.data.target === '.');
  if (dots.length === 0) return [];
  const transport = srv.transport ? srv.transport.toUpperCase() : 'this service';
  if (dots.length === set.length) {
    return [
      {
        code: 'srv-not-offered',
        severity: 'info',
        record: recordText(dots[0]!),
        message:
          `target "." at ${srv.owner}: the service is decidedly not available over ${transport} ` +
          `(RFC 2782); clients do not fall back to A/AAAA for it`,
        fix: 'nothing, if that is meant; otherwise publish the servers here',
      },
    ];
  }
  return dots.map((record) => ({
    code: 'srv-dot-mixed' as const,
    severity: 'warning' as const,
    record: recordText(record),
    message:
      `target "." beside real targets at ${srv.owner}: "." means "not available" only as the one ` +
      `record of its name (RFC 2782)`,
    fix: 'remove the "." record',
  }));
}

/** Weight 0 is "no preference" only when every record of the priority has it (RFC 2782). */
function weightFindings(set: readonly SrvRecord[]): Finding[] {
  const findings: Finding[] = [];
  const byPriority = new Map<number, SrvRecord[]>();
  for (const r of set) {
    if (r.data.target === '.') continue;
    byPriority.set(r.data.priority, [...(byPriority.get(r.data.priority) ?? []), r]);
  }
  for (const group of byPriority.values()) {
    const sum = group.reduce((n, r) => n + r.data.weight, 0);
    if (sum === 0) continue;
    for (const record of group.filter((r) => r.data.weight === 0)) {
      findings.push({
        code: 'srv-weight-zero-mixed',
        severity: 'warning',
        record: recordText(record),
        message:
          `weight 0 beside weights summing to ${sum} at priority ${record.data.priority}: this ` +
          `server comes first in about 1 of ${sum + 1} draws (RFC 2782 "a very small chance")`,
        fix: `give it a weight above 0 for a share of the load, or a larger priority number to make it a backup`,
      });
    }
  }
  return findings;
}

function singleTargetFindings(srv: SrvName, set: readonly SrvRecord[]): Finding[] {
  const usable = set.filter((r) => r.data.target !== '.' && r.data.port !== 0);
  if (new Set(usable.map((r) => nameKey(r.data.target))).size !== 1) return [];
  const record = usable[0]!;
  return [
    {
      code: 'srv-single-target',
      severity: 'warning',
      record: recordText(record),
      message: `${srv.owner} names one server, ${record.data.target}: when it is down, clients have nowhere else to go`,
      fix: `add a second server at the same priority (load sharing) or at a larger priority number (backup)`,
    },
  ];
}

function targetFindings(record: SrvRecord, host: HostAddresses | undefined): Finding[] {
  const { target, port } = record.data;
  if (target === '.') return [];
  if (port === 0) {
    return [
      {
        code: 'srv-port-zero',
        severity: 'error',
        record: recordText(record),
        message: `port 0 for ${target}: no SIP server listens there; clients skip this record`,
        fix: 'publish the port the server listens on (5060, 5061 for TLS)',
      },
    ];
  }
  if (!host) return [];
  const findings: Finding[] = [];
  const alias = [host.a, host.aaaa]
    .map((asked) => asked.result?.canonical)
    .find((canonical) => canonical !== undefined && nameKey(canonical) !== nameKey(target));
  if (alias) {
    findings.push({
      code: 'srv-target-alias',
      severity: 'error',
      record: recordText(record),
      message:
        `the SRV target ${target} is an alias (CNAME) of ${alias}: RFC 2782 says the target must ` +
        `not be an alias; some clients reject it`,
      fix: `point the SRV record at ${alias} itself`,
    });
  }
  if (empty(host.a) && empty(host.aaaa)) {
    findings.push({
      code: 'srv-target-no-address',
      severity: 'error',
      record: recordText(record),
      message: `the SRV target ${target} has no A or AAAA record: clients skip it`,
      fix: `publish an A (and AAAA) record for ${target}, or remove this SRV record`,
    });
  }
  return findings;
}

/** TLS offered (NAPTR SIPS+D2T, or the old _sip._tls) while _sips._tcp has nothing. */
export function tlsFindings(g: Gathered): Finding[] {
  const sips = g.srv.get(nameKey(srvName('tls', g.domain)));
  if (!sips || !empty(sips.asked)) return [];
  const naptr = records(g.naptr).find((r) => r.data.services.toLowerCase() === 'sips+d2t');
  const tls = records(g.srv.get(nameKey(sipTlsName(g.domain)))?.asked)[0];
  const offer = naptr ?? tls;
  if (!offer) return [];
  return [
    {
      code: 'tls-without-sips-srv',
      severity: 'warning',
      record: recordText(offer),
      message:
        `TLS is offered, but ${sips.owner} has no SRV records: clients that skip NAPTR, and every ` +
        `sips: request without NAPTR, find no TLS server`,
      fix: `publish SRV records at ${sips.owner}`,
    },
  ];
}

/** Neither NAPTR nor SRV: clients fall back to the domain's A/AAAA at 5060 (RFC 3263 section 4.2). */
export function noSrvFindings(g: Gathered): Finding[] {
  const anySrv = [...g.srv.values()].some((s) => s.transport !== undefined && records(s.asked).length > 0);
  if (anySrv || sipNaptrs(g).length > 0) return [];
  const standardAnswered = [...g.srv.values()].every((s) => !isSipTransport(s.transport) || empty(s.asked));
  if (!standardAnswered || !empty(g.naptr)) return [];
  const addresses = [...records(g.domainAddresses.a), ...records(g.domainAddresses.aaaa)];
  return [
    {
      code: 'no-srv',
      severity: 'warning',
      record: questionText(g.domain, 'SRV'),
      message:
        addresses.length > 0
          ? `no NAPTR and no SRV records: clients use only the A/AAAA records of ${g.domain} at port ` +
            `5060, one server with no priority, weight or failover`
          : `no NAPTR, SRV, A or AAAA records: SIP clients find no server for ${g.domain}`,
      fix:
        `publish SRV records at ${srvName('udp', g.domain)}, ${srvName('tcp', g.domain)} and ` +
        `${srvName('tls', g.domain)}`,
    },
  ];
}
