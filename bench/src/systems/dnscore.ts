/**
 * dnscore as an application composes it: a DnsCore over the system backend or libunbound,
 * with or without the core's cache, and a SipLocator on top.
 */
import { DnsCore, withCache, type ResolverPlugin } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import { UnboundResolver } from '@dnscore/resolver-unbound';
import { ValidatingResolver } from '@dnscore/resolver-validating';
import { SipLocator, type SipLocatorOptions, type SipResolution } from '@dnscore/sip';
import { BENCH_ZONES } from '../rig/zones.js';

export interface Composed {
  readonly core: DnsCore;
  readonly locator: SipLocator;
  close(): Promise<void>;
}

/** The system backend asking only `endpoint` ("127.0.0.1:PORT"); resolv.conf is not read. */
export function systemPlugin(
  endpoint: string,
  options: { timeoutMs?: number; maxInFlight?: number } = {},
): SystemResolver {
  return new SystemResolver(
    { nameservers: [endpoint], resolvConf: '/nonexistent/resolv.conf', search: [] },
    {
      timeoutMs: options.timeoutMs ?? 2000,
      attempts: 1,
      ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
    },
  );
}

/**
 * The TypeScript validating backend asking only `endpoint` with DO and CD, validating from
 * `anchors` (DS records); resolv.conf is not read. `answerCache: false`: no validated answers
 * kept, every question asked and validated again.
 */
export function validatingPlugin(
  endpoint: string,
  anchors: readonly string[],
  { answerCache = true }: { answerCache?: boolean } = {},
): ValidatingResolver {
  return new ValidatingResolver(
    { nameservers: [endpoint], resolvConf: '/nonexistent/resolv.conf' },
    { trustAnchors: [...anchors], timeoutMs: 2000, attempts: 1, ...(answerCache ? {} : { answerCacheSize: 0 }) },
  );
}

export interface UnboundPluginOptions {
  /** DS records of the zones to validate; none: no validation. */
  readonly anchors?: readonly string[];
  readonly qnameMinimisation?: boolean;
  /** More stub zones ("dead.example" -> "127.0.0.1@PORT"), each opened like the bench's zones. */
  readonly extraStubs?: Readonly<Record<string, string>>;
  /** More libunbound options (UnboundOptions.options). */
  readonly options?: Readonly<Record<string, string>>;
  /** libunbound contexts, each on a thread of its own (UnboundOptions.threads; default 1). */
  readonly threads?: number;
}

/**
 * libunbound with the bench's zones stubbed to `endpoint` and every other name refused
 * locally (nothing leaves loopback), no hosts file, no resolv.conf; QNAME minimisation off as
 * the package README advises for one's own stub servers, unless asked for.
 */
export function unboundPlugin(endpoint: string, options: UnboundPluginOptions = {}): UnboundResolver {
  const extra = Object.entries(options.extraStubs ?? {});
  return new UnboundResolver({
    stubZones: [
      ...BENCH_ZONES.map((name) => ({ name, addresses: [endpoint] })),
      ...extra.map(([name, address]) => ({ name, addresses: [address] })),
    ],
    localZones: [
      { name: '.', type: 'refuse' },
      ...[...BENCH_ZONES, ...extra.map(([name]) => name)].map((name) => ({ name, type: 'transparent' })),
    ],
    trustAnchors: [...(options.anchors ?? [])],
    hosts: false,
    resolvConf: false,
    qnameMinimisation: options.qnameMinimisation ?? false,
    ...(options.options ? { options: options.options } : {}),
    ...(options.threads ? { threads: options.threads } : {}),
  });
}

export function compose(plugin: ResolverPlugin, cache: boolean, locatorOptions: SipLocatorOptions = {}): Composed {
  const core = new DnsCore([cache ? withCache(plugin, { maxEntries: 200_000 }) : plugin]);
  return { core, locator: new SipLocator(core, locatorOptions), close: () => core.close() };
}

/** A resolution's targets as "transport address port", in order. */
export function targetLines(resolution: SipResolution): string[] {
  if (resolution.error) throw resolution.error;
  return resolution.targets.map((t) => `${t.transport} ${t.address} ${t.port}`);
}
