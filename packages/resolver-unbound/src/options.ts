/**
 * Options of the libunbound backend (Asterisk's resolver_unbound.conf and more), checked once
 * and turned into an ordered list of labelled steps on a libunbound context, so that an
 * option libunbound refuses is named in the error.
 */
import { accessSync, constants } from 'node:fs';
import { isIP } from 'node:net';
import { formatName, parseName } from '@dnscore/core/plugin';
import {
  DEFAULT_HARDEN_ALGO_DOWNGRADE,
  DEFAULT_HOSTS_FILE,
  DEFAULT_INFRA_CACHE_MAX_RTT_MS,
  DEFAULT_INFRA_HOST_TTL_S,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_NUM_QUERIES_PER_THREAD,
  DEFAULT_OUTGOING_NUM_TCP,
  DEFAULT_OUTGOING_RANGE,
  DEFAULT_QNAME_MINIMISATION,
  DEFAULT_RESOLV_CONF,
  DEFAULT_THREADS,
  DEFAULT_UNBOUND_NAME,
  DEFAULT_UNBOUND_PRIORITY,
  MAX_THREADS,
  NO_ANCHOR_MODULE_CONFIG,
} from './defaults.js';
import { UnboundOptionError } from './errors.js';
import { PROCESS_WIDE_OPTIONS, type ProcessWideSetting, type ProcessWideSettings } from './process-wide.js';
import { defaultRootAnchors } from './trust-anchors.js';
import type { UnboundContext } from './unbound-context.js';
import type { UpstreamPlan } from './upstream.js';

/** A zone asked of its own servers (libunbound's stub-zone). */
export interface StubZone {
  readonly name: string;
  /** "IP", "IP@PORT", "IPv4:PORT" or "[IPv6]:PORT". */
  readonly addresses: readonly string[];
  /** Ask the servers for the zone's NS set first (stub-prime; default false). */
  readonly prime?: boolean;
}

/** A local zone (libunbound's local-zone), e.g. `{ name: 'test', type: 'transparent' }`. */
export interface LocalZone {
  readonly name: string;
  /** transparent, static, deny, refuse, redirect, typetransparent, always_nxdomain, ... */
  readonly type: string;
}

export type UnboundOptionValue = string | number | boolean;

export interface UnboundOptions {
  /** Registry name (default "unbound"). Fixed at construction. */
  readonly name?: string;
  /** Registry priority (default 100, as Asterisk). Fixed at construction. */
  readonly priority?: number;
  /** Hosts file read as local data (default /etc/hosts); false reads none. */
  readonly hosts?: string | false;
  /**
   * resolv.conf whose nameservers become forwarders (default /etc/resolv.conf, but none when
   * `nameservers` are given); false reads none. Given with `nameservers`, both are forwarders.
   */
  readonly resolvConf?: string | false;
  /**
   * Forwarders: "IP", "IP@PORT", "IPv4:PORT", "[IPv6]:PORT". They replace resolv.conf's unless
   * `resolvConf` is given too: libunbound asks any forwarder, by measured round trip, not in order.
   */
  readonly nameservers?: readonly string[];
  readonly stubZones?: readonly StubZone[];
  /**
   * Trust anchors as DS or DNSKEY text ("biloxi.example. IN DS 12345 13 2 ..."). Given (or
   * `trustAnchorFiles` given), they replace the default root anchors, as delv's -a does; an
   * empty list means no validation.
   */
  readonly trustAnchors?: readonly string[];
  /** Files of DS or DNSKEY records (libunbound's trust-anchor-file); replace the defaults too. */
  readonly trustAnchorFiles?: readonly string[];
  /** Names whose subtree is treated as insecure (libunbound's domain-insecure). */
  readonly insecureDomains?: readonly string[];
  readonly localZones?: readonly LocalZone[];
  /** Local records in presentation form ("goose.feathers 12345 IN A 127.0.0.2"). */
  readonly localData?: readonly string[];
  /** libunbound's verbosity, 0..5 (default 0); libunbound logs to stderr. */
  readonly debugLevel?: number;
  /** QNAME minimisation, RFC 9156 (default true, libunbound's default); see the README for its cost. */
  readonly qnameMinimisation?: boolean;
  /** Cap on a server's retransmit timeout in ms (infra-cache-max-rtt; default 1000). */
  readonly infraCacheMaxRtt?: number;
  /** Seconds a server that timed out stays "down" (infra-host-ttl; default 60). */
  readonly infraHostTtl?: number;
  /** Any libunbound option by its unbound.conf name; an array sets a list option once per item. Applied last. */
  readonly options?: Readonly<Record<string, UnboundOptionValue | readonly UnboundOptionValue[]>>;
  /**
   * Use only the strongest DS digest type and require every DS algorithm's signatures
   * (libunbound's harden-algo-downgrade; default true, RFC 4509 section 3). False accepts a
   * SHA-1 DS where a SHA-256 one fails, and zones mid-way through a broken algorithm rollover.
   */
  readonly hardenAlgoDowngrade?: boolean;
  /** Reject answers DNSSEC did not validate with InsecureAnswerError (for DANE/TLSA callers). */
  readonly requireSecure?: boolean;
  /** Questions handed to libunbound at once; the others wait their turn (default 1024). */
  readonly maxInFlight?: number;
  /**
   * libunbound contexts, each on a thread of its own, that questions are spread over by a hash
   * of the question (identical questions meet in one context, which merges them); 1..16,
   * default 1. Each context has its own cache (README: "Threads").
   */
  readonly threads?: number;
}

