/**
 * What travels through Redis, and the checks on the way in. Redis is shared with other programs
 * and other people: nothing read from it (a key, a value, a remaining time, a pub/sub message) is
 * trusted beyond its shape. Anything else is dropped. Durations travel as remaining
 * milliseconds, so the nodes need no clock agreement.
 */
import { destinationKey, type PenaltyReason, type SipTransport } from '@dnscore/sip';

const REASONS: Readonly<Record<PenaltyReason, true>> = {
  'retry-after': true,
  'service-unavailable': true,
  'failover-response': true,
  timeout: true,
  'transport-error': true,
  manual: true,
};

/** Longest detail text kept (the box's own details are short sentences). */
export const MAX_DETAIL_LENGTH = 256;
/** Longest pub/sub message or value read; anything longer is not ours. */
export const MAX_WIRE_LENGTH = 1024;

/** The part of an entry stored as the value of its key (the end is the key's own expiry). */
export interface EntryValue {
  readonly reason: PenaltyReason;
  readonly detail: string;
}

/** A pub/sub message: a mark for `ms` from now, or a clear. */
export type WireMessage =
  | {
      readonly type: 'mark';
      readonly node: string;
      readonly key: string;
      readonly ms: number;
      readonly value: EntryValue;
    }
  | { readonly type: 'clear'; readonly node: string; readonly key: string };

/**
 * Longest a detail may be once written twice as JSON (the value, then the message holding it):
 * the rest of a message takes at most about 160 characters, so it stays within MAX_WIRE_LENGTH.
 */
const MAX_DETAIL_IN_MESSAGE = 768;

export function encodeValue(value: EntryValue): string {
  return JSON.stringify({ r: value.reason, d: fitDetail(value.detail) });
}

/**
 * The detail, cut to MAX_DETAIL_LENGTH and then as far as needed for a message to fit: a quote
 * or a backslash takes 4 characters in a message, a control character 7. Uncut, a detail full
 * of them made a mark every other node dropped for its length.
 */
function fitDetail(detail: string): string {
  let fitted = detail.slice(0, MAX_DETAIL_LENGTH);
  while (JSON.stringify(JSON.stringify(fitted)).length > MAX_DETAIL_IN_MESSAGE) fitted = fitted.slice(0, -1);
  return fitted;
}

export function decodeValue(text: unknown): EntryValue | undefined {
  const object = parseObject(text);
  if (!object) return undefined;
  const { r, d } = object;
  if (typeof r !== 'string' || !Object.hasOwn(REASONS, r)) return undefined;
  if (typeof d !== 'string' || d.length > MAX_DETAIL_LENGTH) return undefined;
  return { reason: r as PenaltyReason, detail: d };
}

export function encodeMessage(message: WireMessage): string {
  return message.type === 'mark'
    ? JSON.stringify({ t: 'm', n: message.node, k: message.key, ms: message.ms, v: encodeValue(message.value) })
    : JSON.stringify({ t: 'c', n: message.node, k: message.key });
}

export function decodeMessage(text: unknown): WireMessage | undefined {
  const object = parseObject(text);
  if (!object) return undefined;
  const { t, n, k } = object;
  if (typeof n !== 'string' || n.length > 64 || typeof k !== 'string' || !isDestinationKey(k)) return undefined;
  if (t === 'c') return { type: 'clear', node: n, key: k };
  if (t !== 'm') return undefined;
  const ms = remainingMs(object.ms);
  const value = decodeValue(object.v);
  if (ms === undefined || !value) return undefined;
  return { type: 'mark', node: n, key: k, ms, value };
}

/** A remaining time as Redis or a peer gives it: a positive integer of ms, else undefined. */
export function remainingMs(value: unknown): number | undefined {
  const ms = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof ms === 'number' && Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

/** True for a canonical `destinationKey()`: "udp 192.0.2.1 5060", "tls 2001:db8::1 5061". */
export function isDestinationKey(key: string): boolean {
  const parts = key.split(' ');
  if (parts.length !== 3) return false;
  const [transport, address, port] = parts as [string, string, string];
  if (!/^\d{1,5}$/.test(port)) return false;
  try {
    // destinationKey throws on an unknown transport, a bad address or port; a key that is not
    // already in its canonical form is not one this package wrote.
    return destinationKey({ transport: transport as SipTransport, address, port: Number(port) }) === key;
  } catch {
    return false;
  }
}

function parseObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string' || text.length > MAX_WIRE_LENGTH) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}
