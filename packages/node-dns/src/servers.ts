/**
 * Server lists as dns.Resolver's setServers() takes them and getServers() gives them: "IPv4",
 * "IPv4:port", "IPv6", "[IPv6]", "[IPv6]:port"; the port is shown only when it is not 53.
 */
import { isIP } from 'node:net';
import { NodeArgumentError, received } from './errors.js';

export interface ServerAddress {
  readonly address: string;
  readonly port: number;
}

/**
 * Throws ERR_INVALID_IP_ADDRESS (TypeError) for an entry that is not one of the forms above, or
 * whose port is outside 1..65535 (node:dns wraps such a port modulo 65536, or aborts on port 0).
 * A server given twice is kept once, as node:dns does.
 */
export function parseServers(servers: unknown): ServerAddress[] {
  const seen = new Set<string>();
  return parseEach(servers).filter((server) => {
    const key = formatServer(server);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function parseEach(servers: unknown): ServerAddress[] {
  if (!Array.isArray(servers)) {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_TYPE',
      `The "servers" argument must be an instance of Array. ${received(servers)}`,
    );
  }
  return servers.map((entry: unknown, index) => {
    if (typeof entry !== 'string') {
      throw new NodeArgumentError(
        'ERR_INVALID_ARG_TYPE',
        `The "servers[${index}]" argument must be of type string. ${received(entry)}`,
      );
    }
    const parsed = parseServer(entry);
    if (!parsed) throw new NodeArgumentError('ERR_INVALID_IP_ADDRESS', `Invalid IP address: ${entry}`);
    return parsed;
  });
}

function parseServer(text: string): ServerAddress | undefined {
  if (isIP(text)) return { address: text, port: 53 };
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) {
    const port = bracketed[2] === undefined ? 53 : Number(bracketed[2]);
    return isIP(bracketed[1]!) === 6 && validPort(port) ? { address: bracketed[1]!, port } : undefined;
  }
  const withPort = /^([^:]+):(\d{1,5})$/.exec(text);
  if (withPort && isIP(withPort[1]!) === 4 && validPort(Number(withPort[2]))) {
    return { address: withPort[1]!, port: Number(withPort[2]) };
  }
  return undefined;
}

function validPort(port: number): boolean {
  return port > 0 && port <= 65535;
}

/** getServers()'s form of one server. */
export function formatServer(server: ServerAddress): string {
  if (server.port === 53) return server.address;
  return isIP(server.address) === 6 ? `[${server.address}]:${server.port}` : `${server.address}:${server.port}`;
}
