/**
 * A zone resolver whose answers the test can hold back and mark bogus, and which counts the
 * questions still out: what the callback contract ("never while a query is in flight") is
 * checked against.
 */
import { ZoneResolver, typeName, type DnsQuery, type ResolverPlugin } from '@dnscore/core';

type PluginAnswer = Awaited<ReturnType<ResolverPlugin['resolve']>>;

export interface GatedPlugin extends ResolverPlugin {
  /** Questions asked and not yet answered. */
  readonly pending: number;
  /** "name TYPE" of every question, in order. */
  readonly asked: string[];
  /** Holds the answers to "name TYPE" until release() is called. */
  hold(key: string): void;
  release(key: string): void;
}

export function gated(zone: string, options: { readonly bogus?: readonly string[] } = {}): GatedPlugin {
  const inner = new ZoneResolver({ zones: [{ text: zone }] });
  const gates = new Map<string, { promise: Promise<void>; open: () => void }>();
  const asked: string[] = [];
  let pending = 0;
  return {
    name: 'gated-zone',
    priority: 1,
    asked,
    get pending() {
      return pending;
    },
    available: () => true,
    close: () => inner.close(),
    hold(key: string) {
      let open = (): void => {};
      const promise = new Promise<void>((resolve) => (open = resolve));
      gates.set(key, { promise, open });
    },
    release(key: string) {
      gates.get(key)?.open();
    },
    async resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
      const key = `${query.name} ${typeName(query.type)}`;
      asked.push(key);
      pending++;
      try {
        await gates.get(key)?.promise;
        const answer = await inner.resolve(query, signal);
        return options.bogus?.includes(key)
          ? { ...answer, secure: false, bogus: true, whyBogus: `signature over ${key} expired` }
          : answer;
      } finally {
        pending--;
      }
    },
  };
}
