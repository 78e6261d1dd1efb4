/**
 * Whether a received message answers our query (RFC 5452 section 9.1): the same ID, a
 * response to a standard query, exactly one question equal to ours (wire labels compared
 * ASCII case-insensitively, same type and class), and well formed throughout. The source
 * address and port are checked by the transport before this.
 */
import {
  HEADER_LENGTH,
  WireError,
  WireReader,
  labelsEqual,
  scanMessage,
  type DnsQuery,
  type Labels,
  type MessageSummary,
} from '@dnscore/core/plugin';
import { restoreQuestionCase } from './case-randomization.js';
import { Flag, type WireName } from './wire.js';

export type Verdict =
  /**
   * `packet`: the answer with the question's name back in the case asked (a copy when it was
   * randomized), checked whole; `summary`: what the transport needs of its header.
   */
  | { readonly kind: 'accept'; readonly packet: Uint8Array; readonly summary: MessageSummary }
  /** Not a DNS response at all: too short, QR clear, another opcode. */
  | { readonly kind: 'garbage' }
  | { readonly kind: 'wrong-id' }
  /** Our ID, but no question, several, or another one. */
  | { readonly kind: 'wrong-question' }
  /** Our ID and question, but not the case we sent (0x20): a forgery, or a server that does not echo case. */
  | { readonly kind: 'case-mismatch' }
  /** Our ID, but the question or a later section cannot be read. */
  | { readonly kind: 'malformed'; readonly error: WireError }
  /**
   * Our ID and question with TC set, but the records after the question cannot be read: a server
   * that cut the message at the size limit without fixing the counts (RFC 2181 section 9 lets a
   * truncated message hold partial data). Asked again over TCP, as for any TC answer.
   */
  | { readonly kind: 'truncated'; readonly error: WireError };

const GARBAGE: Verdict = { kind: 'garbage' };
const WRONG_ID: Verdict = { kind: 'wrong-id' };
const WRONG_QUESTION: Verdict = { kind: 'wrong-question' };
const CASE_MISMATCH: Verdict = { kind: 'case-mismatch' };

/**
 * `sent`: the name as sent in randomized case, in wire form (randomizeCase), which the answer
 * must echo byte for byte. An accepted answer is checked whole but not built: the core parses
 * the packet it is handed.
 */
export function inspectResponse(packet: Uint8Array, id: number, query: DnsQuery, sent?: WireName): Verdict {
  if (packet.length < HEADER_LENGTH) return GARBAGE;
  if (((packet[0]! << 8) | packet[1]!) !== id) return WRONG_ID;
  const flags = (packet[2]! << 8) | packet[3]!;
  if ((flags & Flag.QR) === 0 || ((flags >>> 11) & 0xf) !== 0) return GARBAGE;
  if (((packet[4]! << 8) | packet[5]!) !== 1) return WRONG_QUESTION;
  const end = HEADER_LENGTH + (sent?.length ?? 0);
  if (sent !== undefined && packet.length >= end + 4 && bytesAt(packet, HEADER_LENGTH, sent)) {
    // The usual answer: the question is the name we sent, byte for byte (so ours, in our case),
    // checked in place without making its labels.
    const type = (packet[end]! << 8) | packet[end + 1]!;
    const rrclass = (packet[end + 2]! << 8) | packet[end + 3]!;
    if (type !== query.type || rrclass !== query.class) return WRONG_QUESTION;
    return accepted(restoreQuestionCase(packet, sent, query));
  }
  const reader = new WireReader(packet, HEADER_LENGTH);
  try {
    const labels = reader.labels('question name');
    const type = reader.u16('question type');
    const rrclass = reader.u16('question class');
    if (type !== query.type || rrclass !== query.class) return WRONG_QUESTION;
    const asked = query.labels;
    if (!labelsEqual(labels, asked)) return WRONG_QUESTION;
    if (sent && !sameWireName(labels, sent)) return CASE_MISMATCH;
    return accepted(sent ? restoreQuestionCase(packet, sent, query) : packet);
  } catch (error) {
    if (error instanceof WireError) return { kind: 'malformed', error };
    throw error;
  }
}

/** Checked whole (scanMessage throws WireError on a malformed message); the question was checked before. */
function accepted(packet: Uint8Array): Verdict {
  try {
    return { kind: 'accept', packet, summary: scanMessage(packet) };
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    return (packet[2]! << 8) & Flag.TC ? { kind: 'truncated', error } : { kind: 'malformed', error };
  }
}

/** True when `packet` holds `name` at `offset`. */
function bytesAt(packet: Uint8Array, offset: number, name: WireName): boolean {
  for (let i = 0; i < name.length; i++) if (packet[offset + i] !== name.charCodeAt(i)) return false;
  return true;
}

/** True when `labels` are the wire-form name `wire`, byte for byte (case included). */
function sameWireName(labels: Labels, wire: WireName): boolean {
  let offset = 0;
  for (const label of labels) {
    if (wire.charCodeAt(offset) !== label.length) return false;
    for (let j = 0; j < label.length; j++) if (wire.charCodeAt(offset + 1 + j) !== label[j]) return false;
    offset += 1 + label.length;
  }
  return offset === wire.length - 1 && wire.charCodeAt(offset) === 0;
}
