/**
 * createLookup(dns): a function with dns.lookup's signature and behaviour, answered by dnscore,
 * for the `lookup` option of net, tls, http, https and undici's `connect`, and (called with an
 * origin URL) for undici's DNS interceptor. Callbacks run on a later tick, as Node's do, and an
 * exception thrown by one is not swallowed.
 */
import { V4MAPPED, type LookupAddress as NodeLookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { systemClock, type Clock, type DnsApi } from '@dnscore/core';
import {
  answerOf,
  findAddresses,
  withTtl,
  type FoundAddress,
  type KeptAddress,
  type LookupAddress,
  type LookupSettings,
  type Outcome,
} from './addresses.js';
import { ResultMemo } from './result-memo.js';
import { DEFAULT_RESULT_MEMO_ENTRIES, DEFAULT_LOOKUP_TIMEOUT_MS, DEFAULT_REQUIRE_SECURE } from './defaults.js';
import { NodeArgumentError, NodeDnsError, received, uvErrno } from './errors.js';
import { numericIPv4 } from './numeric-ipv4.js';
import { checkTimeout, readLookupOptions, type LookupOptions, type ReadLookupOptions } from './lookup-options.js';

export interface CreateLookupOptions {
  /** Ends a call that has no address after this many ms with EAI_AGAIN (default: the backend's timeouts). */
  readonly timeoutMs?: number;
  /** Give only DNSSEC-secure addresses; otherwise fail with EINSECURE (default false). */
  readonly requireSecure?: boolean;
  /** A and AAAA answers kept by the lookup for their TTL (default 1000; 0: ask the core every time). */
  readonly resultMemoEntries?: number;
  /** Clock of that memo (default Date.now). */
  readonly clock?: Clock;
}

/** node:dns's lookup callback (net's LookupFunction), so the lookup is assignable where Node takes one. */
export type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | NodeLookupAddress[],
  family?: number,
) => void;

/** What undici's DNS interceptor wants: the addresses with their TTL in ms. */
export interface InterceptorAddress extends LookupAddress {
  readonly ttl: number;
}

export type InterceptorCallback = (error: NodeJS.ErrnoException | null, addresses: InterceptorAddress[]) => void;

export interface NodeDnsLookup {
  (hostname: string, options: LookupOptions, callback: LookupCallback): void;
  (hostname: string, options: number | undefined, callback: LookupCallback): void;
  (hostname: string, callback: LookupCallback): void;
  /** undici's DNS interceptor (`interceptors.dns({ lookup })`) calls with the origin. */
  (origin: URL, options: object, callback: InterceptorCallback): void;
  /** dns.promises.lookup: `{ address, family }`, or an array of them with `all`. */
  promise(hostname: string, options?: number | LookupOptions): Promise<LookupAddress | LookupAddress[]>;
  /** The addresses with the TTL of their records, in seconds: what cacheable-lookup's `all` gives. */
  addresses(hostname: string, options?: number | LookupOptions): Promise<FoundAddress[]>;
}

