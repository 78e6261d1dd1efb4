/**
 * The composition root of the command: which resolver backends answer, from the backend
 * flags that every subcommand takes (--resolver, --zone, --server, trust anchors).
 * Only here are concrete backends named.
 */
import {
  DnsCore,
  ZoneResolver,
  stderrLogger,
  withCache,
  type Logger,
  type RandomSource,
  type ResolverPlugin,
} from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import { ValidatingResolver } from '@dnscore/resolver-validating';
import type { AlgorithmSupport } from './unsupported-algorithm.js';
import { UsageError } from './usage-error.js';

export const RESOLVERS = ['auto', 'zone', 'system', 'unbound', 'validating'] as const;
export type ResolverChoice = (typeof RESOLVERS)[number];

/** parseArgs option specs of the backend flags. */
export const backendOptions = {
  resolver: { type: 'string' },
  zone: { type: 'string', multiple: true },
  server: { type: 'string', multiple: true },
  'trust-anchor': { type: 'string', multiple: true },
  'trust-anchor-file': { type: 'string' },
  'insecure-domain': { type: 'string', multiple: true },
  timeout: { type: 'string' },
  attempts: { type: 'string' },
} as const;

export interface BackendFlags {
  readonly resolver?: string | undefined;
  readonly zone?: string[] | undefined;
  readonly server?: string[] | undefined;
  readonly 'trust-anchor'?: string[] | undefined;
  readonly 'trust-anchor-file'?: string | undefined;
  readonly 'insecure-domain'?: string[] | undefined;
  /** Milliseconds a server has to answer one query (system backend). */
  readonly timeout?: string | undefined;
  /** Rounds over the nameservers (system backend). */
  readonly attempts?: string | undefined;
}

export interface BuiltCore {
  readonly core: DnsCore;
  /** What answers, for messages: "zone", "unbound, then system", "validating, then system", ... */
  readonly description: string;
  /** The libunbound backend, when there is one: what it can validate. */
  readonly validator?: AlgorithmSupport;
}

/**
 * Builds the DnsCore the flags ask for. `--zone` alone means the zone resolver only;
 * `--resolver auto` is libunbound when it loads; where it does not, the TypeScript validating
 * backend (when the upstream hands back DNSSEC records); then the system's nameservers; with
 * the zones (if any) in front of them.
 */
export async function buildCore(
  flags: BackendFlags,
  options: { random?: RandomSource; logger?: Logger } = {},
): Promise<BuiltCore> {
  const choice = resolverChoice(flags);
  const plugins: ResolverPlugin[] = [];
  let validator: AlgorithmSupport | undefined;
  const zones = flags.zone ?? [];
  if (choice === 'zone' && zones.length === 0) throw new UsageError('--resolver zone needs at least one --zone FILE');
  if (zones.length > 0 && (choice === 'zone' || choice === 'auto')) plugins.push(new ZoneResolver({ files: zones }));
  let unboundLoaded = false;
  if (choice === 'auto' || choice === 'unbound') {
    const unbound = await unboundPlugin(flags, choice === 'unbound');
    const available = unbound?.available().available === true;
    // Without libunbound, trust anchors go to the validating backend: an unavailable libunbound
    // holding them would fail closed in front of it.
    if (unbound && (available || choice === 'unbound' || !validationAsked(flags))) {
      plugins.push(withCache(unbound));
      if (available) validator = unbound;
    }
    unboundLoaded = available;
  }
  if (choice === 'validating' || (choice === 'auto' && !unboundLoaded)) {
    const validating = validatingPlugin(flags);
    // The upstream is probed once before the first question: the registry then knows whether
    // this backend can validate, and says why not.
    await validating.upstreamStatus();
    plugins.push(withCache(validating));
  }
  if (choice === 'auto' || choice === 'system') {
    const timing = {
      ...(flags.timeout !== undefined ? { timeoutMs: positiveInteger(flags.timeout, '--timeout') } : {}),
      ...(flags.attempts !== undefined ? { attempts: positiveInteger(flags.attempts, '--attempts') } : {}),
    };
    plugins.push(withCache(new SystemResolver(flags.server?.length ? { nameservers: flags.server } : {}, timing)));
  }
  if (choice === 'zone' || choice === 'system') rejectValidationFlags(flags, choice);
  const core = new DnsCore(plugins, {
    logger: options.logger ?? stderrLogger,
    ...(options.random ? { random: options.random } : {}),
  });
  return { core, description: plugins.map((p) => p.name).join(', then '), ...(validator ? { validator } : {}) };
}

