/** The immutable outcome of one question (Asterisk's ast_dns_result, as a value). */
import type { CacheEntry } from './answer-cache.js';
import { dnssecStatus, flagsOf, weakestStatus, type DnssecStatus } from './dnssec-status.js';
import { Ede } from './ede.js';
import type { DnsQuery } from './query.js';
import type { DnsRecord, DroppedRecord, RecordBase } from './records/types.js';
import { Rcode, rcodeName } from './rr-types.js';

export interface DnsResultInit<R extends RecordBase> {
  readonly query: DnsQuery;
  readonly resolver: string;
  readonly rcode: number;
  readonly secure: boolean;
  readonly bogus: boolean;
  readonly whyBogus: string | undefined;
  /** RFC 8914 INFO-CODE; a bogus result without one gets 6 (DNSSEC Bogus). */
  readonly ede?: number | undefined;
  readonly canonical: string;
  readonly answer: Uint8Array;
  readonly records: readonly R[];
  readonly authority: readonly DnsRecord[];
  readonly additional: readonly DnsRecord[];
  /** The additional-section A/AAAA RRsets were validated secure too (default false). */
  readonly additionalSecure?: boolean | undefined;
  readonly dropped: readonly DroppedRecord[];
  readonly negativeTtl: number;
  /** The smallest TTL of the CNAMEs that led to `canonical` (aged); undefined without a chain. */
  readonly chainTtl?: number | undefined;
  readonly age: number;
  readonly stale?: boolean;
  readonly cacheEntry?: CacheEntry | undefined;
}

export class DnsResult<R extends RecordBase = DnsRecord> {
  /** The question this result answers. */
  readonly query: DnsQuery;
  /** Name of the resolver plugin that answered. */
  readonly resolver: string;
  readonly rcode: number;
  /** The answer was validated by DNSSEC (RFC 4035 section 4.3 "secure"). */
  readonly secure: boolean;
  /** DNSSEC validation failed: the data must not be used (RFC 4035 "bogus"). */
  readonly bogus: boolean;
  readonly whyBogus: string | undefined;
  /** Extended DNS Error INFO-CODE (RFC 8914) saying why, when bogus: 6 DNSSEC Bogus, 7 Signature Expired, ... */
  readonly ede: number | undefined;
  /** The name at the end of the CNAME chain; the query name when there is none. */
  readonly canonical: string;
  /** Answer-section records of the queried type and class owned by `canonical`, in RFC order. */
  readonly records: readonly R[];
  readonly authority: readonly DnsRecord[];
  readonly additional: readonly DnsRecord[];
  /**
   * A secure result whose additional-section A and AAAA RRsets the backend validated as well
   * (resolver-validating, and resolver-unbound while val-clean-additional is on): they may
   * stand in for their own questions. Never true for a result that is not secure.
   */
  readonly additionalSecure: boolean;
  /** Records left out because they broke a rule, with the rule and the reason. */
  readonly dropped: readonly DroppedRecord[];
  /** Smallest non-zero TTL of `records`; 0 for NXDOMAIN or when there are no records. */
  readonly lowestTtl: number;
  /** For NXDOMAIN and NODATA: min(SOA TTL, SOA MINIMUM) of the authority SOA (RFC 2308); else 0. */
  readonly negativeTtl: number;
  /**
   * The smallest TTL of the CNAMEs that led from the question to `canonical`, aged like the
   * records; undefined without a chain. The records' TTLs and `negativeTtl` never exceed it: an
   * answer reached through an alias holds no longer than the alias (as c-ares gives TTLs).
   */
  readonly chainTtl: number | undefined;
  /** Seconds the answer spent in a cache before this result was made. */
  readonly age: number;
  /**
   * An expired answer served because every backend failed (RFC 8767 serve-stale): every TTL is
   * 30. It is secure only if it was secure when it was cached.
   */
  readonly stale: boolean;
  /**
   * The cache entry this result was built from: a hit's, or the one the answering backend's cache
   * stored from this very answer; undefined for an answer no cache holds (TTL 0, stale). While
   * `cacheEntry.current()`, a new question would get the same data: what was derived from this
   * result may be reused.
   */
  declare readonly cacheEntry: CacheEntry | undefined;
  readonly #answer: Uint8Array;

