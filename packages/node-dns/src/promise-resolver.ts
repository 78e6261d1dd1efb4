/**
 * NodeDnsPromiseResolver: dns.promises.Resolver's methods and result shapes, answered by dnscore.
 * A negative answer or a failure rejects with node:dns's error (code, syscall queryA/queryAaaa/...,
 * hostname); the dnscore result stays reachable: on the error as `result`, and with the records
 * through resolveDetailed(). cancel() ends every call in flight with ECANCELLED.
 */
import { isIP } from 'node:net';
import type { DnsApi, DnsResult } from '@dnscore/core';
import { callSignal } from './call-signal.js';
import { errorCode, resultCode } from './codes.js';
import { DEFAULT_RESOLVER_TIMEOUT_MS } from './defaults.js';
import { NodeArgumentError, NodeDnsError, NodeRangeError, received, uvErrno } from './errors.js';
import {
  anyRecord,
  caa,
  mx,
  naptr,
  nodeName,
  soa,
  srv,
  txt,
  type AnyRecord,
  type CaaRecord,
  type MxRecord,
  type NaptrRecord,
  type RecordWithTtl,
  type SoaRecord,
  type SrvRecord,
} from './record-shapes.js';
import { formatServer, parseServers, type ServerAddress } from './servers.js';

export interface NodeDnsResolverOptions {
  /** Ms a call may take before it fails with ETIMEOUT; -1 (default): the backend's own timeouts. */
  readonly timeout?: number;
  /** Accepted for node:dns compatibility and not used: how often a server is asked is the backend's setting. */
  readonly tries?: number;
  /** What getServers() reports at first (node's forms: "IP", "IP:port", "[IPv6]:port"). */
  readonly servers?: readonly string[];
  /**
   * Makes a backend that asks the given servers; without it setServers() throws, since the core
   * given does not say where it asks. Called by setServers() with the parsed list.
   */
  readonly useServers?: (servers: readonly ServerAddress[]) => DnsApi;
}

/** The rrtypes of resolve(), each with its syscall, as node:dns names them. */
const SYSCALLS = {
  A: 'queryA',
  AAAA: 'queryAaaa',
  ANY: 'queryAny',
  CAA: 'queryCaa',
  CNAME: 'queryCname',
  MX: 'queryMx',
  NAPTR: 'queryNaptr',
  NS: 'queryNs',
  PTR: 'queryPtr',
  SOA: 'querySoa',
  SRV: 'querySrv',
  TXT: 'queryTxt',
} as const;
export type NodeRrtype = keyof typeof SYSCALLS;

export interface ResolveRecordsMap {
  A: string[];
  AAAA: string[];
  ANY: AnyRecord[];
  CAA: CaaRecord[];
  CNAME: string[];
  MX: MxRecord[];
  NAPTR: NaptrRecord[];
  NS: string[];
  PTR: string[];
  SOA: SoaRecord;
  SRV: SrvRecord[];
  TXT: string[][];
}

/** resolveDetailed(): what resolve() gives, with the dnscore result it came from. */
export interface DetailedAnswer<T extends NodeRrtype> {
  readonly records: ResolveRecordsMap[T];
  /** `secure`, `bogus`, `whyBogus`, `canonical`, TTLs, the raw `answer` packet, ... */
  readonly result: DnsResult;
}

export class NodeDnsPromiseResolver {
  #dns: DnsApi;
  readonly #timeout: number;
  readonly #useServers: NodeDnsResolverOptions['useServers'];
  #servers: ServerAddress[];
  #cancel = new AbortController();

