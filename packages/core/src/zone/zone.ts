/**
 * One zone held in memory, looked up as an authoritative server does (RFC 1034 section 4.3.2):
 * exact match, CNAME, delegation, empty non-terminals (NODATA, not NXDOMAIN) and wildcards
 * (RFC 4592).
 */
import { ZoneFileError } from '../errors.js';
import { formatName, labelEquals, labelsEqual, nameKey, type Labels } from '../names.js';
import { RRType } from '../rr-types.js';
import type { ZoneRecord } from './parser.js';

export type ZoneLookup =
  | { readonly kind: 'answer'; readonly records: readonly ZoneRecord[] }
  | { readonly kind: 'cname'; readonly record: ZoneRecord }
  | { readonly kind: 'nodata' }
  | { readonly kind: 'nxdomain' }
  | { readonly kind: 'delegation'; readonly ns: readonly ZoneRecord[] };

type Node = Map<number, ZoneRecord[]>;

export class Zone {
  readonly origin: Labels;
  readonly soa: ZoneRecord;
  readonly #nodes = new Map<string, Node>();
  /** Names that exist only because names below them do (RFC 4592 "empty non-terminals"). */
  readonly #nonTerminals = new Set<string>();

  /** Builds a zone from one file's records; the SOA's owner is the apex. */
  constructor(records: readonly ZoneRecord[], file: string) {
    const soas = records.filter((r) => r.type === RRType.SOA);
    if (soas.length === 0) throw new ZoneFileError(file, 1, 'the zone has no SOA record at its apex');
    const soa = soas[0]!;
    const second = soas.find((r) => r !== soa && !labelsEqual(r.labels, soa.labels));
    if (second)
      throw new ZoneFileError(second.file, second.line, `a second SOA, for ${second.name}: one zone per file`);
    this.soa = soa;
    this.origin = soa.labels;
    for (const record of records) this.#add(record);
  }

  get name(): string {
    return formatName(this.origin);
  }

  get class(): number {
    return this.soa.class;
  }

  /** True when `labels` is the apex or below it. */
  contains(labels: Labels): boolean {
    if (labels.length < this.origin.length) return false;
    const offset = labels.length - this.origin.length;
    return this.origin.every((label, i) => labelEquals(label, labels[offset + i]!));
  }

  /** Every record, for listing. */
  records(): ZoneRecord[] {
    return [...this.#nodes.values()].flatMap((node) => [...node.values()].flat());
  }

  /** The A and AAAA records at a name, for the additional section. */
  addresses(labels: Labels): ZoneRecord[] {
    if (!this.contains(labels)) return [];
    const node = this.#nodes.get(keyOf(labels));
    return node ? [...(node.get(RRType.A) ?? []), ...(node.get(RRType.AAAA) ?? [])] : [];
  }

  lookup(labels: Labels, type: number): ZoneLookup {
    const cut = this.#delegation(labels, type);
    if (cut) return cut;
    const node = this.#nodes.get(keyOf(labels));
    if (node) return answerFrom(node, type, undefined);
    if (this.#nonTerminals.has(keyOf(labels))) return { kind: 'nodata' };
    // RFC 4592 section 3.3.1: the wildcard at the closest encloser answers for the name.
    for (let i = 1; i <= labels.length - this.origin.length; i++) {
      const encloser = labels.slice(i);
      if (!this.#nodes.has(keyOf(encloser)) && !this.#nonTerminals.has(keyOf(encloser))) continue;
      const wildcard = this.#nodes.get(keyOf([WILDCARD, ...encloser]));
      return wildcard ? answerFrom(wildcard, type, labels) : { kind: 'nxdomain' };
    }
    return { kind: 'nxdomain' };
  }

  /** NS records at a zone cut between the apex and the name (the name itself included). */
  #delegation(labels: Labels, type: number): ZoneLookup | undefined {
    for (let depth = this.origin.length + 1; depth <= labels.length; depth++) {
      const name = labels.slice(labels.length - depth);
      const ns = this.#nodes.get(keyOf(name))?.get(RRType.NS);
      // The parent side answers DS at the cut itself (RFC 4035 section 3.1.4.1).
      if (ns && !(depth === labels.length && type === DS)) return { kind: 'delegation', ns };
    }
    return undefined;
  }

  #add(record: ZoneRecord): void {
    if (!this.contains(record.labels)) {
      throw new ZoneFileError(record.file, record.line, `${record.name} is outside the zone ${this.name}`);
    }
    if (record.class !== this.soa.class) {
      throw new ZoneFileError(
        record.file,
        record.line,
        `${record.name} has class ${record.class}, the zone has ${this.soa.class}`,
      );
    }
    const key = keyOf(record.labels);
    let node = this.#nodes.get(key);
    if (!node) {
      node = new Map();
      this.#nodes.set(key, node);
      for (let i = 1; i < record.labels.length - this.origin.length; i++)
        this.#nonTerminals.add(keyOf(record.labels.slice(i)));
    }
    const hasCname = node.has(RRType.CNAME);
    // RFC 1034 section 3.6.2 / RFC 2181 section 10.1: a CNAME stands alone at its name.
    if ((record.type === RRType.CNAME && node.size > 0 && !hasCname) || (hasCname && record.type !== RRType.CNAME)) {
      throw new ZoneFileError(record.file, record.line, `${record.name} has a CNAME and other data`);
    }
    if (record.type === RRType.CNAME && hasCname) {
      throw new ZoneFileError(record.file, record.line, `${record.name} has more than one CNAME`);
    }
    const rrset = node.get(record.type) ?? [];
    if (rrset.some((r) => JSON.stringify(r.data) === JSON.stringify(record.data))) return; // a duplicate RR
    rrset.push(record);
    node.set(record.type, rrset);
  }

  /** A negative answer's SOA, its TTL lowered to MINIMUM (RFC 2308 section 3). */
  negativeSoa(): ZoneRecord {
    const minimum = (this.soa.data as { minimum: number }).minimum;
    return { ...this.soa, ttl: Math.min(this.soa.ttl, minimum) };
  }
}

const WILDCARD = Uint8Array.of(0x2a);
const DS = 43;

function answerFrom(node: Node, type: number, synthesizedOwner: Labels | undefined): ZoneLookup {
  const own = (records: readonly ZoneRecord[]): ZoneRecord[] =>
    synthesizedOwner
      ? records.map((r) => ({ ...r, labels: synthesizedOwner, name: formatName(synthesizedOwner) }))
      : [...records];
  const cname = node.get(RRType.CNAME);
  if (cname && type !== RRType.CNAME && type !== RRType.ANY) return { kind: 'cname', record: own(cname)[0]! };
  const records = type === RRType.ANY ? [...node.values()].flat() : node.get(type);
  return records && records.length > 0 ? { kind: 'answer', records: own(records) } : { kind: 'nodata' };
}

function keyOf(labels: Labels): string {
  return nameKey(formatName(labels));
}
