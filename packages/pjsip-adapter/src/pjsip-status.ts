/**
 * Why a resolution failed, as the pj_status_t a PJSIP consumer understands. One function,
 * one arm per error kind; anything not listed is PJ_EUNKNOWN, never PJ_SUCCESS.
 */
import { InvalidArgumentError, TimeoutError } from '@dnscore/core';
import {
  AddressFamilyError,
  BogusAnswerError,
  InsecureTargetsError,
  NoTargetsError,
  SipsWithoutTlsError,
  UnsupportedTransportError,
} from '@dnscore/sip';
import { PjStatus } from './pjsip-types.js';

export function statusOfError(error: unknown): number {
  // Nothing there: no NAPTR, SRV or address record led to a target.
  if (error instanceof NoTargetsError) {
    // Some question got no answer at all: say why, so the consumer does not take it as "no such server".
    if (error.dnsErrors.some((e) => e instanceof TimeoutError)) return PjStatus.PJ_ETIMEDOUT;
    // A SERVFAIL answer (the resolution went on as if empty): the server failed, as PJSIP's own
    // resolver says it (PJ_STATUS_FROM_DNS_RCODE), not "no such record".
    if (error.servfails > 0) return PjStatus.PJLIB_UTIL_EDNS_SERVFAIL;
    return error.dnsErrors.length === 0 ? PjStatus.PJLIB_UTIL_EDNSNOANSWERREC : PjStatus.PJ_ERESOLVE;
  }
  // A DNSSEC-bogus answer: what a validating resolver tells a stub (SERVFAIL), never a fallback.
  if (error instanceof BogusAnswerError) return PjStatus.PJLIB_UTIL_EDNS_SERVFAIL;
  // The DNSSEC policy 'require' left no target: validation made them impossible, as for bogus.
  if (error instanceof InsecureTargetsError) return PjStatus.PJLIB_UTIL_EDNS_SERVFAIL;
  // sips: without TLS, transport=sctp, a DTLS type: the consumer asked for a transport we lack.
  if (error instanceof SipsWithoutTlsError || error instanceof UnsupportedTransportError)
    return PjStatus.PJSIP_EUNSUPTRANSPORT;
  // An IP literal of a family that is off.
  if (error instanceof AddressFamilyError) return PjStatus.PJ_EAFNOTSUP;
  // A host info PJSIP could not have built, a host name outside the grammar.
  if (error instanceof InvalidArgumentError) return PjStatus.PJ_EINVAL;
  return PjStatus.PJ_EUNKNOWN;
}
