/**
 * NodeDnsResolver: dns.Resolver's callback form over NodeDnsPromiseResolver. Each method takes
 * its arguments, then a callback that gets (err, records) on a later tick; an argument error
 * throws at once, as node:dns's does.
 */
import type { DnsApi } from '@dnscore/core';
import { NodeArgumentError, received } from './errors.js';
import {
  NodeDnsPromiseResolver,
  type DetailedAnswer,
  type NodeDnsResolverOptions,
  type NodeRrtype,
} from './promise-resolver.js';
import type {
  AnyRecord,
  CaaRecord,
  MxRecord,
  NaptrRecord,
  RecordWithTtl,
  SoaRecord,
  SrvRecord,
} from './record-shapes.js';

export type ResolveCallback<T> = (error: NodeJS.ErrnoException | null, records: T) => void;

export class NodeDnsResolver {
  /** The promise form of this resolver (shares its servers and cancel). */
  readonly promises: NodeDnsPromiseResolver;

  constructor(dns: DnsApi, options: NodeDnsResolverOptions = {}) {
    this.promises = new NodeDnsPromiseResolver(dns, options);
  }

  resolve(hostname: string, callback: ResolveCallback<string[]>): void;
  resolve(hostname: string, rrtype: string, callback: ResolveCallback<unknown>): void;
  resolve(hostname: string, rrtypeOrCallback: unknown, callback?: unknown): void {
    if (typeof rrtypeOrCallback === 'function')
      this.#run(callback, rrtypeOrCallback, () => this.promises.resolve(hostname));
    else this.#run(undefined, callback, () => this.promises.resolve(hostname, rrtypeOrCallback as string));
  }

  resolve4(hostname: string, callback: ResolveCallback<string[]>): void;
  resolve4(hostname: string, options: { ttl?: boolean }, callback: ResolveCallback<string[] | RecordWithTtl[]>): void;
  resolve4(hostname: string, optionsOrCallback: unknown, callback?: unknown): void {
    if (typeof optionsOrCallback === 'function')
      this.#run(callback, optionsOrCallback, () => this.promises.resolve4(hostname));
    else this.#run(undefined, callback, () => this.promises.resolve4(hostname, optionsOrCallback as { ttl?: boolean }));
  }

  resolve6(hostname: string, callback: ResolveCallback<string[]>): void;
  resolve6(hostname: string, options: { ttl?: boolean }, callback: ResolveCallback<string[] | RecordWithTtl[]>): void;
  resolve6(hostname: string, optionsOrCallback: unknown, callback?: unknown): void {
    if (typeof optionsOrCallback === 'function')
      this.#run(callback, optionsOrCallback, () => this.promises.resolve6(hostname));
    else this.#run(undefined, callback, () => this.promises.resolve6(hostname, optionsOrCallback as { ttl?: boolean }));
  }

  resolveAny(hostname: string, callback: ResolveCallback<AnyRecord[]>): void {
    this.#run(undefined, callback, () => this.promises.resolveAny(hostname));
  }
  resolveCaa(hostname: string, callback: ResolveCallback<CaaRecord[]>): void {
    this.#run(undefined, callback, () => this.promises.resolveCaa(hostname));
  }
  resolveCname(hostname: string, callback: ResolveCallback<string[]>): void {
    this.#run(undefined, callback, () => this.promises.resolveCname(hostname));
  }
  resolveMx(hostname: string, callback: ResolveCallback<MxRecord[]>): void {
    this.#run(undefined, callback, () => this.promises.resolveMx(hostname));
  }
  resolveNaptr(hostname: string, callback: ResolveCallback<NaptrRecord[]>): void {
    this.#run(undefined, callback, () => this.promises.resolveNaptr(hostname));
  }
  resolveNs(hostname: string, callback: ResolveCallback<string[]>): void {
    this.#run(undefined, callback, () => this.promises.resolveNs(hostname));
  }
  resolvePtr(hostname: string, callback: ResolveCallback<string[]>): void {
    this.#run(undefined, callback, () => this.promises.resolvePtr(hostname));
  }
  resolveSoa(hostname: string, callback: ResolveCallback<SoaRecord>): void {
    this.#run(undefined, callback, () => this.promises.resolveSoa(hostname));
  }
  resolveSrv(hostname: string, callback: ResolveCallback<SrvRecord[]>): void {
    this.#run(undefined, callback, () => this.promises.resolveSrv(hostname));
  }
  resolveTxt(hostname: string, callback: ResolveCallback<string[][]>): void {
    this.#run(undefined, callback, () => this.promises.resolveTxt(hostname));
  }
  reverse(ip: string, callback: ResolveCallback<string[]>): void {
    this.#run(undefined, callback, () => this.promises.reverse(ip));
  }

  /** The records and the dnscore result (DNSSEC status, raw packet), in one callback. */
  resolveDetailed<T extends NodeRrtype>(
    hostname: string,
    rrtype: T,
    callback: ResolveCallback<DetailedAnswer<T>>,
  ): void {
    this.#run(undefined, callback, () => this.promises.resolveDetailed(hostname, rrtype));
  }

  /** Ends every call in flight: each callback gets ECANCELLED. */
  cancel(): void {
    this.promises.cancel();
  }
  getServers(): string[] {
    return this.promises.getServers();
  }
  setServers(servers: readonly string[]): void {
    this.promises.setServers(servers);
  }
  setLocalAddress(ipv4: string, ipv6?: string): void {
    this.promises.setLocalAddress(ipv4, ipv6);
  }

  /** `extra` is a callback passed where a later argument was expected (too few arguments). */
  #run(extra: unknown, callback: unknown, start: () => Promise<unknown>): void {
    const cb = (typeof callback === 'function' ? callback : extra) as ResolveCallback<unknown>;
    if (typeof cb !== 'function') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "callback" argument must be of type function. ${received(callback)}`,
      );
    }
    start().then(
      (records) => process.nextTick(cb, null, records),
      (error: unknown) => process.nextTick(cb, error),
    );
  }
}
