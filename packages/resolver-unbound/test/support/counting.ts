/** Wraps a real plugin and counts the questions it is asked (hickory-dns's recording handle). */
import type { DnsQuery, PluginAnswer, ResolverPlugin } from '@dnscore/core/plugin';

export interface CountingPlugin extends ResolverPlugin {
  readonly asked: DnsQuery[];
}

export function counting(inner: ResolverPlugin): CountingPlugin {
  const asked: DnsQuery[] = [];
  return {
    name: inner.name,
    priority: inner.priority,
    asked,
    available: () => inner.available(),
    resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
      asked.push(query);
      return inner.resolve(query, signal);
    },
    close: () => inner.close(),
  };
}
