/**
 * The addresses of a host name, as getaddrinfo finds them: A and AAAA asked at once through
 * dnscore, filtered by family and hints, put in the asked order. `localhost` and names under it
 * are the loopback addresses without a question (RFC 6761 section 6.3). An address is only
 * taken from a usable answer: a bogus one ends the call (EBOGUS), and with `requireSecure` only
 * DNSSEC-secure answers count (EINSECURE when the name has addresses, none of them secure).
 */
import { ADDRCONFIG, ALL, V4MAPPED } from 'node:dns';
import type { DnsApi, DnsResult } from '@dnscore/core';
import { errorCode, lookupCode, resultCode } from './codes.js';
import { NodeDnsError, uvErrno } from './errors.js';
import { configuredFamilies } from './interfaces.js';
import type { ReadLookupOptions } from './lookup-options.js';
import type { ResultMemo } from './result-memo.js';
import { callSignal, type CallSignal } from './call-signal.js';

export interface LookupAddress {
  address: string;
  family: 4 | 6;
}

/** An address with the TTL (seconds) of the record it came from. */
export interface FoundAddress extends LookupAddress {
  readonly ttl: number;
}

/**
 * An address as the lookup holds it: its record's TTL when it was kept, and the clock time (ms)
 * it was kept at. Made once per answer and shared by every call that reads the memo, so it is
 * frozen, and a call never hands it (or an array of them) out: see answerOf / withTtl.
 */
export interface KeptAddress extends FoundAddress {
  readonly keptAt: number;
}

/** What a lookup made by createLookup does on every call. */
export interface LookupSettings {
  readonly requireSecure: boolean;
  /** Per-call timeout of a call that asks the core; undefined: none of its own. */
  readonly timeoutMs: number | undefined;
}

const SYSCALL = 'getaddrinfo';

/**
 * The addresses of `hostname`, or a NodeDnsError (syscall getaddrinfo) when none can be given.
 * Synchronous (a value or a throw) when every answer it needs is in `memo`; a promise otherwise.
 * The array may be the memo's own: callers copy it (answerOf, withTtl) before handing it out.
 */
export function findAddresses(
  dns: DnsApi,
  memo: ResultMemo<Outcome>,
  hostname: string,
  options: ReadLookupOptions,
  settings: LookupSettings,
): readonly KeptAddress[] | Promise<readonly KeptAddress[]> {
  const { family, hints } = options;
  const configured = hints & ADDRCONFIG ? configuredFamilies() : BOTH_FAMILIES;
  // ADDRCONFIG and a family this host has no address of: nothing can be reached (glibc: EAI_NONAME).
  if ((family === 4 && !configured.ipv4) || (family === 6 && !configured.ipv6)) {
    throw new NodeDnsError('ENOTFOUND', SYSCALL, hostname, { errno: uvErrno('ENOTFOUND') });
  }
  const loopback = localhostAddresses(hostname, options);
  if (loopback) return loopback;
  const bothOff = !configured.ipv4 && !configured.ipv6; // a loopback-only host: ADDRCONFIG would say nothing
  const askA =
    family === 4 || (family === 0 && (configured.ipv4 || bothOff)) || (family === 6 && (hints & V4MAPPED) !== 0);
  const askAaaa = family === 6 || (family === 0 && (configured.ipv6 || bothOff));
  const key = hostname.toLowerCase();
  const memoized = memo.maxEntries > 0;
  const now = memoized ? memo.clock.now() : 0;
  const v4 = askA && memoized ? memo.get('A', key, now) : undefined;
  const v6 = askAaaa && memoized ? memo.get('AAAA', key, now) : undefined;
  if ((!askA || v4) && (!askAaaa || v6)) return combine(hostname, v4, v6, options, settings.requireSecure);
  // The signal (timeout, cancel) is made only for a call that asks the core.
  const call = callSignal(options.timeoutMs ?? settings.timeoutMs, [options.signal]);
  const { requireSecure } = settings;
  const a = askA ? (v4 ?? ask(dns, memo, hostname, key, 'A', call)) : undefined;
  const aaaa = askAaaa ? (v6 ?? ask(dns, memo, hostname, key, 'AAAA', call)) : undefined;
  // One question asked (the other family not wanted, or kept): no Promise.all.
  const found =
    a instanceof Promise && aaaa instanceof Promise
      ? Promise.all([a, aaaa]).then(([x, y]) => combine(hostname, x, y, options, requireSecure))
      : a instanceof Promise
        ? a.then((x) => combine(hostname, x, aaaa as Outcome | undefined, options, requireSecure))
        : (aaaa as Promise<Outcome>).then((y) => combine(hostname, a, y, options, requireSecure));
  return call.signal === undefined ? found : found.finally(call.done);
}

