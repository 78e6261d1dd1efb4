/**
 * libunbound's result as the core's PluginAnswer (Asterisk's unbound completion callback):
 * flags, rcode and the answer packet. The core parses the records from the packet, so each
 * keeps its own TTL (libunbound's `data` shares one) and the other sections survive.
 */
import { Rcode, describeQuery, type DnsQuery, type PluginAnswer } from '@dnscore/core/plugin';
import type { UnboundResultRaw } from './binding.js';
import { edeOfWhyBogus } from './bogus-reason.js';
import { InsecureAnswerError, UnboundResolveError } from './errors.js';

/**
 * Maps one result. A bogus answer stays an answer with bogus true: the core hides its data
 * and the registry never falls back for it. With `requireSecure`, an insecure NOERROR or
 * NXDOMAIN throws InsecureAnswerError (other rcodes carry no data to trust and pass as they are).
 * `cleanAdditional` says libunbound's val-clean-additional is on: then a secure answer's
 * additional section holds only RRsets libunbound validated, and the answer says so
 * (additionalSecure), so that an SRV answer's target addresses need no questions of their own.
 */
export function toPluginAnswer(
  query: DnsQuery,
  raw: UnboundResultRaw,
  requireSecure = false,
  cleanAdditional = false,
): PluginAnswer {
  const packet = raw.answerPacket && raw.answerPacket.length > 0 ? raw.answerPacket : undefined;
  // libunbound never sets both; if it did, bogus wins (a status is never better than validated).
  const secure = raw.secure && !raw.bogus;
  const answer: PluginAnswer = {
    rcode: raw.rcode,
    secure,
    bogus: raw.bogus,
    // The validator removed every additional RRset of a secure answer that did not validate
    // (unbound's val_check_nonsecure); what is left was validated with the answer.
    ...(secure && cleanAdditional && packet ? { additionalSecure: true } : {}),
    ...(raw.bogus
      ? { whyBogus: raw.whyBogus ?? 'validation failed (libunbound gave no reason)', ede: edeOfWhyBogus(raw.whyBogus) }
      : {}),
    // libunbound's canonname is lossy (unusual octets become "?"): the core reads the CNAME
    // chain from the packet instead; without a packet there is no chain.
    ...(packet ? { answer: packet } : { canonical: query.name }),
  };
  if (requireSecure && !raw.secure && !raw.bogus && (raw.rcode === Rcode.NOERROR || raw.rcode === Rcode.NXDOMAIN)) {
    throw new InsecureAnswerError(
      `${describeQuery(query)}: the answer is insecure (not validated by DNSSEC) and requireSecure is set`,
    );
  }
  return answer;
}

/** A rejection of the binding's resolve() as UnboundResolveError with libunbound's message. */
export function toResolveError(query: DnsQuery, error: unknown): UnboundResolveError {
  const message = error instanceof Error ? error.message : String(error);
  const code = /\((-?\d+)\)\s*$/.exec(message);
  return new UnboundResolveError(
    `${describeQuery(query)}: libunbound returned no result: ${message}`,
    message,
    code ? Number(code[1]) : undefined,
    {
      cause: error,
    },
  );
}