export function createLookup(dns: DnsApi, options: CreateLookupOptions = {}): NodeDnsLookup {
  if (!dns || typeof dns.resolve !== 'function') {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_TYPE',
      `The "dns" argument must have a resolve() method. ${received(dns)}`,
    );
  }
  const given = options.timeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS;
  const timeoutMs = given === undefined ? undefined : checkTimeout(given, 'options.timeoutMs');
  const requireSecure = options.requireSecure ?? DEFAULT_REQUIRE_SECURE;
  if (typeof requireSecure !== 'boolean') {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_TYPE',
      `The "options.requireSecure" property must be of type boolean. ${received(requireSecure)}`,
    );
  }

  const memoEntries = options.resultMemoEntries ?? DEFAULT_RESULT_MEMO_ENTRIES;
  if (!(Number.isInteger(memoEntries) && memoEntries >= 0 && memoEntries <= 10_000_000)) {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_VALUE',
      `The property 'options.resultMemoEntries' must be an integer in 0..10000000. Received ${String(memoEntries)}`,
    );
  }
  const settings: LookupSettings = { requireSecure, timeoutMs };
  const clock = options.clock ?? systemClock;
  const memo = new ResultMemo<Outcome>(memoEntries, clock);

  /**
   * The addresses (never to be handed out as they are: see answerOf and withTtl): a value (or a
   * throw) when the memo holds every answer, else a promise.
   */
  const find = (
    hostname: string,
    read: ReadLookupOptions,
  ): readonly KeptAddress[] | Promise<readonly KeptAddress[]> => {
    // Only a name with a colon or a final digit can be an IP literal: the others skip isIP's regex.
    const literal = hostname.includes(':') || isDigit(hostname.charCodeAt(hostname.length - 1)) ? isIP(hostname) : 0;
    if (literal) return [{ address: hostname, family: literal as 4 | 6, ttl: 0, keptAt: 0 }];
    // Every numeric form starts with a digit: other names skip the parse.
    const numeric = isDigit(hostname.charCodeAt(0)) ? numericIPv4(hostname) : undefined;
    if (numeric !== undefined) return numericAddress(hostname, numeric, read);
    if (read.signal?.aborted) {
      throw new NodeDnsError('ECANCELLED', 'getaddrinfo', hostname, { cause: read.signal.reason });
    }
    return findAddresses(dns, memo, hostname, read, settings);
  };
  /** The addresses with their TTLs now, as a promise. */
  const findWithTtl = async (hostname: string, read: ReadLookupOptions): Promise<FoundAddress[]> =>
    withTtl(await find(hostname, read), clock.now());

  const lookup = ((hostname: unknown, optionsOrCallback: unknown, maybeCallback?: unknown): void => {
    if (isOrigin(hostname)) {
      lookupOrigin(findWithTtl, hostname, optionsOrCallback, maybeCallback);
      return;
    }
    const callback = (typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback) as LookupCallback;
    if (hostname && typeof hostname !== 'string') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "hostname" argument must be of type string. ${received(hostname)}`,
      );
    }
    if (typeof callback !== 'function') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "callback" argument must be of type function. ${received(callback)}`,
      );
    }
    const read = readLookupOptions(typeof optionsOrCallback === 'function' ? undefined : optionsOrCallback);
    if (!hostname) {
      // What node:dns does with an empty name (deprecated there, kept for compatibility).
      if (read.all) process.nextTick(callback, null, []);
      else process.nextTick(callback, null, null, read.family === 6 ? 6 : 4);
      return;
    }
    let found: readonly KeptAddress[] | Promise<readonly KeptAddress[]>;
    try {
      found = find(hostname as string, read);
    } catch (error) {
      process.nextTick(callback, error as Error, null);
      return;
    }
    // A warm call (the memo's answer) makes no closure and no promise.
    const all = read.all;
    if (!(found instanceof Promise)) answer(callback, all, found);
    else
      found.then(
        (f) => answer(callback, all, f),
        (error: unknown) => process.nextTick(callback, error as Error, null),
      );
  }) as NodeDnsLookup;

  const promise = async (hostname: string, opts?: number | LookupOptions): Promise<LookupAddress | LookupAddress[]> => {
    if (hostname && typeof hostname !== 'string') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "hostname" argument must be of type string. ${received(hostname)}`,
      );
    }
    const read = readLookupOptions(opts);
    if (!hostname) return read.all ? [] : { address: null as unknown as string, family: read.family === 6 ? 6 : 4 };
    const found = await find(hostname, read);
    return read.all ? answerOf(found) : { address: found[0]!.address, family: found[0]!.family };
  };
  lookup.promise = promise;
  lookup.addresses = (hostname, opts) => findWithTtl(hostname, readLookupOptions(opts));
  // util.promisify(lookup) behaves like util.promisify(dns.lookup): { address, family }.
  Object.defineProperty(lookup, promisify.custom, { value: promise, enumerable: false });
  return lookup;
}

/**
 * Calls back on a later tick, as dns.lookup does (it uses nextTick too for an answer at hand):
 * `(null, [{ address, family }])` with `all`, `(null, address, family)` without.
 */
function answer(callback: LookupCallback, all: boolean, found: readonly KeptAddress[]): void {
  if (all) process.nextTick(callback, null, answerOf(found));
  else process.nextTick(callback, null, found[0]!.address, found[0]!.family);
}

/**
 * A numeric IPv4 name as getaddrinfo gives it: IPv4 for family 0 or 4; for family 6 mapped
 * with V4MAPPED, else EAI_ADDRFAMILY.
 */
function numericAddress(hostname: string, address: string, read: ReadLookupOptions): readonly KeptAddress[] {
  if (read.family !== 6) return [{ address, family: 4, ttl: 0, keptAt: 0 }];
  if ((read.hints & V4MAPPED) !== 0) return [{ address: `::ffff:${address}`, family: 6, ttl: 0, keptAt: 0 }];
  throw new NodeDnsError('EAI_ADDRFAMILY', 'getaddrinfo', hostname, { errno: uvErrno('EAI_ADDRFAMILY') });
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isOrigin(value: unknown): value is URL {
  return typeof value === 'object' && value !== null && typeof (value as URL).hostname === 'string';
}

/** undici's interceptor: every address of the origin's host, TTLs in ms; `dualStack: false` asks one family. */
function lookupOrigin(
  find: (hostname: string, read: ReadLookupOptions) => Promise<FoundAddress[]>,
  origin: URL,
  options: unknown,
  callback: unknown,
): void {
  if (typeof callback !== 'function') {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_TYPE',
      `The "callback" argument must be of type function. ${received(callback)}`,
    );
  }
  const o = (options ?? {}) as { dualStack?: boolean; affinity?: 4 | 6 | null };
  const family = o.dualStack === false && (o.affinity === 4 || o.affinity === 6) ? o.affinity : 0;
  const hostname = origin.hostname.replace(/^\[(.*)\]$/, '$1');
  const read: ReadLookupOptions = {
    family,
    hints: 0,
    all: true,
    order: 'ipv4first',
    signal: undefined,
    timeoutMs: undefined,
  };
  find(hostname, read).then(
    (found) =>
      process.nextTick(
        callback as InterceptorCallback,
        null,
        found.map((a) => ({ address: a.address, family: a.family, ttl: a.ttl * 1000 })),
      ),
    (error: unknown) => process.nextTick(callback as InterceptorCallback, error as Error, []),
  );
}
