/**
 * The framing layer: a DNS message (RFC 1035 section 4.1) cut into header, questions and
 * resource records. Each record's RDATA is located by its RDLENGTH and left undecoded here;
 * records/ decodes it within exactly those bounds.
 */
import type { Labels } from '../names.js';
import { RRType } from '../rr-types.js';
import { WireError, WireReader } from './reader.js';

export const HEADER_LENGTH = 12;

export interface WireHeader {
  readonly id: number;
  readonly qr: boolean;
  readonly opcode: number;
  readonly aa: boolean;
  readonly tc: boolean;
  readonly rd: boolean;
  readonly ra: boolean;
  readonly ad: boolean;
  readonly cd: boolean;
  /** The full rcode: the header's 4 bits, extended by the OPT record when present (RFC 6891). */
  readonly rcode: number;
}

export interface WireQuestion {
  readonly name: string;
  readonly labels: Labels;
  readonly type: number;
  readonly class: number;
}

export interface WireRecord {
  readonly name: string;
  readonly labels: Labels;
  readonly type: number;
  readonly class: number;
  readonly ttl: number;
  /** Offset of the RDATA in the packet. */
  readonly rdataOffset: number;
  readonly rdlength: number;
}

export interface WireEdns {
  readonly udpPayloadSize: number;
  readonly version: number;
  readonly dnssecOk: boolean;
}

export interface WireMessage {
  readonly packet: Uint8Array;
  readonly header: WireHeader;
  readonly questions: readonly WireQuestion[];
  readonly answers: readonly WireRecord[];
  readonly authorities: readonly WireRecord[];
  /** Additional records without the OPT pseudo-record, which is in `edns`. */
  readonly additionals: readonly WireRecord[];
  readonly edns?: WireEdns;
}

/** Parses a message; throws WireError (with the offset) when it is not well formed. */
export function parseMessage(packet: Uint8Array): WireMessage {
  if (packet.length < HEADER_LENGTH) {
    throw new WireError(`a DNS message has a 12-byte header, this one has ${packet.length} bytes`, 0);
  }
  const reader = new WireReader(packet, 0);
  const id = reader.u16();
  const flags = reader.u16();
  const qdcount = reader.u16();
  const ancount = reader.u16();
  const nscount = reader.u16();
  const arcount = reader.u16();

  const questions: WireQuestion[] = [];
  for (let i = 0; i < qdcount; i++) {
    const at = reader.offset;
    const name = reader.nameText('question name');
    questions.push(new ParsedQuestion(packet, at, name, reader.u16('question type'), reader.u16('question class')));
  }
  const answers = readSection(reader, ancount, ANSWER);
  const authorities = readSection(reader, nscount, AUTHORITY);
  const opt: OptRecord = { at: -1, ttl: 0, udpPayloadSize: 0 };
  const additionals = readSection(reader, arcount, ADDITIONAL, opt);

  // OPT reuses CLASS as the payload size and TTL as extended rcode, version and flags.
  const header: WireHeader = {
    id,
    qr: (flags & 0x8000) !== 0,
    opcode: (flags >>> 11) & 0xf,
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    rd: (flags & 0x0100) !== 0,
    ra: (flags & 0x0080) !== 0,
    ad: (flags & 0x0020) !== 0,
    cd: (flags & 0x0010) !== 0,
    rcode: ((opt.ttl >>> 24) << 4) | (flags & 0xf),
  };
  if (opt.at < 0) return { packet, header, questions, answers, authorities, additionals };
  const edns: WireEdns = {
    udpPayloadSize: opt.udpPayloadSize,
    version: (opt.ttl >>> 16) & 0xff,
    dnssecOk: (opt.ttl & 0x8000) !== 0,
  };
  return { packet, header, questions, answers, authorities, additionals, edns };
}

