/**
 * What an on-path attacker does to a signed answer, one function per attack, for the rewrite
 * of ./dns-proxy.ts. Each returns a new packet; the signatures no longer match what is in it
 * (or are gone), which a validator must see.
 */
import { parseMessage } from '@dnscore/core/plugin';
import * as dnsPacket from 'dns-packet';
import type { ProxiedQuery } from './dns-proxy.js';

const CNAME = 5;

/** One octet appended to the first CNAME's RDATA (RDLENGTH grows with it): issue 17's attack. */
export function appendOctetToCname(answer: Uint8Array): Uint8Array {
  const message = parseMessage(answer);
  const cname = message.answers.find((r) => r.type === CNAME);
  if (!cname) throw new Error('no CNAME in the answer to append to');
  const end = cname.rdataOffset + cname.rdlength;
  const out = new Uint8Array(answer.length + 1);
  out.set(answer.subarray(0, end), 0);
  out[end] = 0;
  out.set(answer.subarray(end), end + 1);
  const rdlength = cname.rdlength + 1;
  out[cname.rdataOffset - 2] = rdlength >> 8;
  out[cname.rdataOffset - 1] = rdlength & 0xff;
  return out;
}

/** Every RRSIG taken out of the answer and authority sections. */
export function stripRrsigs(answer: Uint8Array): Uint8Array {
  const packet = dnsPacket.decode(Buffer.from(answer));
  packet.answers = (packet.answers ?? []).filter((r) => r.type !== 'RRSIG');
  packet.authorities = (packet.authorities ?? []).filter((r) => r.type !== 'RRSIG');
  return dnsPacket.encode(packet);
}

/** Every A record's address replaced with `address` (the RRSIGs left as they were). */
export function forgeAddresses(answer: Uint8Array, address: string): Uint8Array {
  const packet = dnsPacket.decode(Buffer.from(answer));
  packet.answers = (packet.answers ?? []).map((r) => (r.type === 'A' ? { ...r, data: address } : r));
  return dnsPacket.encode(packet);
}

/** The AD bit (RFC 4035 section 3.2.3) set: "I validated this", from whoever answers. */
export function setAuthenticData(answer: Uint8Array): Uint8Array {
  const out = Uint8Array.from(answer);
  out[3] = out[3]! | 0x20;
  return out;
}

/** The DS RRset and its RRSIG removed, the denial records too: an empty NOERROR instead. */
export function dropDs(answer: Uint8Array): Uint8Array {
  const packet = dnsPacket.decode(Buffer.from(answer));
  packet.answers = [];
  packet.authorities = (packet.authorities ?? []).filter((r) => r.type === 'SOA');
  return dnsPacket.encode(packet);
}

/** A made-up answer to `query`: `address` as its A record, authoritative, no signatures. */
export function forgedAnswer(query: ProxiedQuery, address: string): Uint8Array {
  const asked = dnsPacket.decode(Buffer.from(query.packet));
  return dnsPacket.encode({
    id: asked.id ?? 0,
    type: 'response',
    flags: dnsPacket.AUTHORITATIVE_ANSWER | ((asked.flags ?? 0) & dnsPacket.RECURSION_DESIRED),
    questions: asked.questions ?? [],
    answers: query.type === 1 ? [{ name: query.name, type: 'A', ttl: 300, class: 'IN', data: address }] : [],
  });
}

/** Every additional-section A record's address replaced with `address` (their RRSIGs left as they were). */
export function forgeAdditionalAddresses(answer: Uint8Array, address: string): Uint8Array {
  const packet = dnsPacket.decode(Buffer.from(answer));
  packet.additionals = (packet.additionals ?? []).map((r) => (r.type === 'A' ? { ...r, data: address } : r));
  return dnsPacket.encode(packet);
}

/**
 * The additional section's A records and their RRSIGs replaced with unsigned A records
 * (`name` -> address), as an attacker who cannot sign would inject them; OPT is kept.
 */
export function injectUnsignedAdditional(answer: Uint8Array, records: Readonly<Record<string, string>>): Uint8Array {
  const packet = dnsPacket.decode(Buffer.from(answer));
  const kept = (packet.additionals ?? []).filter(
    (r) => r.type !== 'A' && !(r.type === 'RRSIG' && (r.data as { typeCovered: string }).typeCovered === 'A'),
  );
  const injected = Object.entries(records).map(
    ([name, data]) => ({ name, type: 'A', ttl: 3600, class: 'IN', data }) as const,
  );
  packet.additionals = [...kept, ...injected];
  return dnsPacket.encode(packet);
}

const DNAME = 39;

/**
 * The answer as a sender that compresses DNAME RDATA writes it (RFC 6672 section 2.5 says it
 * must not; RFC 3597 section 4 has receivers decompress it anyway): the first DNAME's target
 * ends in a compression pointer to the question name where they share a suffix. Nothing is
 * forged, so the signatures still hold. The packet is first written again without compression,
 * so no later pointer can move with the shorter RDATA; its record names in lowercase, the case of
 * the zones of the tests, not the random case (0x20) of the question they pointed into.
 */
export function compressDnameTarget(answer: Uint8Array): Uint8Array {
  const decoded = dnsPacket.decode(Buffer.from(answer));
  for (const section of [decoded.answers, decoded.authorities, decoded.additionals]) {
    for (const record of section ?? []) lowerNames(record);
  }
  const plain = new Uint8Array(dnsPacket.encode(decoded));
  const message = parseMessage(plain);
  const dname = message.answers.find((r) => r.type === DNAME);
  const question = message.questions[0];
  if (!dname || !question) throw new Error('no DNAME answer to compress');
  const target = labelsAt(plain, dname.rdataOffset);
  const asked = question.labels.map((l) => Buffer.from(l).toString('latin1').toLowerCase());
  // The longest suffix of the target that is a suffix of the question name (offset 12).
  for (let keep = 0; keep < target.length; keep++) {
    const suffix = target.slice(keep).map((l) => l.toLowerCase());
    const at = asked.length - suffix.length;
    if (at < 0 || suffix.some((label, i) => label !== asked[at + i])) continue;
    let pointer = 12;
    for (let i = 0; i < at; i++) pointer += 1 + asked[i]!.length;
    const head = target.slice(0, keep).map((l) => Buffer.concat([Uint8Array.of(l.length), Buffer.from(l, 'latin1')]));
    const rdata = Buffer.concat([...head, Uint8Array.of(0xc0 | (pointer >> 8), pointer & 0xff)]);
    const end = dname.rdataOffset + dname.rdlength;
    const out = Buffer.concat([plain.subarray(0, dname.rdataOffset), rdata, plain.subarray(end)]);
    out.writeUInt16BE(rdata.length, dname.rdataOffset - 2);
    return out;
  }
  throw new Error('the DNAME target shares no suffix with the question name');
}

/** The owner, and the names in a CNAME's, DNAME's or RRSIG's RDATA, in lowercase. */
function lowerNames(record: dnsPacket.Answer): void {
  record.name = record.name.toLowerCase();
  if (record.type === 'CNAME' || record.type === 'DNAME') record.data = record.data.toLowerCase();
  if (record.type === 'RRSIG') record.data.signersName = record.data.signersName.toLowerCase();
}

/** The labels of an uncompressed name at `offset`. */
function labelsAt(packet: Uint8Array, offset: number): string[] {
  const labels: string[] = [];
  for (let at = offset; packet[at]! > 0; at += 1 + packet[at]!) {
    labels.push(Buffer.from(packet.subarray(at + 1, at + 1 + packet[at]!)).toString('latin1'));
  }
  return labels;
}
