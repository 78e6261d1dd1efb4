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
import { restoreQuestionCase, sameCase } from './case-randomization.js';
import { Flag } from './wire.js';

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
  | { readonly kind: 'malformed'; readonly error: WireError };

const GARBAGE: Verdict = { kind: 'garbage' };
const WRONG_ID: Verdict = { kind: 'wrong-id' };
const WRONG_QUESTION: Verdict = { kind: 'wrong-question' };
const CASE_MISMATCH: Verdict = { kind: 'case-mismatch' };

/**
 * `sent`: the name as sent in randomized case, which the answer must echo byte for byte. An
 * accepted answer is checked whole but not built: the core parses the packet it is handed.
 */
export function inspectResponse(packet: Uint8Array, id: number, query: DnsQuery, sent?: Labels): Verdict {
  if (packet.length < HEADER_LENGTH) return GARBAGE;
  if (((packet[0]! << 8) | packet[1]!) !== id) return WRONG_ID;
  const flags = (packet[2]! << 8) | packet[3]!;
  if ((flags & Flag.QR) === 0 || ((flags >>> 11) & 0xf) !== 0) return GARBAGE;
  if (((packet[4]! << 8) | packet[5]!) !== 1) return WRONG_QUESTION;
  const reader = new WireReader(packet, HEADER_LENGTH);
  try {
    const labels = reader.labels('question name');
    const type = reader.u16('question type');
    const rrclass = reader.u16('question class');
    if (type !== query.type || rrclass !== query.class) return WRONG_QUESTION;
    const asked = query.labels;
    if (!labelsEqual(labels, asked)) return WRONG_QUESTION;
    if (sent && !sameCase(labels, sent)) return CASE_MISMATCH;
    const accepted = sent ? restoreQuestionCase(packet, sent, asked) : packet;
    return { kind: 'accept', packet: accepted, summary: scanMessage(accepted) };
  } catch (error) {
    if (error instanceof WireError) return { kind: 'malformed', error };
    throw error;
  }
}