function positiveInteger(text: string, flag: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new UsageError(`${flag} takes a positive whole number, not "${text}"`);
  return Number(text);
}

function resolverChoice(flags: BackendFlags): ResolverChoice {
  const choice = flags.resolver ?? (flags.zone?.length ? 'zone' : 'auto');
  if (!(RESOLVERS as readonly string[]).includes(choice)) {
    throw new UsageError(`--resolver must be one of ${RESOLVERS.join(', ')}, not "${choice}"`);
  }
  return choice as ResolverChoice;
}

/** Trust anchors given: the caller asked for DNSSEC validation. */
function validationAsked(flags: BackendFlags): boolean {
  return (flags['trust-anchor']?.length ?? 0) > 0 || flags['trust-anchor-file'] !== undefined;
}

function rejectValidationFlags(flags: BackendFlags, choice: ResolverChoice): void {
  const given = (['trust-anchor', 'trust-anchor-file', 'insecure-domain'] as const).filter(
    (f) => flags[f] !== undefined,
  );
  if (given.length > 0)
    throw new UsageError(`--${given[0]} applies to --resolver unbound, validating or auto, not ${choice}`);
}

/** The TypeScript validating backend, with the anchors and servers of the flags. */
function validatingPlugin(flags: BackendFlags): ValidatingResolver {
  return new ValidatingResolver(flags.server?.length ? { nameservers: flags.server } : {}, {
    ...(flags['trust-anchor']?.length ? { trustAnchors: flags['trust-anchor'] } : {}),
    ...(flags['trust-anchor-file'] ? { trustAnchorFiles: [flags['trust-anchor-file']] } : {}),
    ...(flags['insecure-domain']?.length ? { negativeTrustAnchors: flags['insecure-domain'] } : {}),
    ...(flags.timeout !== undefined ? { timeoutMs: positiveInteger(flags.timeout, '--timeout') } : {}),
    ...(flags.attempts !== undefined ? { attempts: positiveInteger(flags.attempts, '--attempts') } : {}),
  });
}

/**
 * The libunbound backend, loaded only when asked for: `@dnscore/resolver-unbound` is an
 * optional dependency, and dnscore must run without it. `required` makes its absence an error.
 */
async function unboundPlugin(
  flags: BackendFlags,
  required: boolean,
): Promise<import('@dnscore/resolver-unbound').UnboundResolver | undefined> {
  let module: typeof import('@dnscore/resolver-unbound');
  try {
    module = await import('@dnscore/resolver-unbound');
  } catch (error) {
    if (required)
      throw new UsageError(
        `${validationAsked(flags) ? '--trust-anchor asks for DNSSEC validation, but' : '--resolver unbound:'} ` +
          `@dnscore/resolver-unbound is not installed (${(error as Error).message})`,
      );
    return undefined;
  }
  return new module.UnboundResolver({
    // --server replaces resolv.conf's nameservers, for libunbound as for the system backend.
    ...(flags.server?.length ? { nameservers: flags.server, resolvConf: false } : {}),
    ...(flags['trust-anchor']?.length ? { trustAnchors: flags['trust-anchor'] } : {}),
    ...(flags['trust-anchor-file'] ? { trustAnchorFiles: [flags['trust-anchor-file']] } : {}),
    ...(flags['insecure-domain']?.length ? { insecureDomains: flags['insecure-domain'] } : {}),
  });
}
