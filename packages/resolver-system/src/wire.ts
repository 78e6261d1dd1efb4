/**
 * The packets this resolver writes: a query (RFC 1035 section 4.1, with an EDNS0 OPT record,
 * RFC 6891) and the answer it makes from /etc/hosts. They are written from the query's wire
 * labels, because dns-packet cannot encode a label holding a dot or bytes that are not UTF-8;
 * answers are read with the core's framing layer (parseMessage).
 */
import {
  HEADER_LENGTH,
  MAX_LABEL_LENGTH,
  MAX_NAME_LENGTH,
  RRClass,
  RRType,
  wireLength,
  wireName,
  type DnsQuery,
  type Labels,
} from '@dnscore/core/plugin';

/**
 * A name in wire form (length octets, labels, the root's 0), one latin1 character per byte. A
 * query in flight holds its sent name so: a short string is a fifth of a Uint8Array (its
 * buffer and elements), and Buffer compares and searches it natively.
 */
export type WireName = string;

/**
 * Where a name is put together in wire form (here and by randomizeCase()): one buffer for every
 * name, written synchronously and read out as a string before it is used again.
 */
export const nameBuffer = Buffer.allocUnsafeSlow(MAX_NAME_LENGTH);

/**
 * The question's name in wire form. A name without escapes (makeQuery() writes none for
 * letters, digits, '-' and '_') is read from its text: its labels are never made.
 */
export function queryWireName(query: DnsQuery): WireName {
  const text = query.name;
  if (text === '.' || text.includes('\\') || text.length + 2 > MAX_NAME_LENGTH) return fromLabels(query);
  let n = 1;
  let lengthAt = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x2e) nameBuffer[n++] = c;
    else if (!closeLabel(lengthAt, n)) return fromLabels(query);
    else lengthAt = n++;
  }
  if (!closeLabel(lengthAt, n)) return fromLabels(query);
  nameBuffer[n++] = 0;
  return nameBuffer.toString('latin1', 0, n);
}

/** Writes the length octet of the label from `lengthAt` to `end`; false for an empty or too long one. */
function closeLabel(lengthAt: number, end: number): boolean {
  const length = end - lengthAt - 1;
  nameBuffer[lengthAt] = length;
  return length > 0 && length <= MAX_LABEL_LENGTH;
}

function fromLabels(query: DnsQuery): WireName {
  return Buffer.from(wireName(query.labels)).toString('latin1');
}

/** Header flag bits (RFC 1035 section 4.1.1, RFC 4035 section 3.2). */
export const Flag = { QR: 0x8000, AA: 0x0400, TC: 0x0200, RD: 0x0100, RA: 0x0080, AD: 0x0020, CD: 0x0010 } as const;

/** The DO bit of the OPT record's TTL field (RFC 3225). */
const DNSSEC_OK = 0x8000;

const OPT_LENGTH = 11;

export interface QueryWireOptions {
  readonly id: number;
  /** Recursion desired: a stub asks a recursive nameserver (default true). */
  readonly rd?: boolean;
  /** Set AD to ask for the AD bit in the answer (RFC 6840 section 5.7). */
  readonly ad?: boolean;
  /** DO: send the DNSSEC records (RFC 3225); only in an OPT record. */
  readonly dnssecOk?: boolean;
  /** CD: the recursive server hands back data that failed its own validation (RFC 4035 section 3.2.2). */
  readonly checkingDisabled?: boolean;
  /** EDNS0 UDP payload size; no OPT record when undefined. */
  readonly udpPayloadSize?: number | undefined;
  /** The query name as sent (0x20 case), in wire form, a latin1 character per byte; default queryWireName(query). */
  readonly name?: string | undefined;
}

export function encodeQuery(query: DnsQuery, options: QueryWireOptions): Uint8Array {
  const edns = options.udpPayloadSize !== undefined;
  const name = options.name ?? queryWireName(query);
  const packet = Buffer.alloc(HEADER_LENGTH + name.length + 4 + (edns ? OPT_LENGTH : 0));
  const flags =
    ((options.rd ?? true) ? Flag.RD : 0) | (options.ad ? Flag.AD : 0) | (options.checkingDisabled ? Flag.CD : 0);
  let offset = writeHeader(packet, options.id, flags, 1, 0, edns ? 1 : 0);
  packet.write(name, offset, 'latin1');
  offset = writeTypeAndClass(packet, offset + name.length - 1, query);
  if (edns) {
    packet[offset] = 0; // owner: the root
    packet.writeUInt16BE(RRType.OPT, offset + 1);
    packet.writeUInt16BE(options.udpPayloadSize, offset + 3); // CLASS carries the payload size
    packet.writeUInt32BE(options.dnssecOk ? DNSSEC_OK : 0, offset + 5); // extended rcode 0, version 0, DO
    packet.writeUInt16BE(0, offset + 9); // no options
  }
  return packet;
}

/** An authoritative NOERROR answer with one A or AAAA record per address (4 or 16 bytes each). */
export function encodeAddressAnswer(query: DnsQuery, addresses: readonly Uint8Array[], ttl: number): Uint8Array {
  const labels = query.labels;
  const nameLength = wireLength(labels);
  const size = HEADER_LENGTH + nameLength + 4 + addresses.reduce((sum, a) => sum + 12 + a.length, 0);
  const packet = Buffer.alloc(size);
  let offset = writeHeader(packet, 0, Flag.QR | Flag.AA | Flag.RD | Flag.RA, 1, addresses.length, 0);
  offset = writeQuestion(packet, offset, labels, query);
  const type = query.type === RRType.AAAA ? RRType.AAAA : RRType.A;
  for (const address of addresses) {
    packet.writeUInt16BE(0xc000 | HEADER_LENGTH, offset); // owner: pointer to the question name
    packet.writeUInt16BE(type, offset + 2);
    packet.writeUInt16BE(RRClass.IN, offset + 4);
    packet.writeUInt32BE(ttl, offset + 6);
    packet.writeUInt16BE(address.length, offset + 10);
    packet.set(address, offset + 12);
    offset += 12 + address.length;
  }
  return packet;
}

function writeHeader(packet: Buffer, id: number, flags: number, qd: number, an: number, ar: number): number {
  packet.writeUInt16BE(id, 0);
  packet.writeUInt16BE(flags, 2);
  packet.writeUInt16BE(qd, 4);
  packet.writeUInt16BE(an, 6);
  packet.writeUInt16BE(0, 8);
  packet.writeUInt16BE(ar, 10);
  return HEADER_LENGTH;
}

/** The question: `labels` (the query's, or as sent with 0x20 case), then the query's type and class. */
function writeQuestion(packet: Buffer, start: number, labels: Labels, query: DnsQuery): number {
  let offset = start;
  for (const label of labels) {
    packet[offset] = label.length;
    packet.set(label, offset + 1);
    offset += 1 + label.length;
  }
  return writeTypeAndClass(packet, offset, query);
}

/** The root label at `offset` (the name's last octet), then the query's type and class. */
function writeTypeAndClass(packet: Buffer, offset: number, query: DnsQuery): number {
  packet[offset] = 0;
  packet.writeUInt16BE(query.type, offset + 1);
  packet.writeUInt16BE(query.class, offset + 3);
  return offset + 5;
}
