/**
 * The zone resolver: a plugin that answers from master files held in memory, like an
 * authoritative server: answers with CNAME chains, NXDOMAIN versus NODATA with the SOA, and
 * A/AAAA of SRV targets, NAPTR replacements and MX exchanges in the additional section when
 * the same zone holds them. It lets everything run offline and is the unit tests' fixture.
 * Names outside its zones get NotAuthoritativeError, so a resolver after it can answer them.
 */
import { dirname, resolve } from 'node:path';
import dnsPacket from 'dns-packet';
import { throwIfAborted } from '../abort.js';
import { queryChannel } from '../diagnostics.js';
import { NotAuthoritativeError, ZoneFileError } from '../errors.js';
import { formatName, nameKey, parseName, type Labels } from '../names.js';
import { describeQuery, type DnsQuery } from '../query.js';
import type { ResolverPlugin } from '../resolver-plugin.js';
import type { PluginAnswer } from '../plugin-answer.js';
import type { ServerAttempt } from '../server-attempts.js';
import { RRType, Rcode, className, typeName } from '../rr-types.js';
import { parseZone, type ZoneRecord } from './parser.js';
import { packetName } from './rdata-text.js';
import { Zone } from './zone.js';
import { decodeZoneText, readRegularFile } from './zone-text.js';

export interface ZoneSource {
  /** Master-file text. */
  readonly text: string;
  /** Shown in errors; also the base of relative $INCLUDE paths. */
  readonly file?: string;
  /** Origin before any $ORIGIN in the text. */
  readonly origin?: string;
  /** The directory $INCLUDE may read below; left out, $INCLUDE is refused (text not read from a file). */
  readonly includeRoot?: string;
}

export interface ZoneResolverOptions {
  /** Zone files to read now (errors name the file and line). */
  readonly files?: readonly string[];
  /** Zones given as text. */
  readonly zones?: readonly ZoneSource[];
  /** Plugin name (default "zone"). */
  readonly name?: string;
  /** Default 50: ahead of libunbound (100) and the system resolver, so local zones win. */
  readonly priority?: number;
  /** Longest CNAME chain followed (default 16). */
  readonly maxCnameChain?: number;
  /** Largest zone file read, in bytes (default 16 MiB); its $INCLUDEs have their own limit. */
  readonly maxZoneFileBytes?: number;
}

export const DEFAULT_MAX_ZONE_FILE_BYTES = 16 * 1024 * 1024;

export const DEFAULT_ZONE_PRIORITY = 50;
const AUTHORITATIVE = 1 << 10;

export class ZoneResolver implements ResolverPlugin {
  readonly name: string;
  readonly priority: number;
  readonly zones: readonly Zone[];
  readonly #maxChain: number;

  constructor(options: ZoneResolverOptions = {}) {
    this.name = options.name ?? 'zone';
    this.priority = options.priority ?? DEFAULT_ZONE_PRIORITY;
    this.#maxChain = options.maxCnameChain ?? 16;
    const sources: ZoneSource[] = [
      // A zone file may $INCLUDE files below its own directory, and nothing else.
      ...(options.files ?? []).map((file) => ({
        text: readZoneFile(file, options.maxZoneFileBytes ?? DEFAULT_MAX_ZONE_FILE_BYTES),
        file,
        includeRoot: dirname(resolve(file)),
      })),
      ...(options.zones ?? []),
    ];
    const zones = sources.map((source) => {
      const file = source.file ?? '<zone>';
      const options = {
        file,
        ...(source.origin ? { origin: source.origin } : {}),
        ...(source.includeRoot !== undefined ? { includeRoot: source.includeRoot } : {}),
      };
      return new Zone(parseZone(source.text, options), file);
    });
    for (const [i, zone] of zones.entries()) {
      const clash = zones.findIndex((other, j) => j < i && nameKey(other.name) === nameKey(zone.name));
      if (clash >= 0) throw new ZoneFileError(zone.soa.file, zone.soa.line, `zone ${zone.name} is loaded twice`);
    }
    // Longest origin first, so the most specific zone answers.
    this.zones = zones.sort((a, b) => b.origin.length - a.origin.length);
  }

  available(): boolean {
    return true;
  }

  close(): void {}

  async resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
    throwIfAborted(signal);
    const answer = this.answer(query);
    return queryChannel.hasSubscribers ? { ...answer, servers: [this.#asked(query, answer.rcode)] } : answer;
  }

  /** For the trace: the file of the zone that holds the name (a zone given as text has none). */
  #asked(query: DnsQuery, rcode: number): ServerAttempt {
    const zone = this.#zoneFor(query.labels, query.class)!;
    const file = zone.soa.file;
    const server = file === '<zone>' ? `zone ${zone.name} (text)` : `zone file ${file}`;
    return { server, transport: 'file', outcome: 'answer', rcode };
  }

