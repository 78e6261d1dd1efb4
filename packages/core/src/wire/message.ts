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
  const counts = [reader.u16(), reader.u16(), reader.u16(), reader.u16()] as const;

  const questions: WireQuestion[] = [];
  for (let i = 0; i < counts[0]; i++) {
    const name = reader.name('question name');
    questions.push({
      name: name.text,
      labels: name.labels,
      type: reader.u16('question type'),
      class: reader.u16('question class'),
    });
  }
  const answers = readSection(reader, counts[1], 'answer');
  const authorities = readSection(reader, counts[2], 'authority');
  const additionalsWithOpt = readSection(reader, counts[3], 'additional');

  let extendedRcode = 0;
  let edns: WireEdns | undefined;
  const additionals: WireRecord[] = [];
  for (const record of additionalsWithOpt) {
    if (record.type !== RRType.OPT) {
      additionals.push(record);
      continue;
    }
    if (edns) throw new WireError('more than one OPT record', record.rdataOffset);
    // OPT reuses CLASS as the payload size and TTL as extended rcode, version and flags.
    extendedRcode = record.ttl >>> 24;
    edns = { udpPayloadSize: record.class, version: (record.ttl >>> 16) & 0xff, dnssecOk: (record.ttl & 0x8000) !== 0 };
  }

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
    rcode: (extendedRcode << 4) | (flags & 0xf),
  };
  const message: WireMessage = { packet, header, questions, answers, authorities, additionals };
  return edns ? { ...message, edns } : message;
}

/** What a check of one section says where it fails: made once, not per record read. */
interface SectionWords {
  readonly owner: string;
  readonly type: string;
  readonly class: string;
  readonly ttl: string;
  readonly rdlength: string;
  readonly rdataPast: string;
}

function sectionWords(section: string): SectionWords {
  return {
    owner: `${section} record owner`,
    type: `${section} record type`,
    class: `${section} record class`,
    ttl: `${section} record TTL`,
    rdlength: `${section} record RDLENGTH`,
    rdataPast: `${section} record RDATA of %d bytes runs past the end of the packet`,
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

function readSection(reader: WireReader, count: number, section: string): WireRecord[] {
  const words = section === 'answer' ? ANSWER : section === 'authority' ? AUTHORITY : ADDITIONAL;
  const records: WireRecord[] = [];
  for (let i = 0; i < count; i++) {
    const name = reader.name(words.owner);
    const type = reader.u16(words.type);
    const rrclass = reader.u16(words.class);
    const ttl = reader.u32(words.ttl);
    const rdlength = rdlengthOf(reader, words);
    const rdataOffset = reader.offset;
    reader.offset += rdlength;
    // RFC 2181 section 8: a TTL with the top bit set is treated as zero.
    records.push({
      name: name.text,
      labels: name.labels,
      type,
      class: rrclass,
      ttl: ttl > 0x7fffffff ? 0 : ttl,
      rdataOffset,
      rdlength,
    });
  }
  return records;
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
    reader.skipName(ADDITIONAL.owner);
    const type = reader.u16(ADDITIONAL.type);
    reader.u16(ADDITIONAL.class);
    const ttl = reader.u32(ADDITIONAL.ttl);
    const rdlength = rdlengthOf(reader, ADDITIONAL);
    if (type === RRType.OPT) {
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
    reader.skipName(words.owner);
    reader.u16(words.type);
    reader.u16(words.class);
    reader.u32(words.ttl);
    const rdlength = rdlengthOf(reader, words);
    reader.offset += rdlength;
  }
}
