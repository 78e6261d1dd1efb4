/**
 * libunbound keeps some of its settings in global variables, not in its context: every context
 * that is finalized sets them for every context in the process (libunbound's config_apply, and
 * the log level and log file in context_finalize). Two resolvers that disagree on one would
 * each change the other's behaviour without a word (measured: a second resolver with
 * `infraCacheMaxRtt: 120000` made the first one's dead upstream take 17.3 s instead of 2.3 s).
 * So a resolver that disagrees with a live one is refused, and contexts made only to probe
 * libunbound are given the settings in force. The claims are the addon's (native/process_wide.c):
 * it is loaded once per process and shared by every worker_threads thread, where claims kept in
 * JS would be one list per thread.
 */
import type { NativeClaim, UnboundAddon } from './binding.js';
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

/**
 * Claims `settings` for a resolver, or throws UnboundOptionError when a live resolver (of any
 * thread: the claims are the addon's, one list per process, as libunbound's globals are) has
 * other ones (one unset in either counts: it means libunbound's default). `held` is the
 * resolver's own claim, disregarded (a reload); the caller releases the one it no longer needs.
 */
export function claimProcessWide(addon: UnboundAddon, settings: ProcessWideSettings, held?: NativeClaim): NativeClaim {
  const key = JSON.stringify([...settings].map(([name, { value }]) => [name, value]).sort());
  const claim = addon.claimProcessWide(key, JSON.stringify([...settings]), held);
  if (typeof claim !== 'string') return claim;
  const theirs: ProcessWideSettings = new Map(JSON.parse(claim) as [string, ProcessWideSetting][]);
  for (const name of new Set([...settings.keys(), ...theirs.keys()])) {
    const mine = settings.get(name);
    const other = theirs.get(name);
    if (mine?.value === other?.value) continue;
    throw new UnboundOptionError(
      mine?.option ?? `${name} (not given)`,
      `libunbound keeps ${name} for the whole process, and another resolver alive in it has ` +
        `${shown(other)} where this one has ${shown(mine)}: close() that one first, or give both the same`,
    );
  }
  throw new Error(`the addon refused equal process-wide settings: ${claim}`);
}

/**
 * Gives a context the settings in force, so that finalizing it changes nothing for the
 * resolvers alive (a probe finalized with libunbound's defaults would reset them all).
 */
export function applySettingsInForce(addon: UnboundAddon, context: UnboundContext): void {
  for (const [name, setting] of settingsInForce(addon) ?? []) context.setOption(name, setting.value);
}

/** The live resolvers' process-wide settings (all alike), undefined when no resolver is alive. */
export function settingsInForce(addon: UnboundAddon): ProcessWideSettings | undefined {
  const payload = addon.settingsInForce();
  return payload === null ? undefined : new Map(JSON.parse(payload) as [string, ProcessWideSetting][]);
}

function shown(setting: ProcessWideSetting | undefined): string {
  return setting ? JSON.stringify(setting.value) : "libunbound's default";
}
