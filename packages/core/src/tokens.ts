/**
 * tsyringe injection tokens. Symbols, so the consumer needs no decorators to use them:
 * `container.register(RESOLVER_PLUGIN, { useValue: plugin })`, then `container.resolve(DnsCore)`.
 */
import type { InjectionToken } from 'tsyringe';
import type { DnsCoreOptions } from './dns-core-options.js';
import type { ResolverPlugin } from './resolver-plugin.js';

/** Every resolver plugin registers under this token; DnsCore receives them all. */
export const RESOLVER_PLUGIN: InjectionToken<ResolverPlugin> = Symbol.for('dnscore:resolver-plugin');

/** Optional DnsCoreOptions for DnsCore built by the container. */
export const DNS_CORE_OPTIONS: InjectionToken<DnsCoreOptions> = Symbol.for('dnscore:core-options');
