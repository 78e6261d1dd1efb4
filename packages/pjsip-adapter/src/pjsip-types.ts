/**
 * PJSIP's external-resolver shapes (pjsip/sip_resolve.h, sip_types.h) and the status codes of
 * pjproject's headers, as plain JavaScript: what a binding or a port of a PJSIP consumer hands
 * over and expects back.
 */

/**
 * PJSIP_MAX_RESOLVED_ADDRESSES with IPv6 (sip_config.h: 32 when PJ_HAS_IPV6, else 16): the most
 * entries one callback hands over. The locator's own cap (32) is the same.
 */
export const PJSIP_MAX_RESOLVED_ADDRESSES = 32;

/** pjsip_transport_flags_e. */
export const PjsipTransportFlag = Object.freeze({ RELIABLE: 1, SECURE: 2, DATAGRAM: 4 } as const);

/** pjsip_transport_type_e; an IPv6 variant is the IPv4 type | IPV6. */
export const PjsipTransportType = Object.freeze({
  UNSPECIFIED: 0,
  UDP: 1,
  TCP: 2,
  TLS: 3,
  DTLS: 4,
  SCTP: 5,
  LOOP: 6,
  LOOP_DGRAM: 7,
  IPV6: 128,
  UDP6: 129,
  TCP6: 130,
  TLS6: 131,
} as const);

/** pj_status_t values the adapter reports (pj/errno.h, pjlib-util/errno.h, pjsip/sip_errno.h). */
export const PjStatus = Object.freeze({
  PJ_SUCCESS: 0,
  /** PJ_ERRNO_START_STATUS + 1 */
  PJ_EUNKNOWN: 70_001,
  PJ_EINVAL: 70_004,
  PJ_ENOMEM: 70_007,
  PJ_ETIMEDOUT: 70_009,
  PJ_ERESOLVE: 70_018,
  PJ_EAFNOTSUP: 70_022,
  /** PJSIP_ERRNO_START_PJSIP + 60 */
  PJSIP_EUNSUPTRANSPORT: 171_060,
  /** PJLIB_UTIL_ERRNO_START + 47: nothing was found. */
  PJLIB_UTIL_EDNSNOANSWERREC: 320_047,
  /** PJ_STATUS_FROM_DNS_RCODE(2): what a validating resolver tells a stub about a bogus answer. */
  PJLIB_UTIL_EDNS_SERVFAIL: 320_052,
} as const);

export type PjStatusName = keyof typeof PjStatus;

/** The name of a status code, for messages ("PJ_SUCCESS", ...); undefined for codes not listed. */
export function pjStatusName(status: number): PjStatusName | undefined {
  return (Object.keys(PjStatus) as PjStatusName[]).find((name) => PjStatus[name] === status);
}

/** pjsip_host_info: where PJSIP wants to send, after pjsip_get_dest_info(). */
export interface PjsipHostInfo {
  /** PjsipTransportFlag bits. */
  readonly flag: number;
  /** PjsipTransportType. */
  readonly type: number;
  /** Host (IPv6 without brackets) and port; port 0 means none was given. */
  readonly addr: { readonly host: string; readonly port: number };
}

/** pj_sockaddr, as the address family, the address text and the port. */
export interface PjSockaddr {
  readonly family: 4 | 6;
  readonly address: string;
  readonly port: number;
}

/** pjsip_server_address_record. */
export interface PjsipServerAddressRecord {
  /** Host name of the server (the SRV target, or the URI's host). */
  readonly name: string;
  /** PjsipTransportType, with IPV6 for an IPv6 address. */
  readonly type: number;
  /** SRV priority and weight (Asterisk leaves them 0; here they are filled). */
  readonly priority: number;
  readonly weight: number;
  readonly addr: PjSockaddr;
  /** sizeof(pj_sockaddr_in) = 16, sizeof(pj_sockaddr_in6) = 28. */
  readonly addr_len: number;
}

/** pjsip_server_addresses. */
export interface PjsipServerAddresses {
  readonly count: number;
  readonly entry: readonly PjsipServerAddressRecord[];
}

/** pjsip_resolver_callback: `addresses` is null when status is not PJ_SUCCESS. */
export type PjsipResolverCallback<T = unknown> = (
  status: number,
  token: T,
  addresses: PjsipServerAddresses | null,
) => void;

/** pjsip_ext_resolver. `resolver` and `pool` are PJSIP's opaque handles, passed through untouched. */
export interface PjsipExtResolver {
  resolve<T>(resolver: unknown, pool: unknown, target: PjsipHostInfo, token: T, cb: PjsipResolverCallback<T>): void;
}
