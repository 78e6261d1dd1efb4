/**
 * The packets of the hostile test server (hostile-server.ts): the behaviours it can play and
 * the bytes each one sends. Usable on their own, e.g. by fuzz tests that build answers.
 */
import dnsPacket from 'dns-packet';

export type Behaviour =
  /** The zone's answer: records, NODATA or NXDOMAIN (with the SOA when the zone has one). */
  | 'answer'
  /** Nothing at all. Over TCP the connection stays open. */
  | 'drop'
  | 'servfail'
  | 'refused'
  | 'notimp'
  /** FORMERR without an OPT record, as a server that does not know EDNS answers. */
  | 'formerr'
  /** TC set, question only: "ask me over TCP". */
  | 'truncate'
  /** The right answer, sent from another UDP port of the same address. */
  | 'other-port'
  /** The right answer, sent from 127.0.0.2 (IPv4 servers only). */
  | 'other-address'
  /** The right answer with the ID plus one. */
  | 'wrong-id'
  /** The right answer for another name ("evil." prefixed to the question). */
  | 'wrong-question'
  /** The right answer with another type in the question. */
  | 'wrong-type'
  /** The right answer with the question name's letters in the other case (must be accepted). */
  | 'case-changed'
  /** The right answer with no question (QDCOUNT 0). */
  | 'no-question'
  /** The right answer with QR clear. */
  | 'not-response'
  /** Bytes that are no DNS message (their first two bytes are never the query's ID). */
  | 'garbage'
  /** Five bytes. */
  | 'short'
  /** Our ID and question, then an answer record cut in the middle. */
  | 'malformed'
  /** Our ID and question, then an answer record whose owner is a pointer to itself. */
  | 'compression-loop'
  /** The right answer padded with 150 extra A records (about 2.5 KB), TC clear. */
  | 'oversized'
  /** The right answer plus records of other types and names in the answer section. */
  | 'other-records'
  /** The answer with the AD bit set. */
  | 'ad'
  /** TCP only: close the connection. */
  | 'close'
  /** Wait, then play a behaviour (not named `then`: an object with a `then` is a thenable to await). */
  | { readonly delayMs: number; readonly play: Behaviour }
  | { readonly raw: (query: ReceivedQuery) => Uint8Array };

export type Plan = readonly Behaviour[] | ((query: ReceivedQuery) => readonly Behaviour[]);

export interface ReceivedQuery {
  readonly transport: 'udp' | 'tcp';
  readonly id: number;
  /** The question name as sent (case kept), without the trailing dot. */
  readonly name: string;
  readonly type: string;
  readonly class: string;
  readonly rd: boolean;
  readonly ad: boolean;
  /** The OPT record's payload size; undefined when the query had no OPT record. */
  readonly udpPayloadSize: number | undefined;
  /** Where the query came from (the resolver's source address and port). */
  readonly from: { readonly address: string; readonly port: number };
  readonly packet: Buffer;
  /** 1 for the first query of this name and type, 2 for the second, ... */
  readonly nth: number;
}

export interface HostileZone {
  /** Records by owner name (case-insensitive, no trailing dot). */
  readonly records: Readonly<Record<string, readonly dnsPacket.Answer[]>>;
  /** Put in the authority section of NXDOMAIN and NODATA answers. */
  readonly soa?: dnsPacket.Answer;
}

const GARBAGE = Buffer.from('this is not a DNS message, just bytes on the wire!', 'ascii');

/** The bytes a behaviour sends in answer to a query. */
export function packetFor(behaviour: Behaviour, query: ReceivedQuery, zone: HostileZone = { records: {} }): Uint8Array {
  if (typeof behaviour === 'object') {
    if ('raw' in behaviour) return behaviour.raw(query);
    throw new Error('delays are played by the server');
  }
  switch (behaviour) {
    case 'garbage': {
      const junk = Buffer.from(GARBAGE);
      junk.writeUInt16BE(~query.id & 0xffff, 0);
      return junk;
    }
    case 'short':
      return Buffer.from([query.id >> 8, query.id & 0xff, 0x81, 0x80, 0x00]);
    case 'malformed':
      return cutRecord(query);
    case 'compression-loop':
      return compressionLoop(query);
    default:
      return encodeAnswer(behaviour, query, zone);
  }
}

/** The OPT record of answers to EDNS queries. */
const OPT: dnsPacket.Answer = {
  type: 'OPT',
  name: '.',
  udpPayloadSize: 1232,
  extendedRcode: 0,
  ednsVersion: 0,
  flags: 0,
  flag_do: false,
  options: [],
};

const RCODES: Partial<Record<Behaviour & string, number>> = { servfail: 2, refused: 5, notimp: 4, formerr: 1 };