  /** The answer, synchronously. */
  answer(query: DnsQuery): PluginAnswer {
    const labels = query.labels; // made on each read for a plain name: read once
    if (!this.#zoneFor(labels, query.class)) {
      throw new NotAuthoritativeError(`${this.name}: no zone holds ${describeQuery(query)}`);
    }
    let qname: string;
    try {
      qname = packetName(labels);
    } catch {
      return { rcode: Rcode.NXDOMAIN, canonical: query.name }; // such a label cannot exist in these zones
    }
    const answers: ZoneRecord[] = [];
    let authority: ZoneRecord[] = [];
    let rcode: number = Rcode.NOERROR;
    let flags = AUTHORITATIVE;
    let current: Labels = labels;
    const seen = new Set<string>();
    for (;;) {
      const zone = this.#zoneFor(current, query.class);
      if (!zone) break; // the chain leaves our zones: the answer ends here
      const found = zone.lookup(current, query.type);
      if (found.kind === 'answer') {
        answers.push(...found.records);
      } else if (found.kind === 'cname') {
        answers.push(found.record);
        const key = nameKey(formatName(current));
        seen.add(key);
        current = parseName(found.record.data as string);
        if (seen.has(nameKey(formatName(current))) || seen.size > this.#maxChain) {
          // A CNAME loop or an over-long chain: no answer (RFC 1034 section 3.6.2).
          return { rcode: Rcode.SERVFAIL, canonical: query.name };
        }
        continue;
      } else if (found.kind === 'delegation') {
        if (answers.length === 0) {
          flags = 0; // a referral is not an authoritative answer
          authority = [...found.ns];
        }
      } else {
        if (found.kind === 'nxdomain') rcode = Rcode.NXDOMAIN; // RFC 6604: the rcode of the last name
        authority = [zone.negativeSoa()];
      }
      break;
    }
    const packet = dnsPacket.encode({
      type: 'response',
      id: 0,
      flags: flags | rcode,
      questions: [{ name: qname, type: packetType(query.type), class: className(query.class) } as dnsPacket.Question],
      answers: answers.map(toPacketRecord),
      authorities: authority.map(toPacketRecord),
      additionals: this.#additional(answers, authority).map(toPacketRecord),
    } as dnsPacket.Packet);
    return { rcode, secure: false, bogus: false, canonical: formatName(current), answer: packet };
  }

  #zoneFor(labels: Labels, rrclass: number): Zone | undefined {
    return this.zones.find((zone) => zone.class === rrclass && zone.contains(labels));
  }

  /** A/AAAA for the names the answer points to, when the zone of the pointing record holds them. */
  #additional(answers: readonly ZoneRecord[], authority: readonly ZoneRecord[]): ZoneRecord[] {
    const out: ZoneRecord[] = [];
    const added = new Set<string>();
    const add = (from: ZoneRecord, target: string): void => {
      if (target === '.') return;
      const labels = parseName(target);
      const zone = this.#zoneFor(from.labels, from.class);
      const key = nameKey(target);
      if (!zone || added.has(key)) return;
      added.add(key);
      out.push(...zone.addresses(labels));
    };
    for (const record of [...answers, ...authority]) {
      const data = record.data as { target?: string; replacement?: string; exchange?: string };
      if (record.type === RRType.SRV) add(record, data.target!);
      else if (record.type === RRType.NAPTR) add(record, data.replacement!);
      else if (record.type === RRType.MX) add(record, data.exchange!);
      else if (record.type === RRType.NS) add(record, record.data as string);
    }
    return out;
  }
}

function toPacketRecord(record: ZoneRecord): dnsPacket.Answer {
  // dns-packet has its own encoders for some types dnscore keeps raw; UNKNOWN_n writes bytes as they are.
  const type = record.data instanceof Uint8Array ? `UNKNOWN_${record.type}` : packetType(record.type);
  return {
    name: record.name,
    type,
    class: className(record.class),
    ttl: record.ttl,
    data: record.data,
  } as dnsPacket.Answer;
}

/** dns-packet's name for a type: it says UNKNOWN_n where RFC 3597 says TYPEn. */
function packetType(type: number): string {
  const name = typeName(type);
  return name === `TYPE${type}` ? `UNKNOWN_${type}` : name;
}

/** A regular file within the byte limit (a FIFO or a device would never end), in strict UTF-8. */
function readZoneFile(file: string, maxBytes: number): string {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file, maxBytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'over the byte limit') {
      throw new ZoneFileError(file, 0, `the zone file is larger than ${maxBytes} bytes (maxZoneFileBytes)`);
    }
    throw new ZoneFileError(file, 0, `cannot read the zone file: ${code ?? (error as Error).message}`);
  }
  return decodeZoneText(bytes, file);
}
