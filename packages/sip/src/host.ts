/**
 * The host part of a SIP URI (RFC 3261 section 25.1): a host name, an IPv4 address, or a
 * bracketed IPv6 reference. Host names are compared case-insensitively and kept lowercase;
 * IPv6 addresses are kept in RFC 5952 form, the form targets and penalty-box keys use.
 */
import { isIPv4, isIPv6, SocketAddress } from 'node:net';
import { parseName } from '@dnscore/core';
import type { AddressFamily } from './transport.js';

export type HostKind = 'hostname' | 'ipv4' | 'ipv6';

export interface SipHost {
  /** Lowercase host name without a trailing dot, dotted-quad IPv4, or RFC 5952 IPv6 without brackets. */
  readonly host: string;
  readonly kind: HostKind;
}

/** A reason the host is invalid, or the parsed host. */
export type HostParse = { readonly ok: true; readonly host: SipHost } | { readonly ok: false; readonly reason: string };

const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const TOP_LABEL = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

/** Parses `host = hostname / IPv4address / IPv6reference`; `text` keeps the brackets of an IPv6 reference. */
export function parseHost(text: string): HostParse {
  if (text === '') return { ok: false, reason: 'the host is empty' };
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) return { ok: false, reason: `the IPv6 reference "${text}" has no closing "]"` };
    if (text.includes('%'))
      return {
        ok: false,
        reason:
          `"${text}" has a zone identifier, which a SIP URI's IPv6 reference does not allow ` +
          `(RFC 3261 section 25.1)`,
      };
    const address = normalizeIpv6(text.slice(1, -1));
    return address
      ? { ok: true, host: { host: address, kind: 'ipv6' } }
      : { ok: false, reason: `"${text}" is not a valid IPv6 address` };
  }
  if (text.includes(':'))
    return { ok: false, reason: `"${text}" looks like an IPv6 address: write it in brackets, [${text}]` };
  if (/^[0-9.]+$/.test(text)) {
    const ipv4 = parseIpv4(text);
    if (typeof ipv4 === 'string' && isIPv4(ipv4)) return { ok: true, host: { host: ipv4, kind: 'ipv4' } };
    return { ok: false, reason: typeof ipv4 === 'object' ? ipv4.reason : `"${text}" is not a valid IPv4 address` };
  }
  return parseHostname(text);
}

function parseHostname(text: string): HostParse {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  const labels = name.split('.');
  for (const [i, label] of labels.entries()) {
    const rule = i === labels.length - 1 ? TOP_LABEL : DOMAIN_LABEL;
    if (!rule.test(label)) {
      const what = label === '' ? 'an empty label' : `the label "${label}"`;
      const why =
        i === labels.length - 1
          ? 'the last label must start with a letter; labels hold letters, digits and inner hyphens'
          : 'labels hold letters, digits and inner hyphens';
      return { ok: false, reason: `host name "${text}" has ${what} (${why})` };
    }
  }
  try {
    parseName(name); // label <= 63 and name <= 255 octets (RFC 1035 section 2.3.4)
  } catch (error) {
    return { ok: false, reason: `host name "${text}": ${(error as Error).message}` };
  }
  return { ok: true, host: { host: name.toLowerCase(), kind: 'hostname' } };
}

/** "1.2.3.4" -> itself; leading zeros are refused: inet_aton-based stacks would read them as octal. */
function parseIpv4(text: string): string | { reason: string } | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^[0-9]{1,3}$/.test(p))) return undefined;
  if (parts.some((p) => p.length > 1 && p.startsWith('0'))) {
    return { reason: `IPv4 address "${text}" has a leading zero, which some stacks read as octal` };
  }
  if (parts.some((p) => Number(p) > 255)) return { reason: `IPv4 address "${text}" has an octet above 255` };
  return parts.join('.');
}

/** RFC 5952 text of an IPv6 address, or undefined; zone identifiers ("%eth0") are refused. */
export function normalizeIpv6(text: string): string | undefined {
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || !isIPv6(text)) return undefined;
  return new SocketAddress({ address: text, family: 'ipv6' }).address;
}

/** An IP address in canonical form with its family, or undefined when it is not one. */
export function normalizeAddress(
  text: string,
): { readonly address: string; readonly family: AddressFamily } | undefined {
  if (typeof text !== 'string') return undefined;
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const parsed = parseIpv4(bare);
  if (typeof parsed === 'string' && isIPv4(parsed)) return { address: parsed, family: 4 };
  const v6 = normalizeIpv6(bare);
  return v6 ? { address: v6, family: 6 } : undefined;
}

/** The host as written in a URI: IPv6 in brackets. */
export function formatHost(host: SipHost): string {
  return host.kind === 'ipv6' ? `[${host.host}]` : host.host;
}
