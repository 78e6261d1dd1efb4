/**
 * The addresses of a host name, as getaddrinfo finds them: A and AAAA asked at once through
 * dnscore, filtered by family and hints, put in the asked order. `localhost` and names under it
 * are the loopback addresses without a question (RFC 6761 section 6.3). An address is only
 * taken from a usable answer: a bogus one ends the call (EBOGUS), and with `requireSecure` only
 * DNSSEC-secure answers count (EINSECURE when the name has addresses, none of them secure).
 */
import { ADDRCONFIG, ALL, V4MAPPED } from 'node:dns';
import type { DnsResolver, DnsResult } from '@dnscore/core';
import { errorCode, lookupCode, resultCode } from './codes.js';
import { NodeDnsError, uvErrno } from './errors.js';
import { configuredFamilies } from './interfaces.js';
import type { ReadLookupOptions } from './lookup-options.js';
import type { AnswerMemo } from './answer-memo.js';
import type { CallSignal } from './call-signal.js';

export interface LookupAddress {
  address: string;
  family: 4 | 6;
}

/** An address with the TTL (seconds) of the record it came from. */
export interface FoundAddress extends LookupAddress {
  readonly ttl: number;
}

export interface FindOptions extends Omit<ReadLookupOptions, 'all'> {
  readonly requireSecure: boolean;
  /** Starts the signal of a call that must ask the core (its timeout and cancel); not made for a memo hit. */
  readonly startCall: () => CallSignal;
}

const SYSCALL = 'getaddrinfo';

/**
 * The addresses of `hostname`, or a NodeDnsError (syscall getaddrinfo) when none can be given.
 * Synchronous (a value or a throw) when every answer it needs is in `memo`; a promise otherwise.
 */
export function findAddresses(
  core: DnsResolver,
  memo: AnswerMemo,
  hostname: string,
  options: FindOptions,
): FoundAddress[] | Promise<FoundAddress[]> {
  const loopback = localhostAddresses(hostname, options);
  if (loopback) return loopback;
  const { family, hints } = options;
  const configured = hints & ADDRCONFIG ? configuredFamilies() : { ipv4: true, ipv6: true };
  const bothOff = !configured.ipv4 && !configured.ipv6; // a loopback-only host: ADDRCONFIG would say nothing
  const askA =
    family === 4 || (family === 0 && (configured.ipv4 || bothOff)) || (family === 6 && (hints & V4MAPPED) !== 0);
  const askAaaa = family === 6 || (family === 0 && (configured.ipv6 || bothOff));
  const v4 = askA ? remembered(memo, hostname, 'A') : undefined;
  const v6 = askAaaa ? remembered(memo, hostname, 'AAAA') : undefined;
  if ((!askA || v4) && (!askAaaa || v6)) return combine(hostname, v4, v6, options);
  const call = options.startCall();
  return Promise.all([
    askA ? (v4 ?? ask(core, memo, hostname, 'A', call)) : undefined,
    askAaaa ? (v6 ?? ask(core, memo, hostname, 'AAAA', call)) : undefined,
  ])
    .then(([a, aaaa]) => combine(hostname, a, aaaa, options))
    .finally(call.done);
}

function combine(
  hostname: string,
  v4: Outcome | undefined,
  v6: Outcome | undefined,
  options: FindOptions,
): FoundAddress[] {
  const { family, hints } = options;
  const asked = [v4, v6].filter((o): o is Outcome => o !== undefined);
  const bogus = asked.find((o) => o.result?.bogus);
  if (bogus) {
    throw new NodeDnsError('EBOGUS', SYSCALL, hostname, {
      result: bogus.result!,
      detail: `DNSSEC validation failed (${bogus.result!.whyBogus ?? 'bogus'})`,
    });
  }
  let fours = addressesOf(v4, 4, options.requireSecure);
  let sixes = addressesOf(v6, 6, options.requireSecure);
  if (family === 6) {
    // V4MAPPED: IPv4 addresses as ::ffff:a.b.c.d when there is no IPv6 one (or always with ALL).
    const mapped = hints & V4MAPPED && (sixes.length === 0 || hints & ALL) ? fours.map(toMapped) : [];
    sixes = [...sixes, ...mapped];
    fours = [];
  }
  const found = ordered(fours, sixes, options.order);
  if (found.length > 0) return found;
  const insecure = options.requireSecure
    ? asked.find((o) => o.result && !o.result.secure && o.result.records.length > 0)
    : undefined;
  if (insecure) {
    throw new NodeDnsError('EINSECURE', SYSCALL, hostname, {
      result: insecure.result!,
      detail: 'the addresses are not DNSSEC-secure and requireSecure is set',
    });
  }
  throw failure(hostname, asked);
}

interface Outcome {
  readonly result?: DnsResult;
  readonly error?: unknown;
  /** The c-ares code of a negative result or an error; undefined when the result has data. */
  readonly code: string | undefined;
  /** Seconds the result has been kept by the memo. */
  readonly age: number;
}

function remembered(memo: AnswerMemo, hostname: string, type: 'A' | 'AAAA'): Outcome | undefined {
  const kept = memo.get(type, hostname);
  return kept ? { result: kept.result, code: resultCode(kept.result), age: kept.age } : undefined;
}

async function ask(
  core: DnsResolver,
  memo: AnswerMemo,
  hostname: string,
  type: 'A' | 'AAAA',
  call: CallSignal,
): Promise<Outcome> {
  try {
    const result = await core.resolve(hostname, type as string, call.signal ? { signal: call.signal } : undefined);
    memo.set(type, hostname, result);
    return { result, code: resultCode(result), age: 0 };
  } catch (error) {
    const code = errorCode(error);
    // A timeout of ours aborts the call: it is a timeout, not a cancel.
    return { error, code: code === 'ECANCELLED' && call.timedOut() ? 'ETIMEOUT' : code, age: 0 };
  }
}

function addressesOf(outcome: Outcome | undefined, family: 4 | 6, requireSecure: boolean): FoundAddress[] {
  const result = outcome?.result;
  if (!result || outcome.code !== undefined || (requireSecure && !result.secure)) return [];
  return result.records.map((r) => ({ address: r.data as string, family, ttl: Math.max(0, r.ttl - outcome.age) }));
}

function toMapped(a: FoundAddress): FoundAddress {
  return { address: `::ffff:${a.address}`, family: 6, ttl: a.ttl };
}

function ordered(fours: FoundAddress[], sixes: FoundAddress[], order: ReadLookupOptions['order']): FoundAddress[] {
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
function localhostAddresses(hostname: string, options: FindOptions): FoundAddress[] | undefined {
  if (!LOCALHOST.test(hostname)) return undefined;
  const four: FoundAddress = { address: '127.0.0.1', family: 4, ttl: 0 };
  const six: FoundAddress = { address: '::1', family: 6, ttl: 0 };
  if (options.family === 4) return [four];
  if (options.family === 6) return [six];
  // IPv4 first unless asked otherwise: a server listening on "localhost" listens on 127.0.0.1.
  return options.order === 'ipv6first' ? [six, four] : [four, six];
}
