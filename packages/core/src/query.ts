/** A question (RFC 1035 section 4.1.2), validated once when it is made. */
import { InvalidQueryError } from './errors.js';
import { formatName, nameKey, parseName, type Labels } from './names.js';
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
  const labels = parseName(name);
  // A name without escapes is its own presentation form (less the final dot).
  const text = /^[A-Za-z0-9_.-]+$/.test(name)
    ? name.length > 1 && name.endsWith('.')
      ? name.slice(0, -1)
      : name
    : formatName(labels);
  return Object.freeze({ name: text, labels, type: parseType(type), class: parseClass(rrclass) });
}

/** "biloxi.example IN SRV", for messages. */
export function describeQuery(query: DnsQuery): string {
  return `${query.name} ${className(query.class)} ${typeName(query.type)}`;
}

/** The same string for questions that are the same: class, type and the name's key (a cache's key). */
export function questionKey(query: DnsQuery): string {
  return `${query.class}/${query.type}/${nameKey(query.name)}`;
}
