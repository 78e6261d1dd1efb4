/**
 * The questions `dnscore check` asks about a domain: its NAPTR records, the SRV names of RFC
 * 3263 (and the ones its NAPTR records point to, and the deprecated _sip._tls), the A and AAAA
 * records of every SRV target, and the domain's own addresses. All at once, each bounded.
 */
import { DnsError, isAbortError, nameKey, type DnsApi, type DnsResult, type TypedRecord } from '@dnscore/core';
import type { SipTransport } from '@dnscore/sip';
import { MAX_CHECK_HOSTS, MAX_CHECK_SRV_NAMES } from '../defaults.js';

export type AskedType = 'NAPTR' | 'SRV' | 'A' | 'AAAA';

/** One question and its result, or the error that kept it from an answer. */
export interface Asked<T extends AskedType = AskedType> {
  readonly name: string;
  readonly type: T;
  readonly result?: DnsResult<TypedRecord<T>>;
  readonly error?: DnsError;
}

export interface SrvName {
  readonly owner: string;
  /** The transport of the RFC 3263 name or of the NAPTR service; undefined for _sip._tls. */
  readonly transport: SipTransport | undefined;
  readonly asked: Asked<'SRV'>;
}

export interface HostAddresses {
  readonly name: string;
  readonly a: Asked<'A'>;
  readonly aaaa: Asked<'AAAA'>;
}

export interface Gathered {
  readonly domain: string;
  readonly naptr: Asked<'NAPTR'>;
  /** By nameKey of the owner. */
  readonly srv: ReadonlyMap<string, SrvName>;
  /** By nameKey of the SRV target. */
  readonly hosts: ReadonlyMap<string, HostAddresses>;
  /** The domain's own A and AAAA (what a client without SRV uses). */
  readonly domainAddresses: HostAddresses;
  /** Every question, in the order asked. */
  readonly all: readonly Asked[];
  /** Names left unasked because of the bounds. */
  readonly capped: readonly string[];
}

/** RFC 3263 section 4.2: the SRV owner a client asks for each transport. */
export function srvName(transport: SipTransport, domain: string): string {
  return `${transport === 'tls' ? '_sips._tcp' : transport === 'tcp' ? '_sip._tcp' : '_sip._udp'}.${domain}`;
}

/** RFC 3263 section 4.1: the NAPTR services of the three transports, to label the SRV owners they point to. */
function serviceTransport(services: string): SipTransport | undefined {
  const service = services.toLowerCase();
  return service === 'sips+d2t' ? 'tls' : service === 'sip+d2t' ? 'tcp' : service === 'sip+d2u' ? 'udp' : undefined;
}

const TRANSPORTS: readonly SipTransport[] = ['udp', 'tcp', 'tls'];

/** The deprecated owner some zones still publish for TLS (RFC 3263 uses _sips._tcp). */
export function sipTlsName(domain: string): string {
  return `_sip._tls.${domain}`;
}

export async function gather(dns: DnsApi, domain: string, signal?: AbortSignal): Promise<Gathered> {
  const all: Asked[] = [];
  const capped: string[] = [];
  // Kept in the order asked, not answered, so a report reads the same on every run.
  const ask = async <T extends AskedType>(name: string, type: T): Promise<Asked<T>> => {
    const slot = all.length;
    all.length++;
    let asked: Asked<T>;
    try {
      const result = (await dns.resolve(name, type, signal ? { signal } : {})) as DnsResult<TypedRecord<T>>;
      asked = { name, type, result };
    } catch (error) {
      if (isAbortError(error) || !(error instanceof DnsError)) throw error;
      asked = { name, type, error };
    }
    all[slot] = asked;
    return asked;
  };
  const hostAddresses = async (name: string): Promise<HostAddresses> => {
    const [a, aaaa] = await Promise.all([ask(name, 'A'), ask(name, 'AAAA')]);
    return { name, a, aaaa };
  };

  const standard: { owner: string; transport: SipTransport | undefined }[] = [
    ...TRANSPORTS.map((t) => ({ owner: srvName(t, domain), transport: t })),
    { owner: sipTlsName(domain), transport: undefined },
  ];
  const [naptr, domainAddresses, ...standardAnswers] = await Promise.all([
    ask(domain, 'NAPTR'),
    hostAddresses(domain),
    ...standard.map((s) => ask(s.owner, 'SRV')),
  ]);
  const srv = new Map<string, SrvName>();
  for (const [i, s] of standard.entries()) srv.set(nameKey(s.owner), { ...s, asked: standardAnswers[i]! });

  // SRV names the NAPTR records point to that are not the standard ones.
  const extra = new Map<string, SipTransport | undefined>();
  for (const record of naptr.result?.records ?? []) {
    const { flags, services, replacement } = record.data;
    if (flags.toLowerCase() !== 's' || !replacement || replacement === '.') continue;
    const key = nameKey(replacement);
    if (!srv.has(key) && !extra.has(key)) extra.set(key, serviceTransport(services));
  }
  const extraOwners = [...extra.keys()];
  for (const owner of extraOwners.slice(MAX_CHECK_SRV_NAMES)) capped.push(owner);
  const kept = extraOwners.slice(0, MAX_CHECK_SRV_NAMES);
  const extraAnswers = await Promise.all(kept.map((owner) => ask(owner, 'SRV')));
  for (const [i, owner] of kept.entries())
    srv.set(owner, { owner, transport: extra.get(owner), asked: extraAnswers[i]! });

  // A and AAAA of every SRV target, each host once.
  const targets = new Map<string, string>();
  for (const { asked } of srv.values()) {
    for (const record of asked.result?.records ?? []) {
      const target = record.data.target;
      if (target !== '.' && !targets.has(nameKey(target))) targets.set(nameKey(target), target);
    }
  }
  const hostNames = [...targets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, name] of hostNames.slice(MAX_CHECK_HOSTS)) capped.push(name);
  const looked = await Promise.all(hostNames.slice(0, MAX_CHECK_HOSTS).map(([, name]) => hostAddresses(name)));
  const hosts = new Map(looked.map((h) => [nameKey(h.name), h]));
  return { domain, naptr, srv, hosts, domainAddresses, all, capped };
}
