/**
 * A hostile upstream for the zone-cut bound: below its zone (`deep.example`), every name is a
 * signed zone cut, however deep. A name's DS is signed by its parent, its DNSKEY RRset by
 * itself, and its A record (192.0.2.1) by itself, all with real signatures: one Ed25519 key for
 * every zone, each DS digest covering its own owner name, so every cut is proven on its own and
 * a validator walks cut after cut until something stops it. UDP on 127.0.0.1; it counts the
 * questions it gets by type. Anything outside its zone is REFUSED.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { parseName, type Labels } from '@dnscore/core/plugin';
import { freePort } from '../../../../test/support/ports.js';
import { nameWire } from '../../src/validate/canonical-name.js';
import { dsDigest, type Rr } from '../../src/validate/index.js';
import { ed25519Key, signRrset } from '../validate/support/signer.js';

const A = 1;
const DS = 43;
const DNSKEY = 48;
const TTL = 3600;

export interface DeepCutsServer {
  /** "127.0.0.1:port" */
  readonly endpoint: string;
  readonly zone: string;
  /** The trust anchor: the zone's DNSKEY as text. */
  readonly anchor: string;
  /** Questions received, by type (A, DS, DNSKEY, ...), and by "type name". */
  readonly asked: Map<number, number>;
  readonly names: string[];
  close(): Promise<void>;
}

/** "l3.l2.l1.<zone>": the name `depth` signed zone cuts below the zone. */
export function deepName(depth: number, zone = 'deep.example'): string {
  const labels: string[] = [];
  for (let i = depth; i >= 1; i--) labels.push(`l${i}`);
  return [...labels, zone].join('.');
}

export async function startDeepCuts(zone = 'deep.example'): Promise<DeepCutsServer> {
  const key = ed25519Key(zone);
  const apex = parseName(zone);
  const port = await freePort();
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () => resolve());
  });
  const server: DeepCutsServer = {
    endpoint: `127.0.0.1:${port}`,
    zone,
    anchor: `${zone}. IN DNSKEY 257 3 15 ${Buffer.from(key.dnskey.rdata.subarray(4)).toString('base64')}`,
    asked: new Map(),
    names: [],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  const dnskeyOf = (name: string): Rr => ({ ...key.dnskey, name });

  /** The answer records for `labels`/`type`, signed; undefined outside the zone (REFUSED). */
  const answer = (labels: Labels, type: number): Rr[] | undefined => {
    if (!isAtOrBelow(labels, apex)) return undefined;
    const name = text(labels);
    const signed = (records: Rr[], signer: string) => [...records, signRrset(records, signer, key)];
    if (type === DNSKEY) return signed([dnskeyOf(name)], name);
    if (type === DS && labels.length > apex.length) {
      const digest = dsDigest(labels, key.dnskey.rdata, 2)!;
      const rdata = Uint8Array.of(key.tag >> 8, key.tag & 0xff, 15, 2, ...digest);
      return signed([{ name, rrtype: DS, class: 1, ttl: TTL, rdata }], text(labels.slice(1)));
    }
    if (type === A) return signed([{ name, rrtype: A, class: 1, ttl: TTL, rdata: Uint8Array.of(192, 0, 2, 1) }], name);
    return [];
  };

  socket.on('message', (query: Buffer, from: RemoteInfo) => {
    const question = readQuestion(query);
    if (!question) return;
    server.asked.set(question.type, (server.asked.get(question.type) ?? 0) + 1);
    server.names.push(`${question.type} ${text(question.labels)}`);
    const records = answer(question.labels, question.type);
    socket.send(response(query, question.end, records), from.port, from.address);
  });
  return server;
}

/** The question of a query (no compression in a question); undefined when it cannot be read. */
function readQuestion(query: Buffer): { labels: Labels; type: number; end: number } | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  const labels: Uint8Array[] = [];
  let offset = 12;
  while (offset < query.length && query[offset] !== 0) {
    const length = query[offset]!;
    if (length > 63) return undefined;
    labels.push(Uint8Array.from(query.subarray(offset + 1, offset + 1 + length)).map(lower));
    offset += length + 1;
  }
  if (offset + 5 > query.length) return undefined;
  return { labels, type: query.readUInt16BE(offset + 1), end: offset + 5 };
}

/** The answer: ID, RD and CD echoed, the question as asked (its 0x20 case), the records; REFUSED without records. */
function response(query: Buffer, questionEnd: number, records: readonly Rr[] | undefined): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  const flags = 0x8400 | (query.readUInt16BE(2) & 0x0110) | (records === undefined ? 5 : 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records?.length ?? 0, 6);
  const parts: Uint8Array[] = [header, query.subarray(12, questionEnd)];
  for (const record of records ?? []) {
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(record.rrtype, 0);
    fixed.writeUInt16BE(record.class, 2);
    fixed.writeUInt32BE(record.ttl, 4);
    fixed.writeUInt16BE(record.rdata.length, 8);
    parts.push(nameWire(parseName(record.name)), fixed, record.rdata);
  }
  return Buffer.concat(parts);
}

function isAtOrBelow(labels: Labels, apex: Labels): boolean {
  if (labels.length < apex.length) return false;
  const offset = labels.length - apex.length;
  return apex.every((label, i) => Buffer.compare(label, labels[offset + i]!) === 0);
}

function text(labels: Labels): string {
  return labels.map((label) => Buffer.from(label).toString('latin1')).join('.');
}

function lower(octet: number): number {
  return octet >= 0x41 && octet <= 0x5a ? octet + 32 : octet;
}
