/**
 * Where a plugin's answer becomes a DnsResult (Asterisk's ast_dns_resolver_set_result,
 * add_record and completed). The core checks the invariants, parses the records, drops
 * invalid ones with reasons and orders SRV and NAPTR, so every backend behaves the same.
 */
import { STALE_TTL, type CacheEntry } from './answer-cache.js';
import { Ede, isEdeCode } from './ede.js';
import { InvalidArgumentError, InvalidResultError, MalformedAnswerError, StateError } from './errors.js';
import { formatName, isAtOrBelowText, nameKey, parseName, presentationForm, sameNameText } from './names.js';
import { describeQuery, type DnsQuery } from './query.js';
import { defaultRandom, type RandomSource } from './random.js';
import { decodeRecord } from './records/decode.js';
import { orderNaptr } from './records/naptr.js';
import { RdataError } from './records/rdata-error.js';
import { orderSrv } from './records/srv.js';
import { negativeTtl } from './records/soa.js';
import type { DnsRecord, DroppedRecord, TypedRecord } from './records/types.js';
import { inAdditionalBailiwickText } from './bailiwick.js';
import { DnsResult, cappedTtl } from './result.js';
import { RRClass, RRType, Rcode, typeName } from './rr-types.js';
import { parseMessage, type WireMessage, type WireRecord } from './wire/message.js';
import { WireError } from './wire/reader.js';
import type { PluginAnswer } from './plugin-answer.js';
import { quoteText } from './untrusted-text.js';

export interface ResultBuilderOptions {
  readonly random?: RandomSource;
  /** Name of the resolver that answered. */
  readonly resolver?: string;
  /** Longest CNAME chain followed in an answer (default 16). */
  readonly maxCnameChain?: number;
  /** The cache entry the answer came from (DnsCore's hit path). */
  readonly cacheEntry?: CacheEntry;
}

export const DEFAULT_MAX_CNAME_CHAIN = 16;
const EMPTY = new Uint8Array(0);
const NONE_DROPPED: readonly DroppedRecord[] = Object.freeze([]);

interface Sections {
  readonly canonical: string;
  /** Where the answer's CNAME chain ends, as formatName() writes it (the query's name without one). */
  readonly chainEnd: string;
  /** The smallest TTL of the chain's CNAMEs (not aged); undefined without a chain. */
  readonly chainTtl?: number;
  readonly records: readonly DnsRecord[];
  readonly authority: readonly DnsRecord[];
  readonly additional: readonly DnsRecord[];
}

interface ParsedSections extends Sections {
  /** The question and options they were parsed for. */
  readonly key: string;
  readonly dropped: readonly DroppedRecord[];
}

/** Parses of cached packets, by packet (see ResultBuilder#sections); an entry goes with its packet. */
const parsedFromCache = new WeakMap<Uint8Array, ParsedSections>();

/**
 * `records` with `age` seconds less TTL (never below 0); every TTL STALE_TTL for a stale answer.
 * Unaged records are handed on as they are: DnsResult keeps its own frozen copy of each list.
 */
function aged(records: readonly DnsRecord[], age: number, stale: boolean): readonly DnsRecord[] {
  if (stale) return records.map((r) => Object.freeze({ ...r, ttl: STALE_TTL }) as DnsRecord);
  return age === 0 ? records : records.map((r) => Object.freeze({ ...r, ttl: Math.max(0, r.ttl - age) }) as DnsRecord);
}

export class ResultBuilder {
  #answer: PluginAnswer | undefined;
  #added: DnsRecord[] | undefined;
  readonly #dropped: DroppedRecord[] = [];
  #name: string | undefined;

  constructor(
    readonly query: DnsQuery,
    private readonly options: ResultBuilderOptions = {},
  ) {}