/** One change to a libunbound context, labelled with the option it comes from. */
export interface ContextStep {
  readonly option: string;
  apply(context: UnboundContext): void;
}

export interface ContextPlan {
  readonly name: string;
  readonly priority: number;
  readonly steps: readonly ContextStep[];
  readonly requireSecure: boolean;
  readonly maxInFlight: number;
  /** libunbound contexts (each with its resolver thread) the questions are spread over. */
  readonly threads: number;
  /** Where the trust anchors come from, for messages: "options", a root.ds path or "built-in". */
  readonly anchorSource: string;
  /**
   * The trust anchors' zones ("." for the root ones, "biloxi.example."): their DNSKEY is asked
   * as soon as a context is made, so that validated questions find it cached or in flight.
   */
  readonly anchorZones: readonly string[];
  /** Stub zones and forwarders, for the query trace (libunbound does not say whom it asked). */
  readonly upstream: UpstreamPlan;
  /**
   * libunbound's val-clean-additional is on (its default; `options` may turn it off): the
   * validator strips every additional RRset that did not validate from a secure answer.
   */
  readonly cleanAdditional: boolean;
  /** The settings libunbound keeps for the whole process (process-wide.ts), the last given of each. */
  readonly processWide: ProcessWideSettings;
}

/** The files read when `hosts` and `resolvConf` are not given (tests put others in their place). */
export interface DefaultFiles {
  readonly hosts: string;
  readonly resolvConf: string;
}

const SYSTEM_FILES: DefaultFiles = { hosts: DEFAULT_HOSTS_FILE, resolvConf: DEFAULT_RESOLV_CONF };

/**
 * Checks `options` and lists the steps that configure a context with them, in libunbound's
 * order. A default file that cannot be read is left out (a container without /etc/hosts, say),
 * where a file given that cannot be read is an error.
 */