/** The additional section's OPT pseudo-record (RFC 6891), read into this instead of a record. */
interface OptRecord {
  /** Where its RDATA starts; -1 until one is read. */
  at: number;
  ttl: number;
  udpPayloadSize: number;
}

/** What a check of one section says where it fails: made once, not per record read. */
interface SectionWords {
  readonly owner: string;
  readonly type: string;
  readonly class: string;
  readonly ttl: string;
  readonly rdlength: string;
  readonly rdataPast: string;
  /** An OPT record here (answer and authority: RFC 6891 section 6.1.1 puts it in the additional section). */
  readonly misplacedOpt: string;
}

function sectionWords(section: string): SectionWords {
  return {
    owner: `${section} record owner`,
    type: `${section} record type`,
    class: `${section} record class`,
    ttl: `${section} record TTL`,
    rdlength: `${section} record RDLENGTH`,
    rdataPast: `${section} record RDATA of %d bytes runs past the end of the packet`,
    misplacedOpt: `an OPT record in the ${section} section (RFC 6891: only in the additional section)`,
  };
}

const ANSWER = sectionWords('answer');
const AUTHORITY = sectionWords('authority');
const ADDITIONAL = sectionWords('additional');

/** The RDATA's length, checked against the packet; the reader is left at the RDATA. */
function rdlengthOf(reader: WireReader, words: SectionWords): number {
  const rdlength = reader.u16(words.rdlength);
  if (rdlength > reader.remaining) throw new WireError(words.rdataPast.replace('%d', String(rdlength)), reader.offset);
  return rdlength;
}

/** RFC 6891 section 6.1.2: the OPT record's owner MUST be the root. */
const OPT_OWNER = 'an OPT record whose owner is not the root (RFC 6891 section 6.1.2)';

/** True when the name at `at` (already walked, so its pointers are known to point back) is the root. */
function isRootAt(packet: Uint8Array, at: number): boolean {
  let position = at;
  while ((packet[position]! & 0xc0) === 0xc0) position = ((packet[position]! & 0x3f) << 8) | packet[position + 1]!;
  return packet[position] === 0;
}

/** A section's records; in the additional section, the OPT record goes to `opt` (a second one is a WireError). */
function readSection(reader: WireReader, count: number, words: SectionWords, opt?: OptRecord): WireRecord[] {
  const records: WireRecord[] = [];
  let secondOpt = -1;
  for (let i = 0; i < count; i++) {
    const at = reader.offset;
    const name = reader.nameText(words.owner);
    const type = reader.u16(words.type);
    const rrclass = reader.u16(words.class);
    const ttl = reader.u32(words.ttl);
    const rdlength = rdlengthOf(reader, words);
    const rdataOffset = reader.offset;
    reader.offset += rdlength;
    if (opt === undefined && type === RRType.OPT) throw new WireError(words.misplacedOpt, at);
    if (opt !== undefined && type === RRType.OPT) {
      if (name !== '.') throw new WireError(OPT_OWNER, at);
      // Every record is read before a second OPT is refused: a cut packet says so first.
      if (opt.at >= 0) secondOpt = secondOpt < 0 ? rdataOffset : secondOpt;
      else {
        opt.at = rdataOffset;
        opt.ttl = ttl;
        opt.udpPayloadSize = rrclass;
      }
      continue;
    }
    // RFC 2181 section 8: a TTL with the top bit set is treated as zero.
    const kept = ttl > 0x7fffffff ? 0 : ttl;
    records.push(new ParsedRecord(reader.packet, at, name, type, rrclass, kept, rdataOffset, rdlength));
  }
  if (secondOpt >= 0) throw new WireError('more than one OPT record', secondOpt);
  return records;
}

/**
 * A question as parsed: its name's text is read at once; its labels are read from the packet
 * only when asked (most answers are checked and used by name text alone), then kept.
 */
class ParsedQuestion implements WireQuestion {
  readonly class: number;
  readonly #packet: Uint8Array;
  /** Where the name starts in the packet. */
  readonly #nameOffset: number;
  #labels: Labels | undefined;