  /** The question's name as formatName() writes it (makeQuery() makes it so): names are compared as text. */
  get #queryName(): string {
    this.#name ??= presentationForm(this.query.name);
    return this.#name;
  }

  /** Sets (or replaces) the result. Secure and bogus together, or an empty canonical name, are refused. */
  setResult(answer: PluginAnswer): this {
    const { rcode, secure = false, bogus = false, canonical } = answer;
    if (secure && bogus)
      throw new InvalidResultError(`${describeQuery(this.query)}: a result cannot be both secure and bogus`);
    if (!Number.isInteger(rcode) || rcode < 0 || rcode > 0xfff) {
      throw new InvalidResultError(`${describeQuery(this.query)}: rcode ${String(rcode)} is not 0..4095`);
    }
    if (answer.ede !== undefined && !isEdeCode(answer.ede)) {
      throw new InvalidResultError(`${describeQuery(this.query)}: EDE ${String(answer.ede)} is not 0..65535`);
    }
    // A bogus answer's canonical name is never used (see build()): it cannot make it fail.
    if (canonical !== undefined && !bogus) {
      if (canonical === '') throw new InvalidResultError(`${describeQuery(this.query)}: the canonical name is empty`);
      parseName(canonical);
    }
    this.#answer = answer;
    this.#added = undefined;
    this.#dropped.length = 0;
    return this;
  }

  /**
   * Adds a record by hand (for backends without an answer packet). Bad type, class, TTL or
   * empty data throw; a record whose RDATA breaks a rule is dropped and false is returned.
   */
  addRecord(type: number, rrclass: number, ttl: number, rdata: Uint8Array): boolean {
    if (!this.#answer) throw new StateError('addRecord() before setResult()');
    checkRange(type, 'type');
    checkRange(rrclass, 'class');
    if (!Number.isInteger(ttl) || ttl < 0 || ttl > 0x7fffffff)
      throw new InvalidArgumentError(`TTL ${ttl} is not 0..2147483647`);
    if (!(rdata instanceof Uint8Array) || rdata.length === 0) throw new InvalidArgumentError('a record needs RDATA');
    // A bogus answer keeps no records (see #bogus).
    if (this.#answer.bogus) return false;
    const name = this.#answer.canonical ?? this.query.name;
    const wire: WireRecord = {
      name,
      labels: parseName(name),
      type,
      class: rrclass,
      ttl,
      rdataOffset: 0,
      rdlength: rdata.length,
    };
    const record = this.#decode(rdata, wire, 'answer', 0);
    if (!record) return false;
    this.#added ??= [];
    this.#added.push(record);
    return true;
  }

  /** The finished, immutable result. */
  build(): DnsResult {
    const answer = this.#answer;
    if (!answer) throw new StateError('build() before setResult()');
    const packet = answer.answer ?? EMPTY;
    const age = Math.max(0, Math.floor(answer.age ?? 0));
    if (answer.bogus) return this.#bogus(answer, packet, age);
    const sections = this.#added
      ? {
          canonical: answer.canonical ?? this.query.name,
          chainEnd: this.#queryName,
          records: lowestPerRrset(this.#added),
          authority: [],
          additional: [],
        }
      : this.#sections(answer, packet);
    const stale = answer.stale === true;
    const records = aged(sections.records, age, stale);
    const authority = aged(sections.authority, age, stale);
    const negative = negativeTtlOf(this.query, answer.rcode, records, authority, sections.chainEnd, stale ? 0 : age);
    const chainTtl =
      sections.chainTtl === undefined ? undefined : stale ? STALE_TTL : Math.max(0, sections.chainTtl - age);
    return new DnsResult({
      query: this.query,
      resolver: this.options.resolver ?? 'unknown',
      rcode: answer.rcode,
      secure: answer.secure ?? false,
      bogus: false,
      whyBogus: undefined,
      ede: answer.ede,
      canonical: sections.canonical,
      answer: packet,
      records: this.#order(records),
      authority,
      additional: aged(sections.additional, age, stale),
      additionalSecure: answer.additionalSecure === true,
      dropped: this.#dropped,
      // A negative answer for the chain's end holds no longer than the chain that led there.
      negativeTtl: chainTtl === undefined ? negative : Math.min(negative, chainTtl),
      chainTtl,
      age,
      stale,
      cacheEntry: this.options.cacheEntry,
    });
  }

  /**
   * A bogus answer is a bogus result without reading its sections: its data is never presented
   * as usable (RFC 4035 section 4.3), and data an attacker altered must not turn the verdict
   * into a parse error that another backend would be asked about.
   */
  #bogus(answer: PluginAnswer, packet: Uint8Array, age: number): DnsResult {
    let canonical = this.query.name;
    try {
      if (answer.canonical !== undefined && answer.canonical !== '') {
        const named = formatName(parseName(answer.canonical));
        if (!sameNameText(named, this.#queryName)) canonical = named;
      }
    } catch {
      // An unreadable canonical name of a bogus answer is one more thing not to trust.
    }
    return new DnsResult({
      query: this.query,
      resolver: this.options.resolver ?? 'unknown',
      rcode: answer.rcode,
      secure: false,
      bogus: true,
      whyBogus: answer.whyBogus ?? 'validation failed',
      ede: answer.ede ?? Ede.DNSSEC_BOGUS,
      canonical,
      answer: packet,
      records: [],
      authority: [],
      additional: [],
      dropped: [],
      negativeTtl: 0,
      age,
      stale: answer.stale === true,
      cacheEntry: this.options.cacheEntry,
    });
  }

  /**
   * The packet's sections for this question, TTLs not aged. A cache hands back the same packet
   * on every hit (with `age` set): it is parsed and checked once, later hits reuse that work.
   */
  #sections(answer: PluginAnswer, packet: Uint8Array): Sections {
    if (packet.length === 0) {
      return {
        canonical: answer.canonical ?? this.query.name,
        chainEnd: this.#queryName,
        records: [],
        authority: [],
        additional: [],
      };
    }
    // Only a cached packet (one with an age) is parsed again on a later hit: only its parse is kept.
    const key =
      answer.age === undefined
        ? ''
        : `${this.query.class}/${this.query.type}/${this.query.name}/${answer.canonical ?? ''}/` +
          `${this.options.maxCnameChain ?? ''}`;
    const cached = answer.age !== undefined ? parsedFromCache.get(packet) : undefined;
    if (cached && cached.key === key) {
      this.#dropped.push(...cached.dropped);
      return cached;
    }
    const message = this.#parse(packet);
    const { end: chainEnd, ttl: chainTtl } = this.#followCnames(message);
    if (answer.canonical !== undefined && !sameNameText(presentationForm(answer.canonical), chainEnd)) {
      throw new InvalidResultError(
        `${describeQuery(this.query)}: canonical name ${quoteText(answer.canonical)} ` +
          "is not the end of the answer's CNAME chain",
      );
    }
    const sections: ParsedSections = {
      key,
      chainEnd,
      // Without a chain the canonical name is the question's, as this question spells it: a cached
      // answer's canonical name is in the spelling of the question that filled the cache.
      canonical: answer.canonical !== undefined && chainEnd !== this.#queryName ? answer.canonical : chainEnd,
      ...(chainTtl === undefined ? {} : { chainTtl }),
      records: cappedTtl(lowestPerRrset(this.#answerRecords(message, chainEnd, 0)), chainTtl),
      authority: lowestPerRrset(this.#section(message, message.authorities, 'authority', 0)),
      additional: lowestPerRrset(
        this.#section(message, this.#inBailiwick(message.additionals, chainEnd), 'additional', 0),
      ),
      dropped: answer.age === undefined ? NONE_DROPPED : [...this.#dropped],
    };
    if (answer.age !== undefined) parsedFromCache.set(packet, sections);
    return sections;
  }

  #parse(packet: Uint8Array): WireMessage {
    let message: WireMessage;
    try {
      message = parseMessage(packet);
    } catch (error) {
      if (error instanceof WireError) {
        throw new MalformedAnswerError(
          `answer to ${describeQuery(this.query)} is malformed: ${error.message}`,
          error.offset,
        );
      }
      throw error;
    }
    if (!message.header.qr) throw new MalformedAnswerError(`answer to ${describeQuery(this.query)} is not a response`);
    const question = message.questions[0];
    if (
      question &&
      (question.type !== this.query.type ||
        question.class !== this.query.class ||
        !sameNameText(question.name, this.#queryName))
    ) {
      throw new MalformedAnswerError(
        `answer to ${describeQuery(this.query)} is for another question (${question.name} ${typeName(question.type)})`,
      );
    }
    return message;
  }

  /**
   * Follows CNAMEs from the query name through the answer section; returns the chain's end and
   * the smallest TTL of its CNAMEs (undefined without one).
   */
  #followCnames(message: WireMessage): { end: string; ttl: number | undefined } {
    let current = this.#queryName;
    let ttl: number | undefined;
    if (this.query.type === RRType.CNAME || this.query.type === RRType.ANY) return { end: current, ttl };
    const limit = this.options.maxCnameChain ?? DEFAULT_MAX_CNAME_CHAIN;
    for (let hops = 0; ; hops++) {
      const cname = message.answers.find(
        (r) => r.type === RRType.CNAME && this.#classMatches(r) && sameNameText(r.name, current),
      );
      if (!cname) return { end: current, ttl };
      if (hops >= limit) {
        throw new MalformedAnswerError(
          `answer to ${describeQuery(this.query)} has a CNAME chain longer than ${limit} (or a loop)`,
        );
      }
      let target: string;
      try {
        target = decodeRecord(message.packet, cname).data as string;
      } catch (error) {
        if (error instanceof RdataError)
          throw new MalformedAnswerError(`answer to ${describeQuery(this.query)}: ${error.message}`);
        throw error;
      }
      current = target;
      ttl = Math.min(ttl ?? cname.ttl, cname.ttl);
    }
  }

  #answerRecords(message: WireMessage, owner: string, age: number): DnsRecord[] {
    const anyType = this.query.type === RRType.ANY;
    const matching = message.answers.filter(
      (r) => (anyType || r.type === this.query.type) && this.#classMatches(r) && sameNameText(r.name, owner),
    );
    return this.#section(message, matching, 'answer', age);
  }

  #section(
    message: WireMessage,
    records: readonly WireRecord[],
    section: DroppedRecord['section'],
    age: number,
  ): DnsRecord[] {
    const out: DnsRecord[] = [];
    for (const wire of records) {
      const record = this.#decode(message.packet, wire, section, age);
      if (record) out.push(record);
    }
    return out;
  }

  #decode(packet: Uint8Array, wire: WireRecord, section: DroppedRecord['section'], age: number): DnsRecord | undefined {
    try {
      return decodeRecord(packet, wire, age);
    } catch (error) {
      if (!(error instanceof RdataError)) throw error;
      this.#dropped.push(
        Object.freeze({ section, name: wire.name, type: typeName(wire.type), rule: error.rule, reason: error.message }),
      );
      return undefined;
    }
  }

  /** Additional records outside the question's domain are dropped, never used (RFC 5452). */
  #inBailiwick(records: readonly WireRecord[], chainEnd: string): WireRecord[] {
    return records.filter((r) => {
      if (inAdditionalBailiwickText(r.name, this.#queryName) || inAdditionalBailiwickText(r.name, chainEnd))
        return true;
      this.#dropped.push(
        Object.freeze({
          section: 'additional' as const,
          name: r.name,
          type: typeName(r.type),
          rule: 'out-of-bailiwick',
          reason: `${r.name} is outside ${describeQuery(this.query)}'s domain`,
        }),
      );
      return false;
    });
  }

  #classMatches(record: WireRecord): boolean {
    return this.query.class === RRClass.ANY || record.class === this.query.class;
  }

  /** SRV and NAPTR in RFC order, in new lists (a cached parse's lists are never reordered in place). */
  #order(records: readonly DnsRecord[]): readonly DnsRecord[] {
    if (this.query.type === RRType.SRV) {
      return orderSrv(records as readonly TypedRecord<'SRV'>[], this.options.random ?? defaultRandom);
    }
    if (this.query.type === RRType.NAPTR) return orderNaptr(records as readonly TypedRecord<'NAPTR'>[]);
    return records;
  }
}