  constructor(dns: DnsApi, options: NodeDnsResolverOptions = {}) {
    if (!dns || typeof dns.resolve !== 'function') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "dns" argument must have a resolve() method. ${received(dns)}`,
      );
    }
    const timeout = options.timeout ?? DEFAULT_RESOLVER_TIMEOUT_MS;
    if (typeof timeout !== 'number') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "options.timeout" property must be of type number. ${received(timeout)}`,
      );
    }
    if (!Number.isInteger(timeout)) {
      throw new NodeRangeError(
        `The value of "options.timeout" is out of range. It must be an integer. Received ${timeout}`,
      );
    }
    if (timeout < -1 || timeout > 2_147_483_647) {
      throw new NodeRangeError(
        `The value of "options.timeout" is out of range. It must be >= -1 && <= 2147483647. Received ${timeout}`,
      );
    }
    if (options.useServers !== undefined && typeof options.useServers !== 'function') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "options.useServers" property must be of type function. ${received(options.useServers)}`,
      );
    }
    this.#dns = dns;
    this.#timeout = timeout;
    this.#useServers = options.useServers;
    this.#servers = parseServers(options.servers ?? []);
  }

  resolve(hostname: string): Promise<string[]>;
  resolve<T extends NodeRrtype>(hostname: string, rrtype: T): Promise<ResolveRecordsMap[T]>;
  resolve(hostname: string, rrtype?: string): Promise<ResolveRecordsMap[NodeRrtype]>;
  resolve(hostname: string, rrtype: string = 'A'): Promise<ResolveRecordsMap[NodeRrtype]> {
    const type = checkedRrtype(hostname, rrtype);
    return this.#ask(hostname, type, SYSCALLS[type], (result) => shape(type, result));
  }

  /** The records in node:dns's shape and the dnscore result (DNSSEC status, raw packet). */
  resolveDetailed<T extends NodeRrtype>(hostname: string, rrtype: T): Promise<DetailedAnswer<T>> {
    const type = checkedRrtype(hostname, rrtype) as T;
    return this.#ask(hostname, type, SYSCALLS[type], (result) => ({
      records: shape(type, result) as ResolveRecordsMap[T],
      result,
    }));
  }

  resolve4(hostname: string): Promise<string[]>;
  resolve4(hostname: string, options: { ttl: true }): Promise<RecordWithTtl[]>;
  resolve4(hostname: string, options?: { ttl?: boolean }): Promise<string[] | RecordWithTtl[]>;
  resolve4(hostname: string, options?: { ttl?: boolean }): Promise<string[] | RecordWithTtl[]> {
    return this.#addresses(hostname, 'A', options);
  }

  resolve6(hostname: string): Promise<string[]>;
  resolve6(hostname: string, options: { ttl: true }): Promise<RecordWithTtl[]>;
  resolve6(hostname: string, options?: { ttl?: boolean }): Promise<string[] | RecordWithTtl[]>;
  resolve6(hostname: string, options?: { ttl?: boolean }): Promise<string[] | RecordWithTtl[]> {
    return this.#addresses(hostname, 'AAAA', options);
  }

  resolveAny(hostname: string): Promise<AnyRecord[]> {
    return this.resolve(hostname, 'ANY');
  }
  resolveCaa(hostname: string): Promise<CaaRecord[]> {
    return this.resolve(hostname, 'CAA');
  }
  resolveCname(hostname: string): Promise<string[]> {
    return this.resolve(hostname, 'CNAME');
  }
  resolveMx(hostname: string): Promise<MxRecord[]> {
    return this.resolve(hostname, 'MX');
  }
  resolveNaptr(hostname: string): Promise<NaptrRecord[]> {
    return this.resolve(hostname, 'NAPTR');
  }
  resolveNs(hostname: string): Promise<string[]> {
    return this.resolve(hostname, 'NS');
  }
  resolvePtr(hostname: string): Promise<string[]> {
    return this.resolve(hostname, 'PTR');
  }
  resolveSoa(hostname: string): Promise<SoaRecord> {
    return this.resolve(hostname, 'SOA');
  }
  resolveSrv(hostname: string): Promise<SrvRecord[]> {
    return this.resolve(hostname, 'SRV');
  }
  resolveTxt(hostname: string): Promise<string[][]> {
    return this.resolve(hostname, 'TXT');
  }

  /**
   * The names of an IP address (PTR under in-addr.arpa or ip6.arpa); EINVAL for a non-address,
   * ENOTFOUND for any failure but a cancel, as c-ares says. Unlike c-ares, the hosts file is not read.
   */
  reverse(ip: string): Promise<string[]> {
    checkName(ip, 'ip');
    const name = reverseName(ip);
    if (!name) {
      return Promise.reject(new NodeDnsError('EINVAL', 'getHostByAddr', ip, { errno: uvErrno('EINVAL') }));
    }
    return this.#ask(name, 'PTR', 'getHostByAddr', (result) => shape('PTR', result) as string[], ip).catch(
      (error: NodeDnsError) => {
        // c-ares's gethostbyaddr says ENOTFOUND for every failure but a cancel
        if (error.code === 'ECANCELLED' || error.code === 'EDESTRUCTION' || error.code === 'ENOTFOUND') throw error;
        throw new NodeDnsError('ENOTFOUND', 'getHostByAddr', ip, {
          ...(error.result ? { result: error.result } : {}),
          cause: error.cause ?? error,
        });
      },
    );
  }

  /** Ends every call in flight: each rejects with ECANCELLED. Later calls are not affected. */
  cancel(): void {
    const cancelled = this.#cancel;
    this.#cancel = new AbortController();
    cancelled.abort();
  }

  getServers(): string[] {
    return this.#servers.map(formatServer);
  }

  /**
   * Validates like node:dns (ERR_INVALID_IP_ADDRESS), then asks the servers through the backend
   * that `useServers` makes. Calls in flight finish where they started.
   */
  setServers(servers: readonly string[]): void {
    const parsed = parseServers(servers);
    if (!this.#useServers) {
      const error = new Error('setServers() needs the useServers option: the core given does not say where it asks');
      Object.assign(error, { code: 'ERR_METHOD_NOT_IMPLEMENTED' });
      throw error;
    }
    this.#dns = this.#useServers(parsed);
    this.#servers = parsed;
  }

  /**
   * node:dns's source address for its queries. Checked as node:dns checks it, then refused
   * (ERR_METHOD_NOT_IMPLEMENTED): dnscore's backends open their own sockets, and a query that
   * silently left from another address than asked could cross another network.
   */
  setLocalAddress(ipv4: string, ipv6?: string): void {
    if (typeof ipv4 !== 'string')
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "ipv4" argument must be of type string. ${received(ipv4)}`,
      );
    if (ipv6 !== undefined && typeof ipv6 !== 'string')
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "ipv6" argument must be of type string. ${received(ipv6)}`,
      );
    const first = isIP(ipv4);
    const second = ipv6 === undefined ? 0 : isIP(ipv6);
    if (first === 0 || (ipv6 !== undefined && second === 0))
      throw new NodeArgumentError('ERR_INVALID_ARG_VALUE', 'Invalid IP address.');
    if (first === second)
      throw new NodeArgumentError('ERR_INVALID_ARG_VALUE', `Cannot specify two IPv${first} addresses.`);
    const error = new Error(
      'setLocalAddress() is not supported: the backends of the core given open their own sockets',
    );
    Object.assign(error, { code: 'ERR_METHOD_NOT_IMPLEMENTED' });
    throw error;
  }

  #addresses(hostname: string, type: 'A' | 'AAAA', options?: { ttl?: boolean }): Promise<string[] | RecordWithTtl[]> {
    checkName(hostname);
    // As node:dns reads it (!!(options && options.ttl)): any truthy ttl, no check of the options.
    const ttl = !!(options as { ttl?: unknown } | null | undefined)?.ttl;
    return this.#ask(hostname, type, SYSCALLS[type], (result) =>
      ttl ? result.records.map((r) => ({ address: r.data as string, ttl: r.ttl })) : (shape(type, result) as string[]),
    );
  }

  /**
   * One question; `pick` makes the caller's value from the result as the result is made
   * (`resolveWith` when the core has it), so a call waiting in a burst ends up holding that
   * value, not the whole result (see DnsCore.resolveWith). An unusable result throws its code.
   */
  async #ask<V>(
    name: string,
    type: string,
    syscall: string,
    pick: (result: DnsResult) => V,
    hostname = name,
  ): Promise<V> {
    if (caresRefuses(name)) throw new NodeDnsError('EBADNAME', syscall, hostname);
    const call = callSignal(this.#timeout > 0 ? this.#timeout : undefined, [this.#cancel.signal]);
    const picked = (result: DnsResult): V => pick(usable(result, type, syscall, hostname));
    const dns = this.#dns;
    const options = { signal: call.signal! };
    // c-ares asks the root for the empty name; the core refuses an empty name as a likely slip.
    const question = name === '' ? '.' : name;
    try {
      return await (dns.resolveWith
        ? dns.resolveWith(question, type, picked, options)
        : dns.resolve(question, type, options).then(picked));
    } catch (error) {
      if (error instanceof NodeDnsError) throw error;
      const code = errorCode(error);
      throw new NodeDnsError(code === 'ECANCELLED' && call.timedOut() ? 'ETIMEOUT' : code, syscall, hostname, {
        cause: error,
      });
    } finally {
      call.done();
    }
  }
}

/** The rrtype node:dns accepts, or its ERR_INVALID_ARG_VALUE (after the name's own checks). */
function checkedRrtype(hostname: string, rrtype: unknown): NodeRrtype {
  checkName(hostname);
  if (typeof rrtype !== 'string' || !Object.hasOwn(SYSCALLS, rrtype)) {
    throw new NodeArgumentError('ERR_INVALID_ARG_VALUE', `The argument 'rrtype' is invalid. Received ${quote(rrtype)}`);
  }
  return rrtype as NodeRrtype;
}

/** `result` when it has data node:dns would return; else the NodeDnsError node:dns gives (ENODATA, ENOTFOUND, ...). */
function usable(result: DnsResult, type: string, syscall: string, hostname: string): DnsResult {
  const code = resultCode(result);
  if (code === undefined && type === 'CAA' && (shape('CAA', result) as CaaRecord[]).length === 0) {
    throw new NodeDnsError('ENODATA', syscall, hostname, { result });
  }
  if (code !== undefined) throw new NodeDnsError(code, syscall, hostname, { result });
  return result;
}

/**
 * Whether c-ares refuses the name (EBADNAME, nothing asked), escaped or not: an ASCII control,
 * space or punctuation other than `* - . / \\ _`. The core would ask, for NXDOMAIN.
 */
function caresRefuses(name: string): boolean {
  if (/^[A-Za-z0-9*\-./\\_]*$/.test(name)) return false; // most names, at one test
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code === 0 || code >= 0x80 || /[A-Za-z0-9*\-./\\_]/.test(name[i]!)) continue;
    return true;
  }
  return false;
}

/** node:dns's order for ANY: c-ares gathers each type in turn, in this order. */
const ANY_ORDER = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SRV', 'PTR', 'NAPTR', 'SOA', 'CAA'];

function shape(type: NodeRrtype, result: DnsResult): ResolveRecordsMap[NodeRrtype] {
  const records = result.records;
  switch (type) {
    case 'A':
    case 'AAAA':
      return records.map((r) => r.data as string);
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return records.map((r) => nodeName(r.data as string));
    case 'MX':
      return records.map((r) => mx(r.data as never));
    case 'SRV':
      return records.map((r) => srv(r.data as never));
    case 'NAPTR':
      return records.map((r) => naptr(r.data as never));
    case 'SOA':
      return soa(records[0]!.data as never);
    case 'TXT':
      return records.map((r) => txt(r.rdata));
    case 'CAA':
      return records.map((r) => caa(r.rdata)).filter((c): c is CaaRecord => c !== undefined);
    case 'ANY': {
      const shaped = records.map(anyRecord).filter((r): r is AnyRecord => r !== undefined);
      return ANY_ORDER.flatMap((t) => shaped.filter((r) => r.type === t));
    }
  }
}

function checkName(value: unknown, argument = 'name'): asserts value is string {
  if (typeof value !== 'string') {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_TYPE',
      `The "${argument}" argument must be of type string. ${received(value)}`,
    );
  }
}

function quote(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

/** "4.3.2.1.in-addr.arpa" / the nibbles under ip6.arpa (RFC 3596 section 2.5); undefined for a non-address. */
export function reverseName(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 4) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  if (family !== 6 || ip.includes('%')) return undefined;
  // An embedded IPv4 address at the end stands for the last two groups.
  const text = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
    [((+a << 8) | +b).toString(16), ((+c << 8) | +d).toString(16)].join(':'),
  );
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  let all = groups(head);
  if (tail !== undefined) {
    const right = groups(tail);
    all = [...all, ...new Array<string>(8 - all.length - right.length).fill('0'), ...right];
  }
  const hex = all.map((g) => g.padStart(4, '0')).join('');
  return `${[...hex].reverse().join('.')}.ip6.arpa`;
}