function encodeAnswer(behaviour: Behaviour & string, query: ReceivedQuery, zone: HostileZone): Buffer {
  const question: dnsPacket.Question = {
    name: query.name,
    type: query.type as dnsPacket.RecordType,
    class: query.class as dnsPacket.RecordClass,
  };
  let { rcode, answers, authorities } = lookup(query, zone);
  const rcodeOverride = RCODES[behaviour];
  if (rcodeOverride !== undefined || behaviour === 'truncate') {
    rcode = rcodeOverride ?? 0;
    answers = [];
    authorities = [];
  }
  let flags = dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode;
  if (behaviour === 'truncate') flags |= dnsPacket.TRUNCATED_RESPONSE;
  if (behaviour === 'ad') flags |= dnsPacket.AUTHENTIC_DATA;
  let id = query.id;
  if (behaviour === 'wrong-id') id = (id + 1) & 0xffff;
  if (behaviour === 'wrong-question') question.name = `evil.${query.name}`;
  if (behaviour === 'wrong-type') question.type = query.type === 'AAAA' ? 'A' : 'AAAA';
  if (behaviour === 'case-changed') question.name = swapCase(query.name);
  if (behaviour === 'oversized') {
    answers = [...answers, ...Array.from({ length: 150 }, (_, i) => a(query.name, `198.51.100.${i % 250}`))];
  }
  if (behaviour === 'other-records') {
    answers = [
      { type: 'TXT', name: query.name, ttl: 300, data: ['not the asked type'] },
      { type: 'MX', name: query.name, ttl: 300, data: { preference: 10, exchange: 'mail.example' } },
      a(`elsewhere.${query.name}`, '203.0.113.66'),
      ...answers,
    ];
  }
  const withOpt = query.udpPayloadSize !== undefined && behaviour !== 'formerr';
  const packet = Buffer.from(
    dnsPacket.encode({
      type: 'response',
      id,
      flags,
      questions: behaviour === 'no-question' ? [] : [question],
      answers,
      authorities,
      additionals: withOpt ? [OPT] : [],
    }),
  );
  if (behaviour === 'not-response') packet[2] = packet[2]! & 0x7f;
  return packet;
}

function lookup(
  query: ReceivedQuery,
  zone: HostileZone,
): { rcode: number; answers: dnsPacket.Answer[]; authorities: dnsPacket.Answer[] } {
  const answers: dnsPacket.Answer[] = [];
  let name = query.name.toLowerCase();
  for (let hops = 0; hops < 16; hops++) {
    const records = zone.records[name];
    if (!records) {
      if (answers.length > 0) break;
      return { rcode: 3, answers, authorities: zone.soa ? [zone.soa] : [] };
    }
    const matching = records.filter((r) => r.type === query.type);
    if (matching.length > 0) return { rcode: 0, answers: [...answers, ...matching], authorities: [] };
    const cname = records.find((r) => r.type === 'CNAME');
    if (!cname || query.type === 'CNAME') break;
    answers.push(cname);
    name = String((cname as { data: unknown }).data).toLowerCase();
  }
  return { rcode: 0, answers, authorities: answers.length === 0 && zone.soa ? [zone.soa] : [] };
}

/** Header and question of the query as a response with ANCOUNT 1, then half a record. */
function cutRecord(query: ReceivedQuery): Buffer {
  const head = questionOnly(query, 1);
  return Buffer.concat([head, Buffer.from([0xc0, 0x0c, 0x00, 0x01, 0x00])]);
}

/** A record whose owner name is a compression pointer to its own offset. */
function compressionLoop(query: ReceivedQuery): Buffer {
  const head = questionOnly(query, 1);
  const self = head.length;
  const record = Buffer.from([0xc0 | (self >> 8), self & 0xff, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]);
  return Buffer.concat([head, record]);
}

/** The query turned into a response header and its question, with `ancount` claimed answers. */
function questionOnly(query: ReceivedQuery, ancount: number): Buffer {
  const packet = Buffer.from(query.packet);
  const questionEnd = 12 + nameLength(packet, 12) + 4;
  const head = Buffer.from(packet.subarray(0, questionEnd));
  head.writeUInt16BE(0x8180, 2);
  head.writeUInt16BE(ancount, 6);
  head.writeUInt16BE(0, 8);
  head.writeUInt16BE(0, 10);
  return head;
}

function nameLength(packet: Buffer, offset: number): number {
  let at = offset;
  while (packet[at]! !== 0) at += packet[at]! + 1;
  return at - offset + 1;
}

function a(name: string, address: string): dnsPacket.Answer {
  return { type: 'A', name, ttl: 300, data: address };
}

function swapCase(text: string): string {
  return text.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}