export function planContext(options: UnboundOptions = {}, defaults: DefaultFiles = SYSTEM_FILES): ContextPlan {
  if (options === null || typeof options !== 'object') throw new UnboundOptionError('options', 'must be an object');
  const steps: ContextStep[] = [];
  const processWide = new Map<string, ProcessWideSetting>();
  const set = (option: string, name: string, value: string): void => {
    steps.push({ option, apply: (ctx) => ctx.setOption(name, value) });
    if (PROCESS_WIDE_OPTIONS.has(name)) processWide.set(name, { value, option });
  };

  const rtt = positiveInteger(options.infraCacheMaxRtt ?? DEFAULT_INFRA_CACHE_MAX_RTT_MS, 'infraCacheMaxRtt');
  set('infraCacheMaxRtt', 'infra-cache-max-rtt', String(rtt));
  set(
    'infraHostTtl',
    'infra-host-ttl',
    String(positiveInteger(options.infraHostTtl ?? DEFAULT_INFRA_HOST_TTL_S, 'infraHostTtl')),
  );
  set(
    'qnameMinimisation',
    'qname-minimisation',
    yesNo(options.qnameMinimisation ?? DEFAULT_QNAME_MINIMISATION, 'qnameMinimisation'),
  );
  set(
    'hardenAlgoDowngrade',
    'harden-algo-downgrade',
    yesNo(options.hardenAlgoDowngrade ?? DEFAULT_HARDEN_ALGO_DOWNGRADE, 'hardenAlgoDowngrade'),
  );
  // Sized for bursts (libunbound as a library allows 16 sockets, 30 questions and 2 TCP streams at once).
  set('outgoing-range (default)', 'outgoing-range', String(DEFAULT_OUTGOING_RANGE));
  set('num-queries-per-thread (default)', 'num-queries-per-thread', String(DEFAULT_NUM_QUERIES_PER_THREAD));
  set('outgoing-num-tcp (default)', 'outgoing-num-tcp', String(DEFAULT_OUTGOING_NUM_TCP));
  if (options.debugLevel !== undefined) {
    if (!Number.isInteger(options.debugLevel) || options.debugLevel < 0 || options.debugLevel > 5) {
      throw new UnboundOptionError('debugLevel', `${String(options.debugLevel)} is not an integer 0..5`);
    }
    set('debugLevel', 'verbosity', String(options.debugLevel));
  }

  const hosts = fileOption(options.hosts, readable(defaults.hosts), 'hosts');
  if (hosts) steps.push({ option: 'hosts', apply: (ctx) => ctx.setHosts(hosts) });
  const upstream = { stubZones: [] as { zone: string; addresses: string[] }[], forwarders: [] as string[] };
  const nameservers = list(options.nameservers, 'nameservers');
  nameservers.forEach((server, i) => {
    const address = unboundAddress(server, `nameservers[${i}]`);
    upstream.forwarders.push(address);
    steps.push({ option: `nameservers[${i}]`, apply: (ctx) => ctx.setForward(address) });
  });
  // libunbound picks any forwarder within its round-trip band (at first, at random), never in
  // the order given: resolv.conf's beside the given ones would answer some questions with
  // another view of DNS. Given nameservers replace them, as the system backend's do.
  const resolvConf = fileOption(
    options.resolvConf,
    nameservers.length > 0 ? undefined : readable(defaults.resolvConf),
    'resolvConf',
  );
  if (resolvConf) steps.push({ option: 'resolvConf', apply: (ctx) => ctx.setResolveConf(resolvConf) });

  list(options.stubZones, 'stubZones').forEach((stub, i) => {
    const label = `stubZones[${i}]`;
    if (!stub || typeof stub !== 'object') throw new UnboundOptionError(label, 'must be { name, addresses }');
    const zone = zoneName(stub.name, `${label}.name`);
    const addresses = list(stub.addresses, `${label}.addresses`);
    if (addresses.length === 0) throw new UnboundOptionError(`${label}.addresses`, 'needs at least one address');
    const stubAddresses: string[] = [];
    upstream.stubZones.push({ zone, addresses: stubAddresses });
    addresses.forEach((address, j) => {
      const where = `${label}.addresses[${j}]`;
      const normalized = unboundAddress(address, where);
      stubAddresses.push(normalized);
      steps.push({ option: where, apply: (ctx) => ctx.setStub(zone, normalized, stub.prime ?? false) });
    });
  });

  list(options.localZones, 'localZones').forEach((local, i) => {
    const label = `localZones[${i}]`;
    if (!local || typeof local !== 'object') throw new UnboundOptionError(label, 'must be { name, type }');
    if (typeof local.type !== 'string' || !/^[a-z_]+$/.test(local.type)) {
      throw new UnboundOptionError(`${label}.type`, `"${String(local.type)}" is not a local-zone type`);
    }
    set(label, 'local-zone', `${zoneName(local.name, `${label}.name`)} ${local.type}`);
  });
  list(options.localData, 'localData').forEach((data, i) => {
    set(`localData[${i}]`, 'local-data', text(data, `localData[${i}]`));
  });
  list(options.insecureDomains, 'insecureDomains').forEach((domain, i) => {
    set(`insecureDomains[${i}]`, 'domain-insecure', zoneName(domain, `insecureDomains[${i}]`));
  });

  let anchorSource = 'options';
  let noAnchor = false;
  if (options.trustAnchors === undefined && options.trustAnchorFiles === undefined) {
    const defaults = defaultRootAnchors();
    anchorSource = defaults.source;
    defaults.anchors.forEach((anchor, i) => {
      steps.push({
        option: `default root anchor ${i} (${defaults.source})`,
        apply: (ctx) => ctx.addTrustAnchor(anchor),
      });
    });
  } else {
    const anchors = list(options.trustAnchors, 'trustAnchors');
    const anchorFiles = list(options.trustAnchorFiles, 'trustAnchorFiles');
    // No anchor anywhere: nothing can validate, so no validator (a module-config in `options` still wins).
    noAnchor =
      anchors.length + anchorFiles.length === 0 &&
      !Object.keys(options.options ?? {}).some((key) => /anchor|trusted-keys/i.test(key));
    if (noAnchor) set('trustAnchors (none: no validator)', 'module-config', NO_ANCHOR_MODULE_CONFIG);
    anchors.forEach((anchor, i) => {
      const value = text(anchor, `trustAnchors[${i}]`);
      steps.push({ option: `trustAnchors[${i}]`, apply: (ctx) => ctx.addTrustAnchor(value) });
    });
    anchorFiles.forEach((file, i) => {
      const value = text(file, `trustAnchorFiles[${i}]`);
      steps.push({
        option: `trustAnchorFiles[${i}]`,
        apply: (ctx) => {
          // libunbound reads the file only when it finalizes, and then says just "initialization failure".
          accessSync(value, constants.R_OK);
          ctx.addTrustAnchorFile(value);
        },
      });
    });
  }

  let cleanAdditional = true;
  for (const [key, value] of Object.entries(options.options ?? {})) {
    const label = `options[${JSON.stringify(key)}]`;
    const name = key.endsWith(':') ? key.slice(0, -1) : key;
    if (!/^[a-z0-9-]+$/i.test(name)) throw new UnboundOptionError(label, 'is not an unbound.conf option name');
    const values = Array.isArray(value) ? (value as readonly UnboundOptionValue[]) : [value as UnboundOptionValue];
    for (const item of values) {
      const setting = optionText(item, label);
      set(label, name, setting);
      // The last setting wins; anything but libunbound's own "yes" counts as off.
      if (name.toLowerCase() === 'val-clean-additional') cleanAdditional = setting === 'yes';
    }
  }

  const requireSecure = flag(options.requireSecure ?? false, 'requireSecure');
  // Every answer would be insecure, so every question would fail: a mistake to name now.
  if (requireSecure && noAnchor)
    throw new UnboundOptionError('requireSecure', 'no trust anchor is given, so no answer could be secure');
  return {
    name: text(options.name ?? DEFAULT_UNBOUND_NAME, 'name'),
    priority: finite(options.priority ?? DEFAULT_UNBOUND_PRIORITY, 'priority'),
    steps,
    requireSecure,
    maxInFlight: positiveInteger(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT, 'maxInFlight'),
    threads: threadCount(options.threads),
    anchorSource,
    anchorZones: anchorZones(options),
    upstream: { ...upstream, resolvConf },
    cleanAdditional,
    processWide,
  };
}

