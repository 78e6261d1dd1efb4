/**
 * The questions the API takes, from a query string (GET) or a JSON body (POST), checked once,
 * here: every value has a type, a range and a clear BadRequestError when it is wrong.
 */
import { isSipTransport, normalizeAddress, type SipTransport } from '@dnscore/sip';
import {
  DEFAULT_DRAWS,
  MAX_API_URI_LENGTH,
  MAX_DOWN_TARGETS,
  MAX_DRAWS,
  MAX_SIMULATED_REQUESTS,
  MAX_ZONE_TEXT,
} from '../defaults.js';
import { BadRequestError } from '../errors.js';

/** What the client asking can do, and where the answers come from. */
export interface SipQuestion {
  readonly uri: string;
  readonly transports: readonly SipTransport[];
  readonly ipv4: boolean;
  readonly ipv6: boolean;
  /** Seeds the SRV draw, as `dnscore sip --seed`. */
  readonly seed: number | undefined;
  /** Zone text to answer from instead of the server's backend. */
  readonly zone: string | undefined;
}

/** A server taken down in the failover simulation. */
export type PeerFault = 'silent' | '503' | 'refuse-tcp';
export const PEER_FAULTS: readonly PeerFault[] = Object.freeze(['silent', '503', 'refuse-tcp']);

export interface FailoverQuestion extends SipQuestion {
  /** Address -> what that server does. */
  readonly down: ReadonlyMap<string, PeerFault>;
  readonly requests: number;
  /** Per-target timer, ms. */
  readonly timerMs: number | undefined;
}

/** Parameters as received: strings from a query string, any JSON value from a body. */
export type Params = Readonly<Record<string, unknown>>;

export function sipQuestion(params: Params): SipQuestion {
  const uri = text(params, 'uri', MAX_API_URI_LENGTH, true)!;
  const transports = transportList(params.transports);
  const ipv4 = flag(params, 'ipv4', true);
  const ipv6 = flag(params, 'ipv6', true);
  if (!ipv4 && !ipv6) throw new BadRequestError('ipv4 and ipv6 cannot both be off');
  const seed = integer(params, 'seed', -(2 ** 31), 2 ** 32 - 1);
  const zone = text(params, 'zone', MAX_ZONE_TEXT, false);
  return { uri, transports, ipv4, ipv6, seed, zone };
}

export function drawCount(params: Params): number {
  return integer(params, 'n', 1, MAX_DRAWS) ?? DEFAULT_DRAWS;
}

export function failoverQuestion(params: Params): FailoverQuestion {
  const base = sipQuestion(params);
  const raw = params.down ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new BadRequestError('down must be an object: {"203.0.113.11": "silent" | "503" | "refuse-tcp"}');
  const entries = Object.entries(raw);
  if (entries.length > MAX_DOWN_TARGETS) throw new BadRequestError(`down names more than ${MAX_DOWN_TARGETS} servers`);
  const down = new Map<string, PeerFault>();
  for (const [address, fault] of entries) {
    if (address.length > 64) throw new BadRequestError('an address in down is longer than 64 characters');
    if (!(PEER_FAULTS as readonly unknown[]).includes(fault))
      throw new BadRequestError(`down["${address}"] must be one of ${PEER_FAULTS.join(', ')}`);
    // A key that is no address, or one written otherwise than the target's, would match nothing.
    const key = normalizeAddress(address)?.address;
    if (key === undefined)
      throw new BadRequestError(`down["${address}"]: the key must be a target's IPv4 or IPv6 address`);
    if (down.has(key)) throw new BadRequestError(`down names ${key} twice`);
    down.set(key, fault as PeerFault);
  }
  const requests = integer(params, 'requests', 1, MAX_SIMULATED_REQUESTS) ?? 2;
  const timerMs = integer(params, 'timerMs', 500, 64_000);
  return { ...base, down, requests, timerMs };
}

/** The check's target, and optional zone text. */
export function checkQuestion(params: Params): { target: string; zone: string | undefined } {
  return {
    target: text(params, 'target', MAX_API_URI_LENGTH, true)!,
    zone: text(params, 'zone', MAX_ZONE_TEXT, false),
  };
}

function text(params: Params, name: string, max: number, required: boolean): string | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === '') {
    if (required) throw new BadRequestError(`${name} is missing`);
    return undefined;
  }
  if (typeof value !== 'string') throw new BadRequestError(`${name} must be a string`);
  if (value.length > max) throw new BadRequestError(`${name} is longer than ${max} characters`);
  return value;
}

function transportList(value: unknown): SipTransport[] {
  if (value === undefined || value === null || value === '') return ['udp', 'tcp', 'tls'];
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list) || list.length === 0 || list.length > 3)
    throw new BadRequestError('transports must be a list of udp, tcp, tls');
  const out = list.map((t) => (typeof t === 'string' ? t.trim().toLowerCase() : t));
  const bad = out.find((t) => !isSipTransport(t));
  if (bad !== undefined)
    throw new BadRequestError(`transports must be a list of udp, tcp, tls, not ${JSON.stringify(bad)}`);
  return [...new Set(out as SipTransport[])];
}

function flag(params: Params, name: string, fallback: boolean): boolean {
  const value = params[name];
  if (value === undefined || value === null || value === '') return fallback;
  // The message offers 1 or 0: as JSON numbers too, not only in a query string.
  if (value === true || value === 1 || value === '1' || value === 'true') return true;
  if (value === false || value === 0 || value === '0' || value === 'false') return false;
  throw new BadRequestError(`${name} must be true or false (1 or 0)`);
}

function integer(params: Params, name: string, min: number, max: number): number | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^-?\d{1,12}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    throw new BadRequestError(`${name} must be a whole number in ${min}..${max}`);
  return n;
}
