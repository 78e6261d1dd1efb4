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

function readSection(reader: WireReader, count: number, section: string): WireRecord[] {
  const records: WireRecord[] = [];
  for (let i = 0; i < count; i++) {
    const name = reader.name(`${section} record owner`);
    const type = reader.u16(`${section} record type`);
    const rrclass = reader.u16(`${section} record class`);
    const ttl = reader.u32(`${section} record TTL`);
    const rdlength = reader.u16(`${section} record RDLENGTH`);
    const rdataOffset = reader.offset;
    if (rdlength > reader.remaining) {
      throw new WireError(`${section} record RDATA of ${rdlength} bytes runs past the end of the packet`, rdataOffset);
    }
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