/** Owner names of the anchors given as text or defaulted (anchor files are read by libunbound only). */
function anchorZones(options: UnboundOptions): string[] {
  const anchors =
    options.trustAnchors === undefined && options.trustAnchorFiles === undefined
      ? defaultRootAnchors().anchors
      : (options.trustAnchors ?? []);
  const zones = new Set<string>();
  for (const anchor of anchors) {
    const owner = anchor.trim().split(/\s+/)[0]!;
    try {
      const labels = parseName(owner);
      zones.add(labels.length === 0 ? '.' : `${formatName(labels).toLowerCase()}.`);
    } catch {
      // libunbound names a bad anchor when the context is finalized
    }
  }
  return [...zones];
}

/**
 * A server address the way libunbound wants it ("IP" or "IP@PORT"). Accepts "IPv4:PORT" and
 * "[IPv6]:PORT" too; libunbound itself refuses those with a bare "syntax error".
 */
export function unboundAddress(server: string, option = 'address'): string {
  if (typeof server !== 'string' || server.trim() === '') throw new UnboundOptionError(option, 'is empty');
  const value = server.trim();
  let host = value;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  const at = /^([^@]+)@(\d+)$/.exec(value);
  const colon = /^([^:]+):(\d+)$/.exec(value);
  if (bracketed) [, host = '', port] = bracketed;
  else if (at) [, host = '', port] = at;
  else if (colon) [, host = '', port] = colon;
  if (isIP(host) === 0)
    throw new UnboundOptionError(
      option,
      `"${server}" is not an IP address (libunbound takes addresses, not host names)`,
    );
  if (port === undefined) return host;
  const number = Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65535)
    throw new UnboundOptionError(option, `port ${port} is not 1..65535`);
  return `${host}@${number}`;
}

