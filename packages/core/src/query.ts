/** A question (RFC 1035 section 4.1.2), validated once when it is made. */
import { InvalidQueryError } from './errors.js';
import { formatName, isPlainName, nameKey, parseName, type Labels } from './names.js';
import { RRClass, RRType, className, parseClass, parseType, typeName } from './rr-types.js';

export interface DnsQuery {
  /** Presentation form without the trailing dot, escapes normalized. */
  readonly name: string;
  readonly labels: Labels;
  readonly type: number;
  readonly class: number;
}

/**
 * Builds a validated query. Throws InvalidQueryError for an empty name, a label over 63 or a
 * name over 255 octets, a type or class outside 0..65535, or one that no resolver answers as a
 * question (see whyNotAQuestion).
 */
export function makeQuery(name: string, type: number | string, rrclass: number | string = RRClass.IN): DnsQuery {
  if (typeof name !== 'string' || name.length === 0) throw new InvalidQueryError('the name is empty');
  // A plain name (letters, digits, '-', '_') is its own presentation form, less the final dot,
  // and is checked without making its labels: a question waiting in a burst holds only its text.
  const labels = isPlainName(name) ? undefined : parseName(name);
  const text =
    labels !== undefined ? formatName(labels) : name.length > 1 && name.endsWith('.') ? name.slice(0, -1) : name;
  const qtype = parseType(type);
  const qclass = parseClass(rrclass);
  const why = whyNotAQuestion(qtype, qclass);
  if (why !== undefined) throw new InvalidQueryError(`${text} ${className(qclass)} ${typeName(qtype)}: ${why}`);
  return new Query(text, qtype, qclass, labels);
}

/**
 * Why a type or class cannot be asked of a resolver, or undefined when it can: the reserved 0,
 * and the meta-types and classes (RFC 6895 section 3.1) that belong to a message, a zone transfer
 * or an update, not to a question. Any stub or recursive server refuses or mangles them.
 */
function whyNotAQuestion(type: number, rrclass: number): string | undefined {
  switch (type) {
    case 0:
      return 'type 0 is reserved';
    case RRType.OPT:
      return "OPT is a pseudo-record of the message's EDNS (RFC 6891), not something to ask for";
    case 249:
    case 250:
      return 'TKEY and TSIG sign transactions (RFC 2930, RFC 8945), they are not asked for';
    case 251:
    case 252:
      return 'IXFR and AXFR are zone transfers (RFC 1995, RFC 5936), not questions a resolver answers';
  }
  if (rrclass === 0) return 'class 0 is reserved';
  if (rrclass === RRClass.NONE) return 'class NONE belongs to dynamic updates (RFC 2136), not to questions';
  return undefined;
}

/**
 * A DnsQuery. The labels of a plain name are made anew on each read, not kept: a question that
 * waits in a burst is old in the heap by the time its answer comes, and labels kept on it then
 * would pin young objects through every minor collection until a full one.
 */
class Query implements DnsQuery {
  readonly name: string;
  readonly type: number;
  readonly class: number;
  #labels: Labels | undefined;

  constructor(name: string, type: number, rrclass: number, labels?: Labels) {
    this.name = name;
    this.type = type;
    this.class = rrclass;
    this.#labels = labels;
    Object.freeze(this);
  }

  get labels(): Labels {
    return this.#labels ?? parseName(this.name);
  }
}

/** "biloxi.example IN SRV", for messages. */
export function describeQuery(query: DnsQuery): string {
  return `${query.name} ${className(query.class)} ${typeName(query.type)}`;
}

/** The same string for questions that are the same: class, type and the name's key (a cache's key). */
export function questionKey(query: DnsQuery): string {
  return `${query.class}/${query.type}/${nameKey(query.name)}`;
}
