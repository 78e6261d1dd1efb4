/**
 * The questions this backend sends: through resolver-system's hardened stub transport (RFC
 * 5452 defences, TCP fallback, 0x20, shared questions in flight) with DO and CD set, so the
 * recursive nameservers hand back the DNSSEC records and the data as it is. Answers to chain
 * questions (DNSKEY, DS, the walk's) are kept for their TTL and asked once at a time.
 */
import {
  MalformedAnswerError,
  Rcode,
  describeQuery,
  formatName,
  makeQuery,
  parseMessage,
  withServers,
  type Clock,
  type DnsQuery,
  type Labels,
  type ServerAttempt,
  type WireMessage,
} from '@dnscore/core/plugin';
import type { SystemResolver } from '@dnscore/resolver-system';
import { keyOf } from './names.js';
import {
  DnssecType,
  groupRrsets,
  parseRrsig,
  uncompressedRecord,
  type Rr,
  type SignedRrset,
} from './validate/index.js';
import { serialDiff } from './validate/time.js';

/** A message with its sections as the engine reads them. */
export interface Fetched {
  readonly query: DnsQuery;
  readonly message: WireMessage;
  readonly rcode: number;
  readonly answer: readonly Rr[];
  readonly authority: readonly Rr[];
  readonly additional: readonly Rr[];
  /** RRsets of the answer section, with their RRSIGs. */
  readonly answerSets: readonly SignedRrset[];
  /** RRsets of the authority section, with their RRSIGs. */
  readonly authoritySets: readonly SignedRrset[];
  /** The servers the transport asked for it; set only while the `dnscore:query` trace has subscribers. */
  readonly servers?: readonly ServerAttempt[];
}

interface Kept {
  readonly fetched: Fetched;
  readonly expiresAt: number;
}

/** Seconds a chain answer is kept at most, and when it carries no TTL (a negative answer without SOA). */
const MAX_KEEP_S = 3600;
const EMPTY_KEEP_S = 5;

export class Upstream {
  readonly #system: SystemResolver;
  readonly #clock: Clock;
  readonly #kept = new Map<string, Kept>();
  readonly #inFlight = new Map<string, Promise<Fetched>>();
  readonly #maxKept: number;
  /** Messages sent (chain and data questions), for tests and the bench. */
  sent = 0;

  constructor(system: SystemResolver, clock: Clock, maxKept: number) {
    this.#system = system;
    this.#clock = clock;
    this.#maxKept = maxKept;
  }

  /**
   * Asks a question for the caller; nothing is kept (the core's cache is in front). The
   * transport's tries come with the answer (`servers`) or attached to its error, while traced.
   */
  async ask(query: DnsQuery, signal: AbortSignal): Promise<Fetched> {
    this.sent++;
    const answer = await this.#system.resolve(query, signal);
    let fetched: Fetched;
    try {
      fetched = read(query, answer.answer);
    } catch (error) {
      throw withServers(error as object, answer.servers);
    }
    return answer.servers ? { ...fetched, servers: answer.servers } : fetched;
  }

  /**
   * Asks a chain question (DNSKEY, DS, ...), or returns the kept answer while its TTL runs.
   * One question at a time per name and type: later callers join it. `signal` is the
   * backend's own (close()), not a caller's: chain answers serve every question.
   */
  chain(name: Labels, type: number, signal: AbortSignal): Promise<Fetched> {
    const key = `${keyOf(name)}/${type}`;
    const kept = this.#kept.get(key);
    if (kept && kept.expiresAt > this.#clock.now()) return Promise.resolve(kept.fetched);
    let pending = this.#inFlight.get(key);
    if (!pending) {
      const query = makeQuery(formatName(name), type);
      pending = this.ask(query, signal).then(
        (fetched) => {
          this.#inFlight.delete(key);
          this.#keep(key, fetched);
          return fetched;
        },
        (error: unknown) => {
          this.#inFlight.delete(key);
          throw error;
        },
      );
      this.#inFlight.set(key, pending);
    }
    return pending;
  }

  /** Forgets every kept answer. */
  clear(): void {
    this.#kept.clear();
  }

  #keep(key: string, fetched: Fetched): void {
    if (fetched.rcode !== Rcode.NOERROR && fetched.rcode !== Rcode.NXDOMAIN) return;
    const records = [...fetched.answer, ...fetched.authority];
    const ttls = records.map((r) => r.ttl);
    // Not past an RRSIG's expiration (RFC 4035 section 5.3.3): a zone re-signed since must be
    // asked again, not judged by the signatures that expired (kept, they would make it bogus).
    const now = Math.floor(this.#clock.now() / 1000) >>> 0;
    for (const record of records) {
      if (record.rrtype !== DnssecType.RRSIG) continue;
      let expiration: number;
      try {
        expiration = parseRrsig(record.rdata).expiration;
      } catch {
        continue; // an RRSIG that does not parse validates nothing: validation says so
      }
      ttls.push(Math.max(0, serialDiff(expiration, now)));
    }
    const ttl = Math.min(MAX_KEEP_S, ttls.length > 0 ? Math.min(...ttls) : EMPTY_KEEP_S);
    if (ttl <= 0) return;
    if (this.#kept.size >= this.#maxKept) {
      const oldest = this.#kept.keys().next().value;
      if (oldest !== undefined) this.#kept.delete(oldest);
    }
    this.#kept.set(key, { fetched, expiresAt: this.#clock.now() + ttl * 1000 });
  }
}

/** Parses an answer packet; MalformedAnswerError when a record cannot be read. */
export function read(query: DnsQuery, packet: Uint8Array | undefined): Fetched {
  if (!packet) throw new MalformedAnswerError(`${describeQuery(query)}: the upstream answer has no packet`);
  let message: WireMessage;
  let answer: Rr[];
  let authority: Rr[];
  let additional: Rr[];
  try {
    // The transport only scanned the packet (scanMessage): this is its one parse.
    message = parseMessage(packet);
    answer = message.answers.map((r) => uncompressedRecord(packet, r));
    authority = message.authorities.map((r) => uncompressedRecord(packet, r));
    additional = message.additionals.map((r) => uncompressedRecord(packet, r));
  } catch (error) {
    throw new MalformedAnswerError(`${describeQuery(query)}: ${(error as Error).message}`);
  }
  return {
    query,
    message,
    rcode: message.header.rcode,
    answer,
    authority,
    additional,
    answerSets: groupRrsets(answer),
    authoritySets: groupRrsets(authority),
  };
}
