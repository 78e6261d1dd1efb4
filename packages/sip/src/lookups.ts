/**
 * The questions of one resolution: each (name, type) is asked at most once, whatever rule
 * needs it again; answers are turned into query steps in the order the questions were asked.
 * A question asked with `after = n` depends on an answer of round n, so it belongs to round n+1.
 */
import { formatRdata, isAbortError, nameKey, rcodeName, type DnsApi, type DnsResult } from '@dnscore/core';
import type { QueryStep, QueryType } from './resolution.js';

export interface Answer {
  readonly name: string;
  readonly type: QueryType;
  readonly round: number;
  /** The result, when one was obtained. */
  readonly result?: DnsResult;
  /** Why no result was obtained. */
  readonly error?: Error;
}

interface Entry {
  readonly promise: Promise<Answer>;
  answer?: Answer;
  reported: boolean;
}

export class Lookups {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly dns: DnsApi,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Asks (name, type) unless already asked; rejects only with AbortError. */
  ask(name: string, type: QueryType, after: number): Promise<Answer> {
    const key = `${type} ${nameKey(name)}`;
    const known = this.#entries.get(key);
    if (known) return known.promise;
    const round = after + 1;
    const options = this.signal ? { signal: this.signal } : {};
    const rrtype: string = type; // the untyped overload: records of several types are read below
    const entry: Entry = {
      reported: false,
      promise: this.dns.resolve(name, rrtype, options).then(
        (result): Answer => {
          entry.answer = { name, type, round, result };
          return entry.answer;
        },
        (error: unknown): Answer => {
          if (isAbortError(error)) throw error;
          entry.answer = { name, type, round, error: error instanceof Error ? error : new Error(String(error)) };
          return entry.answer;
        },
      ),
    };
    this.#entries.set(key, entry);
    return entry.promise;
  }

  /** Resolves when every question asked so far has its answer (or its error). */
  async settled(): Promise<void> {
    let size: number;
    do {
      size = this.#entries.size;
      await Promise.allSettled([...this.#entries.values()].map((e) => e.promise));
    } while (this.#entries.size !== size);
  }

  /** Questions asked so far. */
  get count(): number {
    return this.#entries.size;
  }

  /** The deepest round among the answers obtained. */
  get rounds(): number {
    let max = 0;
    for (const entry of this.#entries.values()) if (entry.answer && entry.answer.round > max) max = entry.answer.round;
    return max;
  }

  /** Query steps for the answers not reported yet, in the order asked. */
  drain(): QueryStep[] {
    const steps: QueryStep[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.reported || !entry.answer) continue;
      entry.reported = true;
      steps.push(queryStep(entry.answer));
    }
    return steps;
  }
}

export function queryStep(answer: Answer): QueryStep {
  const { name, type, round, result, error } = answer;
  if (!result) {
    const code = (error as { code?: unknown } | undefined)?.code;
    return {
      kind: 'query',
      round,
      name,
      type,
      records: [],
      additional: [],
      ttl: 0,
      secure: false,
      bogus: false,
      error: { code: typeof code === 'string' ? code : 'ERR', message: error?.message ?? 'no answer' },
    };
  }
  const negative = result.records.length === 0;
  return {
    kind: 'query',
    round,
    name,
    type,
    rcode: rcodeName(result.rcode),
    ...(nameKey(result.canonical) !== nameKey(name) ? { canonical: result.canonical } : {}),
    records: result.records.map((r) => formatRdata(r)),
    additional: result.additional.map((r) => `${r.name} ${r.type} ${formatRdata(r)}`),
    ttl: negative ? result.negativeTtl : result.lowestTtl,
    secure: result.secure,
    bogus: result.bogus,
    ...(result.bogus ? { whyBogus: result.whyBogus ?? 'validation failed' } : {}),
    ...(result.dropped.length > 0 ? { dropped: result.dropped.map((d) => `${d.name} ${d.type}: ${d.reason}`) } : {}),
  };
}
