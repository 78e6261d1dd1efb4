/** How long an answer may be cached, in seconds, from the TTLs in its packet. */
import { isAtOrBelow } from './bailiwick.js';
import { nameKey } from './names.js';
import type { DnsQuery } from './query.js';
import { decodeRecord } from './records/decode.js';
import { negativeTtl } from './records/soa.js';
import type { SoaData } from './records/types.js';
import type { PluginAnswer } from './resolver-plugin.js';
import { RRType, Rcode } from './rr-types.js';
import { parseMessage, type WireMessage } from './wire/message.js';

export interface LifetimeLimits {
  readonly maxTtl: number;
  readonly maxNegativeTtl: number;
  readonly maxBogusTtl: number;
}

/**
 * 0 means "do not cache": no packet, a packet for another question, a failure rcode, a
 * negative answer without SOA, TTL 0.
 */
export function answerLifetime(query: DnsQuery, answer: PluginAnswer, limits: LifetimeLimits): number {
  if (!answer.answer || answer.answer.length === 0) return 0;
  let message: WireMessage;
  try {
    message = parseMessage(answer.answer);
  } catch {
    return 0;
  }
  const question = message.questions[0];
  if (
    !question ||
    question.type !== query.type ||
    question.class !== query.class ||
    nameKey(question.name) !== nameKey(query.name)
  ) {
    return 0;
  }
  const age = answer.age ?? 0;
  const ttl = packetTtl(message, answer.rcode, limits);
  if (answer.bogus) return Math.min(limits.maxBogusTtl, ttl > 0 ? ttl : limits.maxBogusTtl) - age;
  return ttl - age;
}

function packetTtl(message: WireMessage, rcode: number, limits: LifetimeLimits): number {
  const qtype = message.questions[0]?.type;
  const positive =
    rcode === Rcode.NOERROR &&
    message.answers.some((r) => r.type === qtype || qtype === RRType.ANY || qtype === RRType.CNAME);
  if (positive) {
    return Math.min(limits.maxTtl, ...message.answers.map((r) => r.ttl));
  }
  if (rcode !== Rcode.NXDOMAIN && rcode !== Rcode.NOERROR) return 0;
  // RFC 2308 section 5: no SOA of a zone holding the name, no negative caching.
  const question = message.questions[0];
  const soa = message.authorities.find(
    (r) => r.type === RRType.SOA && question !== undefined && isAtOrBelow(question.labels, r.labels),
  );
  if (!soa) return 0;
  try {
    const data = decodeRecord(message.packet, soa).data as SoaData;
    return Math.min(limits.maxNegativeTtl, negativeTtl(soa.ttl, data));
  } catch {
    return 0;
  }
}
