/**
 * The answer packet handed to the core: the question asked, every message's answer records in
 * order (a chain this backend followed itself across messages: an authoritative upstream does
 * not follow a CNAME into another zone), the last message's authority and additional records
 * and rcode. The DNSSEC records (RRSIG, NSEC, NSEC3) are left out unless asked for: they were
 * checked here, and the core would only parse them again on every cache hit. Names are written
 * uncompressed; the records' RDATA is already uncompressed (the engine's records).
 */
import { HEADER_LENGTH, wireLength, type DnsQuery } from '@dnscore/core/plugin';
import type { Fetched } from './upstream.js';
import { octetText } from './octet-text.js';
import { ownerOf, type Rr } from './validate/index.js';

const QR_RD_RA = 0x8180;

/** RRSIG, NSEC, NSEC3: the proofs, checked here and left out of the packet the core reads. */
const PROOF_TYPES: ReadonlySet<number> = new Set([46, 47, 50]);

/** `synthesized`: CNAMEs the messages did not carry (from a DNAME), put after their answers. */
export function joinAnswers(
  query: DnsQuery,
  messages: readonly Fetched[],
  synthesized: readonly Rr[] = [],
): Uint8Array {
  const last = messages[messages.length - 1]!;
  const seen = new Set<string>();
  const answers: Rr[] = [];
  const kept = (record: Rr): boolean => record.rrtype === query.type || !PROOF_TYPES.has(record.rrtype);
  for (const message of messages) {
    for (const record of message.answer.filter(kept)) {
      // Type, RDATA length, then exactly that many characters of RDATA, then the owner: one
      // reading only, whatever the name holds.
      const key = `${record.rrtype}/${record.rdata.length}/${octetText(record.rdata)}${record.name.toLowerCase()}`;
      if (seen.has(key)) continue;
      seen.add(key);
      answers.push(record);
    }
  }
  answers.push(...synthesized);
  const authority = last.authority.filter(kept);
  const additional = last.additional.filter(kept);
  const records = [...answers, ...authority, ...additional];
  // Each owner's labels, as the message was read (parsing a name would be most of this function's cost).
  const owners = records.map(ownerOf);
  const asked = query.labels; // made on each read for a plain name: read once
  let size = HEADER_LENGTH + wireLength(asked) + 4;
  records.forEach((r, i) => {
    size += wireLength(owners[i]!) + 10 + r.rdata.length;
  });
  // A plain typed array written with DataView: Buffer's allocator and its checked writers are
  // JavaScript that runs cold on every answer.
  const packet = new Uint8Array(size);
  const view = new DataView(packet.buffer);
  view.setUint16(2, QR_RD_RA | (last.rcode & 0x0f));
  view.setUint16(4, 1);
  view.setUint16(6, answers.length);
  view.setUint16(8, authority.length);
  view.setUint16(10, additional.length);
  let offset = writeName(packet, HEADER_LENGTH, asked);
  view.setUint16(offset, query.type);
  view.setUint16(offset + 2, query.class);
  offset += 4;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    offset = writeName(packet, offset, owners[i]!);
    view.setUint16(offset, record.rrtype);
    view.setUint16(offset + 2, record.class);
    view.setUint32(offset + 4, record.ttl >>> 0);
    view.setUint16(offset + 8, record.rdata.length);
    packet.set(record.rdata, offset + 10);
    offset += 10 + record.rdata.length;
  }
  return packet;
}

function writeName(packet: Uint8Array, start: number, labels: readonly Uint8Array[]): number {
  let offset = start;
  for (const label of labels) {
    packet[offset] = label.length;
    packet.set(label, offset + 1);
    offset += 1 + label.length;
  }
  packet[offset] = 0;
  return offset + 1;
}
