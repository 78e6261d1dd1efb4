/**
 * The settings a resolver runs with: explicit config and options first, then resolv.conf,
 * then the glibc defaults. Worked out once, in the constructor.
 */
import { hostname as osHostname } from 'node:os';
import {
  DEFAULT_HOSTS_FILE,
  DEFAULT_HOSTS_TTL,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_RESOLV_CONF,
  DEFAULT_TCP_MEMORY_MS,
  DEFAULT_TCP_MEMORY_SIZE,
  DEFAULT_TRUST_AD,
  DEFAULT_UDP_PAYLOAD_SIZE,
  DEFAULT_USE_HOSTS,
  FALLBACK_NAMESERVER,
} from './defaults.js';
import { validateConfig, validateOptions, type SystemResolverConfig, type SystemResolverOptions } from './options.js';
import { readResolvConf } from './resolv-conf.js';
import { parseServerAddress, type ServerAddress } from './server-address.js';

export interface SystemResolverSettings {
  readonly nameservers: readonly ServerAddress[];
  readonly search: readonly string[];
  readonly ndots: number;
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly rotate: boolean;
  readonly forceTcp: boolean;
  readonly maxInFlight: number;
  readonly trustAd: boolean;
  readonly useHosts: boolean;
  readonly hostsFile: string;
  readonly hostsTtl: number;
  /** EDNS0 payload size; undefined when EDNS is off. */
  readonly udpPayloadSize: number | undefined;
  readonly recursionDesired: boolean;
  /** DO and CD in queries: the DNSSEC records, unvalidated (for a validating caller). */
  readonly dnssecRecords: boolean;
  readonly caseRandomization: boolean;
  readonly tcpMemoryMs: number;
  readonly tcpMemorySize: number;
  /** resolv.conf lines that were not used, with the reason. */
  readonly skipped: readonly string[];
}

export function resolveSettings(config: SystemResolverConfig, options: SystemResolverOptions): SystemResolverSettings {
  validateConfig(config);
  validateOptions(options);
  const file = readResolvConf(config.resolvConf ?? DEFAULT_RESOLV_CONF, options.hostname ?? osHostname());
  const nameservers = config.nameservers
    ? config.nameservers.map((text) => parseServerAddress(text))
    : file.nameservers.length > 0
      ? file.nameservers
      : [parseServerAddress(FALLBACK_NAMESERVER)];
  return Object.freeze({
    nameservers: Object.freeze(nameservers),
    search: Object.freeze([...(config.search ?? file.search)]),
    ndots: config.ndots ?? file.ndots,
    timeoutMs: options.timeoutMs ?? file.timeoutMs,
    attempts: options.attempts ?? file.attempts,
    rotate: options.rotate ?? file.rotate,
    forceTcp: options.forceTcp ?? file.useVc,
    maxInFlight: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    trustAd: options.trustAd ?? DEFAULT_TRUST_AD,
    useHosts: options.useHosts ?? DEFAULT_USE_HOSTS,
    hostsFile: config.hosts ?? DEFAULT_HOSTS_FILE,
    hostsTtl: options.hostsTtl ?? DEFAULT_HOSTS_TTL,
    udpPayloadSize: options.edns === false ? undefined : (options.udpPayloadSize ?? DEFAULT_UDP_PAYLOAD_SIZE),
    recursionDesired: options.recursionDesired ?? true,
    dnssecRecords: options.dnssecRecords ?? false,
    caseRandomization: options.caseRandomization ?? true,
    tcpMemoryMs: options.tcpMemoryMs ?? DEFAULT_TCP_MEMORY_MS,
    tcpMemorySize: options.tcpMemorySize ?? DEFAULT_TCP_MEMORY_SIZE,
    skipped: file.skipped,
  });
}
