/**
 * A recording plugin (hickory-dns's recording mock): wraps a real plugin (the zone resolver),
 * keeps every question asked, and can hold answers until a number of questions have arrived
 * (proof that they went out together), mark answers bogus, or fail questions.
 */
import { type RRType, typeName, type DnsQuery, type ResolverPlugin } from '@dnscore/core';

/** What the wrapped plugin answers, as the plugin contract defines it. */
type PluginAnswer = Awaited<ReturnType<ResolverPlugin['resolve']>>;

export interface RecordingOptions {
  /** Hold answers until this many questions have arrived; fail them if the rest do not arrive within the same turn. */
  readonly barrier?: number;
  /** Answers for these "name TYPE" questions come back DNSSEC-bogus. */
  readonly bogus?: readonly string[];
  /** Answers for these "name TYPE" questions come back DNSSEC-secure. */
  readonly secure?: readonly string[];
  /** These "name TYPE" questions fail with the given error. */
  readonly fail?: Readonly<Record<string, Error>>;
}

export interface RecordingPlugin extends ResolverPlugin {
  /** "name TYPE" of every question, in the order asked. */
  readonly asked: string[];
  /** Questions that arrived while the barrier held, in order. */
  readonly held: string[];
}

export function recording(inner: ResolverPlugin, options: RecordingOptions = {}): RecordingPlugin {
  const asked: string[] = [];
  const held: string[] = [];
  let waiting: { release: () => void; fail: (error: Error) => void }[] = [];
  let checkScheduled = false;
  const barrier = options.barrier ?? 0;
  const plugin: RecordingPlugin = {
    name: `recording-${inner.name}`,
    priority: inner.priority,
    asked,
    held,
    available: () => inner.available(),
    close: () => inner.close(),
    async resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
      const key = `${query.name} ${typeName(query.type)}`;
      asked.push(key);
      if (asked.length <= barrier) {
        held.push(key);
        await new Promise<void>((release, fail) => {
          waiting.push({ release, fail });
          if (asked.length === barrier) {
            for (const w of waiting) w.release();
            waiting = [];
          } else if (!checkScheduled) {
            checkScheduled = true;
            // Questions sent together all arrive before the event loop turns.
            setImmediate(() => {
              if (waiting.length === 0) return;
              const error = new Error(
                `only ${asked.length} of ${barrier} questions arrived together: ${asked.join(', ')}`,
              );
              for (const w of waiting) w.fail(error);
              waiting = [];
            });
          }
        });
      }
      const failure = options.fail?.[key];
      if (failure) throw failure;
      const answer = await inner.resolve(query, signal);
      if (options.bogus?.includes(key))
        return { ...answer, secure: false, bogus: true, whyBogus: `signature over ${key} expired` };
      if (options.secure?.includes(key)) return { ...answer, secure: true, bogus: false };
      return answer;
    },
  };
  return plugin;
}

/** "name TYPE" keys of a query list, for readable assertions. */
export function key(name: string, type: keyof typeof RRType): string {
  return `${name} ${type}`;
}
