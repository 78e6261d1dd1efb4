/**
 * What node:dns calls each dnscore outcome. The Resolver speaks c-ares's codes (NXDOMAIN is
 * ENOTFOUND, NODATA ENODATA, ...); lookup speaks getaddrinfo's (no address at all is ENOTFOUND,
 * a failure that may pass is EAI_AGAIN). A bogus DNSSEC answer is never data: a validating
 * server would have said SERVFAIL (RFC 4035 section 5.5), so the Resolver says ESERVFAIL.
 */
import { Rcode, type DnsResult } from '@dnscore/core';

/** The c-ares code of a negative result, or undefined when the result has data to give. */
export function resultCode(result: DnsResult): string | undefined {
  if (result.bogus) return 'ESERVFAIL';
  switch (result.rcode) {
    case Rcode.NOERROR:
      return result.records.length === 0 ? 'ENODATA' : undefined;
    case Rcode.NXDOMAIN:
      return 'ENOTFOUND';
    case Rcode.SERVFAIL:
      return 'ESERVFAIL';
    case Rcode.REFUSED:
      return 'EREFUSED';
    case Rcode.NOTIMP:
      return 'ENOTIMP';
    case Rcode.FORMERR:
      return 'EFORMERR';
    default:
      return 'ESERVFAIL';
  }
}

/** The c-ares code of an error from the core (no answer obtained). */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'DNS_ERR_TIMEOUT':
      return 'ETIMEOUT';
    case 'ABORT_ERR':
      return 'ECANCELLED';
    case 'DNS_ERR_INVALID_QUERY':
      return 'EBADNAME';
    case 'DNS_ERR_MALFORMED_ANSWER':
    case 'DNS_ERR_INVALID_RESULT':
      return 'EBADRESP';
    case 'DNS_ERR_NETWORK':
    case 'DNS_ERR_NO_RESOLVER':
      // c-ares: "could not contact DNS servers"
      return 'ECONNREFUSED';
    case 'DNS_ERR_STATE':
      return 'EDESTRUCTION';
    default:
      return 'ESERVFAIL';
  }
}

/**
 * getaddrinfo's code for a Resolver code: a name with no address is ENOTFOUND; a bad name is
 * ENOTFOUND too (glibc answers EAI_NONAME); a cancel stays ECANCELLED; everything else may
 * pass on a retry: EAI_AGAIN.
 */
export function lookupCode(code: string): string {
  switch (code) {
    case 'ENOTFOUND':
    case 'ENODATA':
    case 'EBADNAME':
      return 'ENOTFOUND';
    case 'ECANCELLED':
    case 'EBOGUS':
    case 'EINSECURE':
      return code;
    default:
      return 'EAI_AGAIN';
  }
}
