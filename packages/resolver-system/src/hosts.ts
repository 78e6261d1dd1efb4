/**
 * /etc/hosts (hosts(5)) for A and AAAA questions: "ADDRESS NAME [ALIASES...]", "#" comments.
 * A name the file has is answered from the file alone, for both families: its addresses of the
 * asked family, or none (NODATA). That is what glibc's getaddrinfo does with "files dns" for
 * AF_UNSPEC (nss_files' gethostbyname4_r succeeds, so dns is not asked) and what
 * systemd-resolved does per record type. Only an explicit-family getaddrinfo differs: glibc asks
 * DNS when the file lacks that family; a backend answering one record type cannot tell the two
 * calls apart, and a lookup of both families must not mix the file with DNS. Names the file does
 * not have, and other types and classes, go to the nameservers.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { RRClass, RRType, nameKey, parseName, type DnsQuery } from '@dnscore/core/plugin';
import { encodeAddressAnswer } from './wire.js';

export class HostsTable {
  readonly #v4 = new Map<string, Uint8Array[]>();
  readonly #v6 = new Map<string, Uint8Array[]>();
  /** Every name with a line, of either family. */
  readonly #names = new Set<string>();
  /** Lines that were not used, with the reason. */
  readonly skipped: string[] = [];

  constructor(text: string) {
    for (const [index, raw] of text.split(/\r?\n/).entries()) {
      const [address, ...names] = raw.replace(/#.*$/, '').trim().split(/\s+/);
      if (!address || names.length === 0) continue;
      const bytes = ipBytes(address);
      if (!bytes) {
        this.skipped.push(`line ${index + 1}: "${address}" is not an IP address (zones are not supported)`);
        continue;
      }
      const table = bytes.length === 4 ? this.#v4 : this.#v6;
      for (const name of names) {
        let key: string;
        try {
          parseName(name);
          key = nameKey(name);
        } catch (error) {
          this.skipped.push(`line ${index + 1}: "${name}": ${(error as Error).message}`);
          continue;
        }
        const list = table.get(key) ?? [];
        if (!list.some((b) => Buffer.from(b).equals(bytes))) list.push(bytes);
        table.set(key, list);
        this.#names.add(key);
      }
    }
  }

  /** The addresses of the name for an IN A or IN AAAA question, in file order; [] otherwise. */
  addresses(query: DnsQuery): readonly Uint8Array[] {
    if (query.class !== RRClass.IN) return [];
    const table = query.type === RRType.A ? this.#v4 : query.type === RRType.AAAA ? this.#v6 : undefined;
    return table?.get(nameKey(query.name)) ?? [];
  }

  /**
   * An answer packet from the file (NODATA when the name has addresses of the other family only),
   * or undefined when the file does not answer the question.
   */
  answer(query: DnsQuery, ttl: number): Uint8Array | undefined {
    if (query.class !== RRClass.IN || (query.type !== RRType.A && query.type !== RRType.AAAA)) return undefined;
    if (!this.#names.has(nameKey(query.name))) return undefined;
    return encodeAddressAnswer(query, this.addresses(query), ttl);
  }
}

/** The 4 or 16 bytes of an IP literal; undefined for anything else (including %zones). */
export function ipBytes(text: string): Uint8Array | undefined {
  if (isIPv4(text)) return Uint8Array.from(text.split('.').map(Number));
  if (!isIPv6(text) || text.includes('%')) return undefined;
  let groups: number[] = [];
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d]; // an embedded IPv4 address is two groups
        });
  const left = parse(head);
  if (tail === undefined) groups = left;
  else {
    const right = parse(tail);
    groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}