/**
 * RFC 2181 section 5.2: the records of one RRset (owner, class, type) whose TTLs differ are all
 * treated as having the lowest, as the cache keeps them. RRSIGs are left as they are: each has
 * the TTL of the RRset it covers (RFC 4034 section 3). The list is handed back when nothing differs.
 */
function lowestPerRrset(records: DnsRecord[]): DnsRecord[] {
  if (records.length < 2 || records.every((r) => r.ttl === records[0]!.ttl)) return records;
  const lowest = new Map<string, number>();
  for (const record of records) {
    const key = rrsetKey(record);
    const ttl = lowest.get(key);
    if (ttl === undefined || record.ttl < ttl) lowest.set(key, record.ttl);
  }
  return records.map((r) => {
    const ttl = lowest.get(rrsetKey(r))!;
    return r.ttl === ttl ? r : (Object.freeze({ ...r, ttl }) as DnsRecord);
  });
}

/** RFC 4034 RRSIG. */
const RRSIG = 46;

function rrsetKey(record: DnsRecord): string {
  // RRSIGs never share a lowest TTL with anything: each is keyed apart.
  const type = record.rrtype === RRSIG ? `RRSIG ${record.ttl}` : record.rrtype;
  return `${record.class} ${type} ${nameKey(record.name)}`;
}