const BOTH_FAMILIES = { ipv4: true, ipv6: true } as const;
const NONE: readonly KeptAddress[] = Object.freeze([]);

/** What one A or AAAA question gave: the result and its addresses, or the error. */
export interface Outcome {
  readonly result?: DnsResult;
  readonly error?: unknown;
  /** The c-ares code of a negative result or an error; undefined when the result has data. */
  readonly code: string | undefined;
  /** The result's addresses. */
  readonly addresses: readonly KeptAddress[];
}

/** [{ address, family }], new objects in a new array, as dns.lookup gives them. */
export function answerOf(found: readonly KeptAddress[]): LookupAddress[] {
  const answer = new Array<LookupAddress>(found.length);
  for (let i = 0; i < found.length; i++) answer[i] = { address: found[i]!.address, family: found[i]!.family };
  return answer;
}

/** The addresses with their TTLs as they are at `now` (less the whole seconds since they were kept). */
export function withTtl(found: readonly KeptAddress[], now: number): FoundAddress[] {
  return found.map((a) => ({
    address: a.address,
    family: a.family,
    ttl: Math.max(0, a.ttl - Math.floor((now - a.keptAt) / 1000)),
  }));
}

function combine(
  hostname: string,
  v4: Outcome | undefined,
  v6: Outcome | undefined,
  options: ReadLookupOptions,
  requireSecure: boolean,
): readonly KeptAddress[] {
  const { family, hints } = options;
  const bogus = v4?.result?.bogus ? v4 : v6?.result?.bogus ? v6 : undefined;
  if (bogus) {
    throw new NodeDnsError('EBOGUS', SYSCALL, hostname, {
      result: bogus.result!,
      detail: `DNSSEC validation failed (${bogus.result!.whyBogus ?? 'bogus'})`,
    });
  }
  let fours = addressesOf(v4, requireSecure);
  let sixes = addressesOf(v6, requireSecure);
  if (family === 6) {
    // V4MAPPED: IPv4 addresses as ::ffff:a.b.c.d when there is no IPv6 one (or always with ALL).
    if (hints & V4MAPPED && fours.length > 0 && (sixes.length === 0 || hints & ALL)) {
      sixes = [...sixes, ...fours.map(toMapped)];
    }
    fours = NONE;
  }
  const found = ordered(fours, sixes, options.order);
  if (found.length > 0) return found;
  const asked = [v4, v6].filter((o): o is Outcome => o !== undefined);
  const insecure = requireSecure ? asked.find((o) => o.addresses.length > 0 && !o.result!.secure) : undefined;
  if (insecure) {
    throw new NodeDnsError('EINSECURE', SYSCALL, hostname, {
      result: insecure.result!,
      detail: 'the addresses are not DNSSEC-secure and requireSecure is set',
    });
  }
  throw failure(hostname, asked);
}

/** One question to the core; never rejects: a failure is an Outcome with its code. */
function ask(
  dns: DnsApi,
  memo: ResultMemo<Outcome>,
  hostname: string,
  key: string,
  type: 'A' | 'AAAA',
  call: CallSignal,
): Promise<Outcome> {
  const options = call.signal ? { signal: call.signal } : undefined;
  // Picked as the result is made (resolveWith): a lookup waiting in a burst ends up holding its
  // addresses, not the whole result.
  const pick = (result: DnsResult): Outcome => answered(memo, key, type, result);
  let asked: Promise<Outcome>;
  try {
    asked = dns.resolveWith
      ? dns.resolveWith(hostname, type, pick, options)
      : dns.resolve(hostname, type as string, options).then(pick);
  } catch (error) {
    return Promise.resolve(failed(error, call));
  }
  return asked.catch((error: unknown) => failed(error, call));
}

