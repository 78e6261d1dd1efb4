/**
 * Nameserver addresses: "192.0.2.53", "192.0.2.53:5300", "2001:db8::53", "[2001:db8::53]:5300".
 * Only IP literals: a stub resolver cannot look up the name of its own nameserver.
 */
import { SocketAddress, isIPv4, isIPv6 } from 'node:net';
import { DNS_PORT } from './defaults.js';
import { InvalidServerAddressError } from './errors.js';

export interface ServerAddress {
  /** Canonical text of the IP address (RFC 5952 for IPv6), with its %zone when it has one. */
  readonly address: string;
  readonly port: number;
  readonly family: 4 | 6;
}

/**
 * Parses HOST, HOST:PORT, [IPV6]:PORT, [IPV6] or IPV6 (port 53 when none is given).
 * Throws InvalidServerAddressError for anything else.
 */
export function parseServerAddress(text: string): ServerAddress {
  if (typeof text !== 'string') throw new InvalidServerAddressError(String(text), 'not a string');
  const input = text.trim();
  if (input === '') throw new InvalidServerAddressError(text, 'it is empty');
  let host: string;
  let portText: string | undefined;
  if (input.startsWith('[')) {
    const close = input.indexOf(']');
    if (close < 0) throw new InvalidServerAddressError(text, 'the "[" has no matching "]"');
    host = input.slice(1, close);
    const rest = input.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw new InvalidServerAddressError(text, 'expected ":PORT" after "]"');
      portText = rest.slice(1);
    }
    if (!isIPv6(stripZone(host))) throw new InvalidServerAddressError(text, 'brackets must hold an IPv6 address');
  } else {
    const colons = input.split(':').length - 1;
    if (colons === 1) [host, portText] = input.split(':') as [string, string];
    else host = input;
  }
  const family = isIPv4(host) ? 4 : isIPv6(stripZone(host)) ? 6 : undefined;
  if (family === undefined) {
    throw new InvalidServerAddressError(text, `"${host}" is not an IP address (a nameserver must be given by address)`);
  }
  return Object.freeze({ address: canonicalAddress(host, family), port: parsePort(text, portText), family });
}

/** "127.0.0.1:53", "[::1]:53": the form of messages and of dedupe keys. */
export function formatServerAddress(server: ServerAddress): string {
  let text = formatted.get(server);
  if (text === undefined) {
    text = server.family === 6 ? `[${server.address}]:${server.port}` : `${server.address}:${server.port}`;
    formatted.set(server, text);
  }
  return text;
}

/** Each server's text, made once: a query asks for it on every try (the 0x20 memory's key). */
const formatted = new WeakMap<ServerAddress, string>();

/** True when a datagram's source (as dgram reports it) is exactly this server. */
export function isFromServer(server: ServerAddress, address: string, port: number): boolean {
  if (port !== server.port) return false;
  if (address === server.address) return true;
  // dgram writes addresses as inet_ntop does; compare canonical forms, the zone left aside.
  const family = server.family === 6 ? 'ipv6' : 'ipv4';
  try {
    return new SocketAddress({ address: stripZone(address), family }).address === stripZone(server.address);
  } catch {
    return false;
  }
}

function parsePort(text: string, portText: string | undefined): number {
  if (portText === undefined) return DNS_PORT;
  if (!/^\d{1,5}$/.test(portText)) throw new InvalidServerAddressError(text, `port "${portText}" is not a number`);
  const port = Number(portText);
  if (port < 1 || port > 65535) throw new InvalidServerAddressError(text, `port ${port} is not 1..65535`);
  return port;
}

function canonicalAddress(host: string, family: 4 | 6): string {
  const zoneAt = host.indexOf('%');
  const bare = zoneAt < 0 ? host : host.slice(0, zoneAt);
  const canonical = new SocketAddress({ address: bare, family: family === 6 ? 'ipv6' : 'ipv4' }).address;
  return zoneAt < 0 ? canonical : canonical + host.slice(zoneAt);
}

function stripZone(address: string): string {
  const zoneAt = address.indexOf('%');
  return zoneAt < 0 ? address : address.slice(0, zoneAt);
}