  constructor(init: DnsResultInit<R>) {
    this.query = init.query;
    this.resolver = init.resolver;
    this.rcode = init.rcode;
    // Secure and bogus together cannot be: the weaker one holds.
    this.secure = init.secure && !init.bogus;
    this.bogus = init.bogus;
    this.whyBogus = init.whyBogus;
    this.ede = init.ede ?? (this.bogus ? Ede.DNSSEC_BOGUS : undefined);
    this.canonical = init.canonical;
    // A bogus result never carries data to use (RFC 4035 section 4.3), however it was made.
    this.records = this.bogus ? (NONE as readonly R[]) : frozenCopy(init.records);
    this.authority = this.bogus ? NONE : frozenCopy(init.authority);
    this.additional = this.bogus ? NONE : frozenCopy(init.additional);
    this.additionalSecure = this.secure && init.additionalSecure === true;
    this.dropped = frozenCopy(init.dropped);
    this.negativeTtl = this.bogus ? 0 : init.negativeTtl;
    this.chainTtl = this.bogus ? undefined : init.chainTtl;
    this.age = init.age;
    this.stale = init.stale ?? false;
    // Not enumerable: a result stays plain data for spreads, equality and JSON.
    Object.defineProperty(this, 'cacheEntry', { value: init.cacheEntry, enumerable: false });
    this.#answer = init.answer;
    this.lowestTtl = init.rcode === Rcode.NXDOMAIN ? 0 : lowestNonZeroTtl(this.records);
    Object.freeze(this);
  }

  /** secure, insecure or bogus (RFC 4035 section 4.3). */
  get dnssec(): DnssecStatus {
    return dnssecStatus(this);
  }

  /**
   * This result presented as the answer to `query`, reached through `chain` (the answer whose
   * CNAME chain led here, when this is the chain's end re-asked): its status is the weaker of
   * the two, so an insecure link never yields a secure whole, and a bogus one hides the data.
   * A stale part makes the whole stale.
   */
  answering(query: DnsQuery, chain?: DnsResult<RecordBase>): DnsResult<R> {
    const status = chain ? weakestStatus(chain, this) : this.dnssec;
    const { secure, bogus } = flagsOf(status);
    const cause = chain?.bogus ? chain : this;
    // The whole holds no longer than the chain that led here.
    const cap = chain?.chainTtl;
    return new DnsResult<R>({
      ...this,
      query,
      ...(cap === undefined
        ? {}
        : {
            records: cappedTtl(this.records, cap),
            negativeTtl: Math.min(this.negativeTtl, cap),
            chainTtl: Math.min(this.chainTtl ?? cap, cap),
          }),
      answer: this.#answer,
      secure,
      bogus,
      whyBogus: bogus ? (cause.whyBogus ?? 'validation failed') : undefined,
      ede: bogus ? cause.ede : this.ede,
      stale: this.stale || chain?.stale === true,
      // Made from two answers (the chain and its end): no single cache entry stands for it.
      cacheEntry: undefined,
    });
  }

  /** The raw answer packet; a copy, so the result stays immutable. */
  get answer(): Uint8Array {
    return this.#answer.slice();
  }

  get rcodeName(): string {
    return rcodeName(this.rcode);
  }

  get nxDomain(): boolean {
    return this.rcode === Rcode.NXDOMAIN;
  }

  /** NOERROR with no records of the type (RFC 2308 section 2.2). */
  get noData(): boolean {
    return this.rcode === Rcode.NOERROR && this.records.length === 0;
  }
}

/** The empty list every result without records of a section shares (frozen: nobody can fill it). */
const NONE: readonly never[] = Object.freeze([]);

/** A frozen copy of `list`, so the result stays immutable whatever its maker does with the list. */
function frozenCopy<T>(list: readonly T[]): readonly T[] {
  return list.length === 0 ? NONE : Object.freeze([...list]);
}

function lowestNonZeroTtl(records: readonly RecordBase[]): number {
  let lowest = 0;
  for (const record of records) {
    if (record.ttl > 0 && (lowest === 0 || record.ttl < lowest)) lowest = record.ttl;
  }
  return lowest;
}

/**
 * Records reached through a CNAME chain hold no longer than the chain: their TTLs capped by its
 * smallest (as c-ares gives them, and as the cache keeps the answer).
 */
export function cappedTtl<R extends RecordBase>(records: readonly R[], chainTtl: number | undefined): readonly R[] {
  if (chainTtl === undefined) return records;
  return records.map((r) => (r.ttl <= chainTtl ? r : (Object.freeze({ ...r, ttl: chainTtl }) as R)));
}