/** The outcome of a result, kept in the memo when it is usable. */
function answered(memo: ResultMemo<Outcome>, key: string, type: 'A' | 'AAAA', result: DnsResult): Outcome {
  const code = resultCode(result);
  const family = type === 'A' ? 4 : 6;
  const keptAt = memo.clock.now();
  const addresses =
    code === undefined
      ? result.records.map((r) => Object.freeze({ address: r.data as string, family, ttl: r.ttl, keptAt } as const))
      : NONE;
  const outcome: Outcome = { result, code, addresses };
  memo.set(type, key, result, outcome, keptAt);
  return outcome;
}

function failed(error: unknown, call: CallSignal): Outcome {
  const code = errorCode(error);
  // A timeout of ours aborts the call: it is a timeout, not a cancel.
  return { error, code: code === 'ECANCELLED' && call.timedOut() ? 'ETIMEOUT' : code, addresses: NONE };
}

/** The usable addresses of an outcome. */
function addressesOf(outcome: Outcome | undefined, requireSecure: boolean): readonly KeptAddress[] {
  if (!outcome || (requireSecure && !outcome.result?.secure)) return NONE;
  return outcome.addresses;
}

function toMapped(a: KeptAddress): KeptAddress {
  return { address: `::ffff:${a.address}`, family: 6, ttl: a.ttl, keptAt: a.keptAt };
}

/** Both families in the asked order; one of them as it is when the other has none. */
function ordered(
  fours: readonly KeptAddress[],
  sixes: readonly KeptAddress[],
  order: ReadLookupOptions['order'],
): readonly KeptAddress[] {
  if (sixes.length === 0) return fours;
  if (fours.length === 0) return sixes;
  if (order === 'ipv4first') return [...fours, ...sixes];
  if (order === 'ipv6first') return [...sixes, ...fours];
  // verbatim: what getaddrinfo's RFC 6724 sort gives in the common case, IPv6 first when the
  // host has an IPv6 address to reach it from.
  return configuredFamilies().ipv6 ? [...sixes, ...fours] : [...fours, ...sixes];
}

/** ECANCELLED, else EAI_AGAIN when a question got no usable answer, else ENOTFOUND. */
function failure(hostname: string, asked: readonly Outcome[]): NodeDnsError {
  const codes = asked.map((o) => lookupCode(o.code ?? 'ENODATA'));
  const code = codes.includes('ECANCELLED') ? 'ECANCELLED' : codes.includes('EAI_AGAIN') ? 'EAI_AGAIN' : 'ENOTFOUND';
  const cause = asked.find((o) => lookupCode(o.code ?? 'ENODATA') === code);
  return new NodeDnsError(code, SYSCALL, hostname, {
    ...(code === 'ECANCELLED' ? {} : { errno: uvErrno(code) }),
    ...(cause?.result ? { result: cause.result } : {}),
    ...(cause?.error !== undefined ? { cause: cause.error } : {}),
  });
}

const LOCALHOST = /(?:^|\.)localhost\.?$/i;

/** RFC 6761 section 6.3: localhost and names under it are the loopback addresses, never asked. */
function localhostAddresses(hostname: string, options: ReadLookupOptions): readonly KeptAddress[] | undefined {
  // Only a name ending in t, T or a dot can be one: the others skip the regex.
  const last = hostname.charCodeAt(hostname.length - 1) | 0x20;
  if ((last !== 0x74 && last !== 0x2e) || !LOCALHOST.test(hostname)) return undefined;
  if (options.family === 4) return LOOPBACK_4;
  if (options.family === 6) return LOOPBACK_6;
  // IPv4 first unless asked otherwise: a server listening on "localhost" listens on 127.0.0.1.
  return options.order === 'ipv6first' ? LOOPBACK_64 : LOOPBACK_46;
}

const FOUR: KeptAddress = Object.freeze({ address: '127.0.0.1', family: 4, ttl: 0, keptAt: 0 });
const SIX: KeptAddress = Object.freeze({ address: '::1', family: 6, ttl: 0, keptAt: 0 });
const LOOPBACK_4 = Object.freeze([FOUR]);
const LOOPBACK_6 = Object.freeze([SIX]);
const LOOPBACK_46 = Object.freeze([FOUR, SIX]);
const LOOPBACK_64 = Object.freeze([SIX, FOUR]);
