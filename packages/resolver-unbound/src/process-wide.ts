/**
 * libunbound keeps some of its settings in global variables, not in its context: every context
 * that is finalized sets them for every context in the process (libunbound's config_apply, and
 * the log level and log file in context_finalize). Two resolvers that disagree on one would
 * each change the other's behaviour without a word (measured: a second resolver with
 * `infraCacheMaxRtt: 120000` made the first one's dead upstream take 17.3 s instead of 2.3 s).
 * So a resolver that disagrees with a live one is refused, and contexts made only to probe
 * libunbound are given the settings in force.
 */
import { UnboundOptionError } from './errors.js';
import type { UnboundContext } from './unbound-context.js';

/** The unbound.conf names of the settings libunbound (1.17 and later) keeps per process. */
export const PROCESS_WIDE_OPTIONS: ReadonlySet<string> = new Set([
  'cache-max-ttl',
  'cache-min-ttl',
  'cache-max-negative-ttl',
  'serve-expired',
  'serve-expired-ttl',
  'serve-expired-reply-ttl',
  'serve-original-ttl',
  'infra-cache-min-rtt',
  'infra-cache-max-rtt',
  'unknown-server-time-limit',
  'edns-buffer-size',
  'minimal-responses',
  'rrset-roundrobin',
  'permit-small-holddown',
  'stream-wait-size',
  'http-query-buffer-size',
  'http-response-buffer-size',
  'verbosity',
  'logfile',
  'use-syslog',
  'log-time-ascii',
  'log-tag-queryreply',
]);

/** One process-wide setting of a plan: its value and the option the caller wrote it as. */
export interface ProcessWideSetting {
  readonly value: string;
  readonly option: string;
}

/** A plan's process-wide settings by unbound.conf name; a name not in it keeps libunbound's default. */
export type ProcessWideSettings = ReadonlyMap<string, ProcessWideSetting>;

interface Claim {
  readonly owner: WeakRef<object>;
  settings: ProcessWideSettings;
}

/**
 * Held weakly: a resolver dropped without close() lets go when it is collected (its contexts
 * are freed then). Kept on globalThis, so that two copies of this package in one process (two
 * versions in node_modules), which share one libunbound, share the claims too.
 */
const CLAIMS = Symbol.for('@dnscore/resolver-unbound: process-wide claims');
const shared = globalThis as Record<symbol, Claim[] | undefined>;
shared[CLAIMS] ??= [];
const claims: Claim[] = shared[CLAIMS];

function liveClaims(): Claim[] {
  for (let i = claims.length - 1; i >= 0; i--) if (!claims[i]!.owner.deref()) claims.splice(i, 1);
  return claims;
}

/**
 * Throws UnboundOptionError when a live resolver other than `owner` has other process-wide
 * settings (one unset in either counts: it means libunbound's default).
 */
export function checkProcessWide(owner: object, settings: ProcessWideSettings): void {
  for (const claim of liveClaims()) {
    if (claim.owner.deref() === owner) continue;
    for (const name of new Set([...settings.keys(), ...claim.settings.keys()])) {
      const mine = settings.get(name);
      const theirs = claim.settings.get(name);
      if (mine?.value === theirs?.value) continue;
      throw new UnboundOptionError(
        mine?.option ?? `${name} (not given)`,
        `libunbound keeps ${name} for the whole process, and another resolver alive in it has ` +
          `${shown(theirs)} where this one has ${shown(mine)}: close() that one first, or give both the same`,
      );
    }
  }
}

/** Records `owner`'s settings as in force (after checkProcessWide), replacing any it had. */
export function claimProcessWide(owner: object, settings: ProcessWideSettings): void {
  const held = liveClaims().find((claim) => claim.owner.deref() === owner);
  if (held) held.settings = settings;
  else claims.push({ owner: new WeakRef(owner), settings });
}

/** `owner` is closed: its settings no longer bind the others. */
export function releaseProcessWide(owner: object): void {
  const at = liveClaims().findIndex((claim) => claim.owner.deref() === owner);
  if (at >= 0) claims.splice(at, 1);
}

/**
 * Gives a context the settings in force, so that finalizing it changes nothing for the
 * resolvers alive (a probe finalized with libunbound's defaults would reset them all).
 */
export function applySettingsInForce(context: UnboundContext): void {
  for (const [name, setting] of settingsInForce() ?? []) context.setOption(name, setting.value);
}

/** The live resolvers' process-wide settings (all alike), undefined when no resolver is alive. */
export function settingsInForce(): ProcessWideSettings | undefined {
  return liveClaims()[0]?.settings;
}

function shown(setting: ProcessWideSetting | undefined): string {
  return setting ? JSON.stringify(setting.value) : "libunbound's default";
}
