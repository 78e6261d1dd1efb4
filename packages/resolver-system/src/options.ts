/**
 * Where to ask (SystemResolverConfig) and how (SystemResolverOptions), kept apart as in
 * hickory-dns's ResolverConfig / ResolverOpts. Options are validated once, in the constructor.
 */
import {
  InvalidArgumentError,
  checkIntegerInRange,
  optionError,
  parseName,
  type Clock,
  type Timers,
} from '@dnscore/core/plugin';
import { MAX_NDOTS, MAX_UDP_PAYLOAD_SIZE, MIN_UDP_PAYLOAD_SIZE } from './defaults.js';

export interface SystemResolverConfig {
  /** "IP", "IP:PORT", "[IPv6]:PORT" or "IPv6"; replaces resolv.conf's nameservers when given. */
  readonly nameservers?: readonly string[];
  /** Search domains; replace resolv.conf's `search` / `domain` when given. */
  readonly search?: readonly string[];
  /** Dots a name needs to be tried as it is first (0..15); replaces resolv.conf's. */
  readonly ndots?: number;
  /** Default /etc/resolv.conf; a missing file is an empty one. */
  readonly resolvConf?: string;
  /** Default /etc/hosts; read only with the `useHosts` option. */
  readonly hosts?: string;
}

export interface SystemResolverOptions {
  /** Registry name (default "system"). */
  readonly name?: string;
  /** Registry priority, lower first (default 2147483647: tried last). */
  readonly priority?: number;
  /** Wait for one nameserver's answer, per try (default resolv.conf `timeout:` or 5000). */
  readonly timeoutMs?: number;
  /** Rounds over the nameservers (default resolv.conf `attempts:` or 2). */
  readonly attempts?: number;
  /** Start each query at the next nameserver (default resolv.conf `rotate`). */
  readonly rotate?: boolean;
  /** Queries asking nameservers at once; more wait (default 256). */
  readonly maxInFlight?: number;
  /** Pass the AD bit on as `secure` (default false: only when the path to the servers is trusted). */
  readonly trustAd?: boolean;
  /** Answer A/AAAA from the hosts file first (default false). */
  readonly useHosts?: boolean;
  /** EDNS0 UDP payload size, 512..4096 (default 1232). */
  readonly udpPayloadSize?: number;
  /** Send an EDNS0 OPT record (default true). */
  readonly edns?: boolean;
  /** Every query over TCP (default resolv.conf `use-vc`). */
  readonly forceTcp?: boolean;
  /** Set RD in queries (default true: a stub asks a recursive server). */
  readonly recursionDesired?: boolean;
  /**
   * Ask for the DNSSEC records and the data as it is (default false): DO in the OPT record
   * (RFC 3225) and CD in the header (RFC 4035 section 3.2.2), for a caller that validates
   * the answers itself. Needs EDNS (`edns` not false).
   */
  readonly dnssecRecords?: boolean;
  /**
   * 0x20: random case on every UDP query name, the answer must echo it (default true); a server
   * that does not is asked again plainly and remembered for an hour.
   */
  readonly caseRandomization?: boolean;
  /** TTL of hosts-file answers in seconds (default 0). */
  readonly hostsTtl?: number;
  /** How long a question whose answer did not fit UDP goes straight to TCP (default 600000; 0: never). */
  readonly tcpMemoryMs?: number;
  /** How many such questions are remembered (default 1024). */
  readonly tcpMemorySize?: number;
  /** Timers of the per-try timeouts (default the global ones, so fake timers apply). */
  readonly timers?: Timers;
  /** Clock of the TCP memory (default Date.now). */
  readonly clock?: Clock;
  /** Host name whose domain is the default search domain (default os.hostname()). */
  readonly hostname?: string;
}

/** Throws InvalidArgumentError naming the first bad option. */
export function validateOptions(options: SystemResolverOptions): void {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options must be an object');
  const o = options;
  if (o.name !== undefined && (typeof o.name !== 'string' || o.name.trim() === ''))
    bad('options.name', o.name, 'a non-empty string');
  if (o.priority !== undefined && !(typeof o.priority === 'number' && Number.isFinite(o.priority)))
    bad('options.priority', o.priority, 'a finite number');
  integer('options.timeoutMs', o.timeoutMs, 1, 2_147_483_647);
  integer('options.attempts', o.attempts, 1, 100);
  integer('options.maxInFlight', o.maxInFlight, 1, 65_535);
  integer('options.udpPayloadSize', o.udpPayloadSize, MIN_UDP_PAYLOAD_SIZE, MAX_UDP_PAYLOAD_SIZE);
  integer('options.hostsTtl', o.hostsTtl, 0, 2_147_483_647);
  integer('options.tcpMemoryMs', o.tcpMemoryMs, 0, 2_147_483_647);
  integer('options.tcpMemorySize', o.tcpMemorySize, 0, 1_000_000);
  for (const key of [
    'rotate',
    'trustAd',
    'useHosts',
    'edns',
    'forceTcp',
    'recursionDesired',
    'caseRandomization',
    'dnssecRecords',
  ] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean') bad(`options.${key}`, o[key], 'true or false');
  }
  if (
    o.timers !== undefined &&
    (typeof o.timers?.setTimeout !== 'function' || typeof o.timers?.clearTimeout !== 'function')
  ) {
    bad('options.timers', o.timers, 'an object with setTimeout and clearTimeout');
  }
  if (o.dnssecRecords === true && o.edns === false)
    bad('options.dnssecRecords', o.dnssecRecords, 'false when edns is false (DO travels in the OPT record)');
  if (o.clock !== undefined && typeof o.clock?.now !== 'function')
    bad('options.clock', o.clock, 'an object with now()');
  if (o.hostname !== undefined && typeof o.hostname !== 'string') bad('options.hostname', o.hostname, 'a string');
}

/**
 * Throws InvalidArgumentError for a config that is not what it should be (addresses are
 * checked where they are parsed).
 */
export function validateConfig(config: SystemResolverConfig): void {
  if (config === null || typeof config !== 'object') throw new InvalidArgumentError('config must be an object');
  if (config.nameservers !== undefined) {
    if (!Array.isArray(config.nameservers) || config.nameservers.length === 0)
      bad('config.nameservers', config.nameservers, 'a non-empty array of addresses');
  }
  if (config.search !== undefined) {
    if (!Array.isArray(config.search)) bad('config.search', config.search, 'an array of domain names');
    for (const domain of config.search) {
      if (typeof domain !== 'string' || domain === '' || domain === '.') bad('config.search', domain, 'a domain name');
      try {
        parseName(domain);
      } catch (error) {
        throw new InvalidArgumentError(`search domain "${domain}": ${(error as Error).message}`);
      }
    }
  }
  integer('config.ndots', config.ndots, 0, MAX_NDOTS);
  for (const key of ['resolvConf', 'hosts'] as const) {
    if (config[key] !== undefined && (typeof config[key] !== 'string' || config[key] === ''))
      bad(`config.${key}`, config[key], 'a file path');
  }
}

function integer(key: string, value: unknown, min: number, max: number): void {
  if (value !== undefined) checkIntegerInRange(value, key, min, max);
}

function bad(key: string, value: unknown, expected: string): never {
  throw optionError(key, value, expected);
}