  constructor(
    packet: Uint8Array,
    nameOffset: number,
    readonly name: string,
    readonly type: number,
    rrclass: number,
  ) {
    this.#packet = packet;
    this.#nameOffset = nameOffset;
    this.class = rrclass;
  }

  get labels(): Labels {
    this.#labels ??= new WireReader(this.#packet, this.#nameOffset).labels();
    return this.#labels;
  }
}

/** A record as parsed: ParsedQuestion's lazy labels, and where its RDATA is. */
class ParsedRecord extends ParsedQuestion implements WireRecord {
  constructor(
    packet: Uint8Array,
    nameOffset: number,
    name: string,
    type: number,
    rrclass: number,
    readonly ttl: number,
    readonly rdataOffset: number,
    readonly rdlength: number,
  ) {
    super(packet, nameOffset, name, type, rrclass);
  }
}

/**
 * What a transport needs of an answer before it hands the packet on: read with every check
 * parseMessage makes (the same WireError for the same packet), but nothing is built: the core
 * parses the packet it is handed, and a transport that parsed it too made that garbage twice.
 */
export interface MessageSummary {
  /** The full rcode: the header's 4 bits, extended by the OPT record when present (RFC 6891). */
  readonly rcode: number;
  readonly tc: boolean;
  readonly ad: boolean;
  /** An OPT record came back (RFC 6891). */
  readonly edns: boolean;
}

/** Checks a whole message as parseMessage() does and sums up its header; throws the same WireError. */
export function scanMessage(packet: Uint8Array): MessageSummary {
  if (packet.length < HEADER_LENGTH) {
    throw new WireError(`a DNS message has a 12-byte header, this one has ${packet.length} bytes`, 0);
  }
  const reader = new WireReader(packet, 0);
  reader.u16();
  const flags = reader.u16();
  const questions = reader.u16();
  const answers = reader.u16();
  const authorities = reader.u16();
  const additionals = reader.u16();
  for (let i = 0; i < questions; i++) {
    reader.skipName('question name');
    reader.u16('question type');
    reader.u16('question class');
  }
  skipSection(reader, answers, ANSWER);
  skipSection(reader, authorities, AUTHORITY);
  let edns = false;
  let extendedRcode = 0;
  // parseMessage reads every record before it refuses a second OPT: so does this.
  let secondOpt: number | undefined;
  for (let i = 0; i < additionals; i++) {
    const at = reader.offset;
    reader.skipName(ADDITIONAL.owner);
    const type = reader.u16(ADDITIONAL.type);
    reader.u16(ADDITIONAL.class);
    const ttl = reader.u32(ADDITIONAL.ttl);
    const rdlength = rdlengthOf(reader, ADDITIONAL);
    if (type === RRType.OPT) {
      if (!isRootAt(packet, at)) throw new WireError(OPT_OWNER, at);
      if (edns) secondOpt ??= reader.offset;
      edns = true;
      if (secondOpt === undefined) extendedRcode = ttl >>> 24;
    }
    reader.offset += rdlength;
  }
  if (secondOpt !== undefined) throw new WireError('more than one OPT record', secondOpt);
  return {
    rcode: (extendedRcode << 4) | (flags & 0xf),
    tc: (flags & 0x0200) !== 0,
    ad: (flags & 0x0020) !== 0,
    edns,
  };
}

function skipSection(reader: WireReader, count: number, words: SectionWords): void {
  for (let i = 0; i < count; i++) {
    const at = reader.offset;
    reader.skipName(words.owner);
    const type = reader.u16(words.type);
    reader.u16(words.class);
    reader.u32(words.ttl);
    const rdlength = rdlengthOf(reader, words);
    reader.offset += rdlength;
    if (type === RRType.OPT) throw new WireError(words.misplacedOpt, at);
  }
}