function zoneName(name: unknown, option: string): string {
  if (typeof name !== 'string' || name.trim() === '') throw new UnboundOptionError(option, 'needs a domain name');
  try {
    const labels = parseName(name.trim());
    return labels.length === 0 ? '.' : `${formatName(labels)}.`;
  } catch (error) {
    throw new UnboundOptionError(option, (error as Error).message);
  }
}

function fileOption(
  value: string | false | undefined,
  fallback: string | undefined,
  option: string,
): string | undefined {
  if (value === false) return undefined;
  if (value === undefined) return fallback;
  return text(value, option);
}

/** `file` when it can be read now, else undefined. */
function readable(file: string): string | undefined {
  try {
    accessSync(file, constants.R_OK);
    return file;
  } catch {
    return undefined;
  }
}

function list<T>(value: readonly T[] | undefined, option: string): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new UnboundOptionError(option, 'must be an array');
  return value;
}

function text(value: unknown, option: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new UnboundOptionError(option, 'must be a non-empty string');
  return value.trim();
}

function optionText(value: unknown, option: string): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return value;
  throw new UnboundOptionError(option, `${String(value)} is not a string, number or boolean`);
}

/** A boolean option, checked. */
function flag(value: unknown, option: string): boolean {
  if (typeof value !== 'boolean') throw new UnboundOptionError(option, 'must be true or false');
  return value;
}

/** A boolean option as libunbound writes it. */
function yesNo(value: unknown, option: string): string {
  return flag(value, option) ? 'yes' : 'no';
}

function positiveInteger(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new UnboundOptionError(option, `${String(value)} is not a positive integer`);
  }
  return value;
}

function threadCount(value: unknown): number {
  const threads = positiveInteger(value ?? DEFAULT_THREADS, 'threads');
  if (threads > MAX_THREADS) throw new UnboundOptionError('threads', `${threads} is more than ${MAX_THREADS}`);
  return threads;
}

function finite(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new UnboundOptionError(option, `${String(value)} is not a finite number`);
  return value;
}
