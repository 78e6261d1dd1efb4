/**
 * How long an answer may be cached, in seconds, from the TTLs in its packet. Only the records
 * that answer the question count: the CNAME chain from the question name (in its class) and
 * the records of the asked type at the chain's end. A negative lifetime comes only from an SOA
 * of the question's class whose owner holds the chain's end (RFC 2308 section 5). Every
 * lifetime is a finite number in [0, cap].
 */
import { isAtOrBelowText, presentationForm, sameNameText } from './names.js';
import type { DnsQuery } from './query.js';
import { decodeRecord } from './records/decode.js';
import { RdataError } from './records/rdata-error.js';
import { negativeTtl } from './records/soa.js';
import type { SoaData } from './records/types.js';
import type { PluginAnswer } from './plugin-answer.js';
import { RRClass, RRType, Rcode } from './rr-types.js';
import { parseMessage, type WireMessage, type WireRecord } from './wire/message.js';

export interface LifetimeLimits {
  readonly maxTtl: number;
  readonly maxNegativeTtl: number;
  readonly maxBogusTtl: number;
}

/** Longest CNAME chain followed to find what answers the question (result-builder's default). */
const MAX_CHAIN = 16;

/**
 * 0 means "do not cache": no packet, a truncated one or no response (unless bogus), one for
 * another question, a failure rcode, a negative answer without a usable SOA, TTL 0.
 */
export function answerLifetime(query: DnsQuery, answer: PluginAnswer, limits: LifetimeLimits): number {
  if (!answer.answer || answer.answer.length === 0) return 0;
  let message: WireMessage;
  try {
    message = parseMessage(answer.answer);
  } catch {
    return 0;
  }
  // RFC 2181 section 9: a truncated answer may hold a partial RRset; it is to be asked again, never kept.
  // A packet that is no response (QR clear) answers nothing: the result builder refuses it too. A
  // bogus verdict is kept whatever its packet: its data is never read (RFC 4035 section 4.7).
  if (!answer.bogus && (message.header.tc || !message.header.qr)) return 0;
  const question = message.questions[0];
  if (
    !question ||
    question.type !== query.type ||
    question.class !== query.class ||
    !sameNameText(question.name, presentationForm(query.name))
  ) {
    return 0;
  }
  const age = finiteOr0(answer.age);
  const ttl = packetTtl(message, query, answer.rcode, limits);
  // A bogus answer lives briefly, never past its own TTL (TTL 0: not at all); maxBogusTtl when it has none.
  const lifetime = answer.bogus ? Math.min(limits.maxBogusTtl, ttl ?? limits.maxBogusTtl) : (ttl ?? 0);
  return clampLifetime(lifetime - age, limits.maxTtl);
}

/** `seconds` as a finite number in [0, max]; NaN and infinities are 0 (never "for ever"). */
export function clampLifetime(seconds: number, max: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.min(seconds, max);
}

/** The TTL the packet gives its answer to the question, or undefined when it gives none. */
function packetTtl(message: WireMessage, query: DnsQuery, rcode: number, limits: LifetimeLimits): number | undefined {
  if (rcode !== Rcode.NXDOMAIN && rcode !== Rcode.NOERROR) return undefined;
  const chain = cnameChain(message, query);
  if (!chain) return undefined;
  const chainTtl = Math.min(limits.maxTtl, ...chain.links.map((r) => r.ttl));
  // A record the result builder drops (its RDATA breaks a rule) answers nothing either.
  const answering = message.answers.filter(
    (r) =>
      (query.type === RRType.ANY || r.type === query.type) &&
      classMatches(r, query) &&
      sameNameText(r.name, chain.end) &&
      decodes(message, r),
  );
  if (rcode === Rcode.NOERROR && answering.length > 0) {
    return Math.min(chainTtl, ...answering.map((r) => r.ttl));
  }
  const negative = negativeLifetime(message, query, chain.end, limits);
  if (negative !== undefined) return Math.min(chainTtl, negative);
  // A chain whose end the server did not give (it lies in another zone): the links hold for
  // their TTL, so a repeat does not walk them again.
  return rcode === Rcode.NOERROR && chain.links.length > 0 ? chainTtl : undefined;
}

/**
 * The CNAME links from the question name through the answer section, or undefined for a loop or
 * an unreadable link. Names are compared as formatName() writes them (a parsed record's owner).
 */
function cnameChain(message: WireMessage, query: DnsQuery): { links: WireRecord[]; end: string } | undefined {
  const links: WireRecord[] = [];
  let end = presentationForm(query.name);
  if (query.type === RRType.CNAME || query.type === RRType.ANY) return { links, end };
  for (;;) {
    const cname = message.answers.find(
      (r) => r.type === RRType.CNAME && classMatches(r, query) && sameNameText(r.name, end),
    );
    if (!cname) return { links, end };
    if (links.length >= MAX_CHAIN) return undefined;
    try {
      end = decodeRecord(message.packet, cname).data as string;
    } catch {
      return undefined;
    }
    links.push(cname);
  }
}

/** min(SOA TTL, MINIMUM, cap) from an SOA of the question's class at or above `end`; undefined without one. */
function negativeLifetime(
  message: WireMessage,
  query: DnsQuery,
  end: string,
  limits: LifetimeLimits,
): number | undefined {
  if (query.class === RRClass.ANY || query.class === RRClass.NONE) return undefined;
  const soa = message.authorities.find(
    (r) => r.type === RRType.SOA && r.class === query.class && isAtOrBelowText(end, r.name),
  );
  if (!soa) return undefined;
  let data: SoaData;
  try {
    data = decodeRecord(message.packet, soa).data as SoaData;
  } catch (error) {
    if (error instanceof RdataError) return undefined;
    throw error;
  }
  if (typeof data?.minimum !== 'number') return undefined;
  return Math.min(limits.maxNegativeTtl, negativeTtl(soa.ttl, data));
}

function decodes(message: WireMessage, record: WireRecord): boolean {
  try {
    decodeRecord(message.packet, record);
    return true;
  } catch (error) {
    if (error instanceof RdataError) return false;
    throw error;
  }
}

function classMatches(record: WireRecord, query: DnsQuery): boolean {
  return query.class === RRClass.ANY || record.class === query.class;
}

function finiteOr0(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : 0;
}
