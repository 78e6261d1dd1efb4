/**
 * A recording fake resolver plugin (Asterisk's test_dns.c mock resolver, hickory-dns's
 * recording mock): answers with whatever the test says and keeps every question and signal.
 */
import type { Availability, DnsQuery, PluginAnswer, ResolverPlugin } from '@dnscore/core/plugin';

export interface FakePluginOptions {
  readonly name?: string;
  readonly priority?: number;
  readonly available?: boolean | Availability;
  /** The answer, or a function of the query; a thrown error rejects. */
  readonly answer?: PluginAnswer | ((query: DnsQuery, signal: AbortSignal) => PluginAnswer | Promise<PluginAnswer>);
}

export interface FakePlugin extends ResolverPlugin {
  readonly calls: { query: DnsQuery; signal: AbortSignal }[];
  closed: number;
  availability: boolean | Availability;
}

export function fakePlugin(options: FakePluginOptions = {}): FakePlugin {
  const plugin: FakePlugin = {
    name: options.name ?? 'fake',
    priority: options.priority ?? 0,
    calls: [],
    closed: 0,
    availability: options.available ?? true,
    available: () => plugin.availability,
    async resolve(query, signal) {
      plugin.calls.push({ query, signal });
      const answer = options.answer ?? { rcode: 0 };
      return typeof answer === 'function' ? answer(query, signal) : answer;
    },
    close() {
      plugin.closed++;
    },
  };
  return plugin;
}

/** An answer that arrives after `ms` (fake timers) unless the signal aborts first. */
export function delayedAnswer(
  ms: number,
  answer: PluginAnswer,
): (query: DnsQuery, signal: AbortSignal) => Promise<PluginAnswer> {
  return (_query, signal) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(answer), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
}
