/** A question (RFC 1035 section 4.1.2), validated once when it is made. */
import { InvalidQueryError } from './errors.js';
import { formatName, isPlainName, nameKey, parseName, type Labels } from './names.js';
import { RRClass, className, parseClass, parseType, typeName } from './rr-types.js';

export interface DnsQuery {
  /** Presentation form without the trailing dot, escapes normalized. */
  readonly name: string;
  readonly labels: Labels;
  readonly type: number;
  readonly class: number;
}

/**
 * Builds a validated query. Throws InvalidQueryError for an empty name, a label over 63 or a
 * name over 255 octets, or a type or class outside 0..65535.
 */
export function makeQuery(name: string, type: number | string, rrclass: number | string = RRClass.IN): DnsQuery {
  if (typeof name !== 'string' || name.length === 0) throw new InvalidQueryError('the name is empty');
  // A plain name (letters, digits, '-', '_') is its own presentation form, less the final dot,
  // and is checked without making its labels: a question waiting in a burst holds only its text.
  const labels = isPlainName(name) ? undefined : parseName(name);
  const text =
    labels !== undefined ? formatName(labels) : name.length > 1 && name.endsWith('.') ? name.slice(0, -1) : name;
  return new Query(text, parseType(type), parseClass(rrclass), labels);
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
