/**
 * A resolver plugin for the tests: the test zones through the zone backend, except for the names
 * a test scripts: a DNSSEC status (secure or bogus) laid on the zone's answer, an rcode with no
 * records (SERVFAIL, REFUSED), or no answer at all until the call is cancelled (a dead server).
 */
import { DnsCore, ZoneResolver } from '@dnscore/core';
import type { DnsQuery, PluginAnswer, ResolverPlugin } from '@dnscore/core/plugin';
import { testZones } from './zone.js';

export type Script =
  | { readonly secure: true }
  | { readonly bogus: string }
  | { readonly rcode: number }
  | { readonly silent: true };

export interface ScriptedPlugin extends ResolverPlugin {
  /** Questions asked, "name TYPE". */
  readonly asked: string[];
}

export function scriptedPlugin(scripts: Readonly<Record<string, Script>> = {}): ScriptedPlugin {
  const zone = new ZoneResolver({ zones: testZones().map((z) => ({ text: z.text })) });
  const typeName = (type: number): string => ({ 1: 'A', 28: 'AAAA' })[type] ?? String(type);
  const plugin: ScriptedPlugin = {
    name: 'scripted',
    priority: 0,
    asked: [],
    available: () => ({ available: true }),
    async resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
      plugin.asked.push(`${query.name} ${typeName(query.type)}`);
      const script = scripts[query.name];
      if (!script) return zone.resolve(query, signal);
      if ('silent' in script) {
        return new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }
      if ('rcode' in script) return { rcode: script.rcode };
      const answer = await zone.resolve(query, signal);
      return 'secure' in script ? { ...answer, secure: true } : { ...answer, bogus: true, whyBogus: script.bogus };
    },
    close: () => zone.close(),
  };
  return plugin;
}

/** A core over the scripted plugin. */
export function scriptedCore(scripts: Readonly<Record<string, Script>> = {}): {
  core: DnsCore;
  plugin: ScriptedPlugin;
} {
  const plugin = scriptedPlugin(scripts);
  return { core: new DnsCore([plugin]), plugin };
}
