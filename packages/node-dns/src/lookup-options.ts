/**
 * The arguments of dns.lookup(hostname[, options], callback), checked and read exactly as
 * Node 20 does (lib/dns.js): a number is the family; `verbatim` and then `order` choose the order;
 * `hints` may hold only ADDRCONFIG, V4MAPPED and ALL. Bad arguments throw Node's TypeErrors.
 */
import { ADDRCONFIG, ALL, V4MAPPED, getDefaultResultOrder } from 'node:dns';
import { NodeArgumentError, received } from './errors.js';

export type ResultOrder = 'ipv4first' | 'ipv6first' | 'verbatim';

export interface LookupOptions {
  /** 0 (both), 4, 6, 'IPv4' or 'IPv6'. */
  family?: number | 'IPv4' | 'IPv6' | undefined;
  /** dns.ADDRCONFIG, dns.V4MAPPED, dns.ALL, or'ed. */
  hints?: number | undefined;
  /** Every address, as [{ address, family }]. */
  all?: boolean | undefined;
  /** true: the order of the answers; false: IPv4 first. `order` wins over it. */
  verbatim?: boolean | undefined;
  order?: ResultOrder | undefined;
  /** dnscore: cancels the call (the callback gets ECANCELLED). */
  signal?: AbortSignal | undefined;
  /** dnscore: ms this call may take before EAI_AGAIN, in place of createLookup's `timeoutMs`. */
  timeout?: number | undefined;
}

export interface ReadLookupOptions {
  readonly family: 0 | 4 | 6;
  readonly hints: number;
  readonly all: boolean;
  readonly order: ResultOrder;
  readonly signal: AbortSignal | undefined;
  /** This call's own timeout; undefined: the lookup's. */
  readonly timeoutMs: number | undefined;
}

const FAMILIES = [0, 4, 6] as const;
const ORDERS: readonly ResultOrder[] = ['ipv4first', 'ipv6first', 'verbatim'];

/** Validates the options; throws NodeArgumentError as node:dns would. */
export function readLookupOptions(options: unknown): ReadLookupOptions {
  let family: 0 | 4 | 6 = 0;
  let hints = 0;
  let all = false;
  let order = getDefaultResultOrder() as ResultOrder;
  let signal: AbortSignal | undefined;
  let timeoutMs: number | undefined;
  if (typeof options === 'number') {
    family = oneOfFamilies(options, 'family');
  } else if (options !== undefined && options !== null) {
    if (typeof options !== 'object') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "options" argument must be one of type number or object. ${received(options)}`,
      );
    }
    const o = options as LookupOptions;
    if (o.hints != null) {
      if (typeof o.hints !== 'number') {
        throw new NodeArgumentError(
          'ERR_INVALID_ARG_TYPE',
          `The "options.hints" property must be of type number. ${received(o.hints)}`,
        );
      }
      hints = o.hints >>> 0;
      if ((hints & ~(ADDRCONFIG | ALL | V4MAPPED)) !== 0) {
        throw new NodeArgumentError('ERR_INVALID_ARG_VALUE', `The argument 'hints' is invalid. Received ${hints}`);
      }
    }
    if (o.family != null) {
      if (o.family === 'IPv4') family = 4;
      else if (o.family === 'IPv6') family = 6;
      else family = oneOfFamilies(o.family, 'options.family');
    }
    if (o.all != null) all = boolean(o.all, 'options.all');
    if (o.verbatim != null) order = boolean(o.verbatim, 'options.verbatim') ? 'verbatim' : 'ipv4first';
    if (o.order != null) {
      if (!ORDERS.includes(o.order)) {
        throw new NodeArgumentError(
          'ERR_INVALID_ARG_VALUE',
          `The property 'options.order' must be one of: 'ipv4first', 'ipv6first', 'verbatim'. ` +
            `Received '${String(o.order)}'`,
        );
      }
      order = o.order;
    }
    if (o.signal != null) {
      if (!(o.signal instanceof AbortSignal)) {
        throw new NodeArgumentError(
          'ERR_INVALID_ARG_TYPE',
          `The "options.signal" property must be an instance of AbortSignal. ${received(o.signal)}`,
        );
      }
      signal = o.signal;
    }
    if (o.timeout != null) timeoutMs = checkTimeout(o.timeout, 'options.timeout');
  }
  return { family, hints, all, order, signal, timeoutMs };
}

/** A timeout in ms: an integer in 1..2147483647 (what setTimeout can wait). */
export function checkTimeout(value: unknown, key: string): number {
  if (typeof value !== 'number') {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_TYPE',
      `The "${key}" property must be of type number. ${received(value)}`,
    );
  }
  if (!(Number.isInteger(value) && value > 0 && value <= 2_147_483_647)) {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_VALUE',
      `The property '${key}' must be an integer in 1..2147483647. Received ${String(value)}`,
    );
  }
  return value;
}

function oneOfFamilies(value: unknown, key: string): 0 | 4 | 6 {
  if (!FAMILIES.includes(value as 0)) {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_VALUE',
      `The ${key === 'family' ? 'argument' : 'property'} '${key}' must be one of: 0, 4, 6. Received ${String(value)}`,
    );
  }
  return value as 0 | 4 | 6;
}

function boolean(value: unknown, key: string): boolean {
  if (typeof value !== 'boolean') {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_TYPE',
      `The "${key}" property must be of type boolean. ${received(value)}`,
    );
  }
  return value;
}