/** One call: a plugin's answer to a result. */
export function buildResult(query: DnsQuery, answer: PluginAnswer, options?: ResultBuilderOptions): DnsResult {
  return new ResultBuilder(query, options).setResult(answer).build();
}

function negativeTtlOf(
  query: DnsQuery,
  rcode: number,
  records: readonly DnsRecord[],
  authority: readonly DnsRecord[],
  chainEnd: string,
  age: number,
): number {
  if (!(rcode === Rcode.NXDOMAIN || (rcode === Rcode.NOERROR && records.length === 0))) return 0;
  // Only the SOA of a zone that holds the name, in the question's class, speaks for its absence
  // (RFC 2308 section 5). An SOA of class ANY or NONE stays raw RDATA: it has no MINIMUM.
  const soa = authority.find(
    (r): r is TypedRecord<'SOA'> =>
      r.type === 'SOA' &&
      r.class === query.class &&
      typeof (r.data as Partial<TypedRecord<'SOA'>['data']>).minimum === 'number' &&
      isAtOrBelowText(chainEnd, presentationForm(r.name)),
  );
  if (!soa) return 0;
  // soa.ttl is already aged; MINIMUM ages with it.
  const ttl = negativeTtl(soa.ttl, { ...soa.data, minimum: soa.data.minimum - age });
  return Number.isFinite(ttl) ? Math.max(0, ttl) : 0;
}

function checkRange(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) {
    throw new InvalidArgumentError(`${what} ${value} is outside 0..65535`);
  }
}
