/**
 * libunbound's event callback (rcode, packet, security, why bogus) as the ub_result that
 * libunbound's other interfaces give (libworker_enter_result): the fields the backend maps
 * (rcode, packet, secure, bogus, whyBogus) at once, the others (the answer's RDATA, its TTL,
 * the CNAME chain's end, haveData, nxDomain) read from the packet only when asked.
 */
import { RRType, Rcode, WireReader, labelsEqual, parseMessage, type WireMessage } from '@dnscore/core/plugin';
import type { UnboundResultRaw } from './binding.js';

/** libunbound's `sec` of an event result. */
export const SEC_BOGUS = 1;
export const SEC_SECURE = 2;

class EventResult implements UnboundResultRaw {
  readonly secure: boolean;
  readonly bogus: boolean;
  #answer: { data: Uint8Array[]; ttl: number; canonName: string | null } | undefined;

  constructor(
    readonly qname: string,
    readonly qtype: number,
    readonly qclass: number,
    readonly rcode: number,
    readonly answerPacket: Uint8Array | null,
    sec: number,
    readonly whyBogus: string | null,
    readonly wasRateLimited: boolean,
  ) {
    this.secure = sec === SEC_SECURE;
    this.bogus = sec === SEC_BOGUS;
  }

  get data(): readonly Uint8Array[] {
    return this.#read().data;
  }
  get ttl(): number {
    return this.#read().ttl;
  }
  get canonName(): string | null {
    return this.#read().canonName;
  }
  get haveData(): boolean {
    return this.#read().data.length > 0;
  }
  get nxDomain(): boolean {
    return this.rcode === Rcode.NXDOMAIN;
  }

  #read(): { data: Uint8Array[]; ttl: number; canonName: string | null } {
    this.#answer ??= this.answerPacket
      ? answerOf(this.answerPacket, this.qtype)
      : { data: [], ttl: 0, canonName: null };
    return this.#answer;
  }
}

/** One result of the addon's callback. `rcode` not 0: libunbound failed the question (no packet). */
export function eventResult(
  qname: string,
  qtype: number,
  qclass: number,
  rcode: number,
  packet: Uint8Array | null,
  sec: number,
  whyBogus: string | null,
  rateLimited: boolean,
): UnboundResultRaw {
  const answer = rcode === 0 && packet && packet.length >= 12 ? packet : null;
  const code = answer ? answer[3]! & 0x0f : rcode;
  return new EventResult(qname, qtype, qclass, code, answer, sec, whyBogus, rateLimited);
}

/**
 * What libunbound's fill_res reads: the RRset of the question's type at the end of the
 * answer's CNAME chain (its RDATA), the chain's end when it is not the question's name, and
 * the TTL (the lowest of the answer section's for data, the message's lowest otherwise).
 */
function answerOf(packet: Uint8Array, qtype: number): { data: Uint8Array[]; ttl: number; canonName: string | null } {
  let message: WireMessage;
  try {
    message = parseMessage(packet);
  } catch {
    return { data: [], ttl: 0, canonName: null };
  }
  const question = message.questions[0];
  if (!question) return { data: [], ttl: 0, canonName: null };
  let owner = question.labels;
  let ownerName = question.name;
  for (let hops = 0; hops < message.answers.length && qtype !== RRType.CNAME; hops++) {
    const cname = message.answers.find((r) => r.type === RRType.CNAME && labelsEqual(r.labels, owner));
    if (!cname) break;
    const target = new WireReader(packet, cname.rdataOffset).name('CNAME target');
    owner = target.labels;
    ownerName = target.text;
  }
  const records = message.answers.filter((r) => r.type === qtype && labelsEqual(r.labels, owner));
  const chained = !labelsEqual(owner, question.labels);
  const canonName = chained ? `${ownerName.replace(/\.$/, '')}.` : null;
  const all = [...message.answers, ...message.authorities, ...message.additionals];
  if (records.length > 0) {
    const ttl = Math.min(...records.map((r) => r.ttl), ...message.answers.map((r) => r.ttl));
    return { data: records.map((r) => packet.slice(r.rdataOffset, r.rdataOffset + r.rdlength)), ttl, canonName };
  }
  return { data: [], ttl: all.length ? Math.min(...all.map((r) => negativeTtl(packet, r))) : 0, canonName };
}

/** A SOA's TTL for a negative answer is capped by its MINIMUM field (RFC 2308 section 5). */
function negativeTtl(packet: Uint8Array, record: WireMessage['answers'][number]): number {
  if (record.type !== RRType.SOA || record.rdlength < 20) return record.ttl;
  const end = record.rdataOffset + record.rdlength;
  const minimum =
    ((packet[end - 4]! << 24) | (packet[end - 3]! << 16) | (packet[end - 2]! << 8) | packet[end - 1]!) >>> 0;
  return Math.min(record.ttl, minimum);
}
