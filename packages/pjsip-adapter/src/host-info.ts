/**
 * PJSIP's pjsip_host_info both ways. hostInfoFromUri() is pjsip_get_dest_info(): sips (in the
 * target URI, or in the Request-URI) forces TLS, `transport=` sets the type, maddr replaces the
 * host, an IPv6 host adds IPV6. locatorTarget() turns a host info back into what @dnscore/sip
 * resolves: the URI, and the transport a selector fixed (RFC 3263 walks it as Asterisk does).
 */
import {
  UnsupportedTransportError,
  formatHost,
  parseHost,
  parseSipUri,
  type SipTarget,
  type SipTransport,
} from '@dnscore/sip';
import { InvalidHostInfoError } from './errors.js';
import { PjsipTransportFlag as Flag, PjsipTransportType as Type, type PjsipHostInfo } from './pjsip-types.js';

/** pjsip_transport_get_type_from_name(): unknown names are UNSPECIFIED. */
const TYPE_BY_NAME: ReadonlyMap<string, number> = new Map([
  ['udp', Type.UDP],
  ['tcp', Type.TCP],
  ['tls', Type.TLS],
  ['dtls', Type.DTLS],
  ['sctp', Type.SCTP],
  ['loop', Type.LOOP],
  ['loop-dgram', Type.LOOP_DGRAM],
]);

/** pjsip_transport_get_flag_from_type(), for the types PJSIP registers. */
export function flagOfType(type: number): number {
  switch (type & ~Type.IPV6) {
    case Type.UDP:
    case Type.LOOP_DGRAM:
      return Flag.DATAGRAM;
    case Type.TCP:
    case Type.SCTP:
    case Type.LOOP:
      return Flag.RELIABLE;
    case Type.TLS:
      return Flag.RELIABLE | Flag.SECURE;
    case Type.DTLS:
      return Flag.DATAGRAM | Flag.SECURE;
    default:
      return 0;
  }
}

/**
 * pjsip_get_dest_info() for a SIP or SIPS target URI (the first Route, or the Request-URI).
 * Throws InvalidSipUriError for anything that is not one.
 */
export function hostInfoFromUri(targetUri: string, requestUri?: string): PjsipHostInfo {
  const target = parseSipUri(targetUri);
  const secure = target.scheme === 'sips' || (requestUri !== undefined && parseSipUri(requestUri).scheme === 'sips');
  const host = target.maddr ?? { host: target.host, kind: target.hostKind };
  let type = TYPE_BY_NAME.get(target.transport ?? '') ?? Type.UNSPECIFIED;
  // sips:host;transport=tcp is TLS (pjproject#1319): a type without SECURE becomes TLS.
  if (secure && (flagOfType(type) & Flag.SECURE) === 0) type = Type.TLS;
  if (type !== Type.UNSPECIFIED && host.kind === 'ipv6') type |= Type.IPV6;
  return Object.freeze({
    flag: flagOfType(type),
    type,
    addr: Object.freeze({ host: host.host, port: target.port ?? 0 }),
  });
}

/** The transport of a type: undefined for UNSPECIFIED; null for a type dnscore cannot reach (DTLS, SCTP, loop). */
export function transportOfType(type: number): SipTransport | undefined | null {
  switch (type & ~Type.IPV6) {
    case Type.UNSPECIFIED:
      return undefined;
    case Type.UDP:
      return 'udp';
    case Type.TCP:
      return 'tcp';
    case Type.TLS:
      return 'tls';
    default:
      return null;
  }
}

/** The PJSIP type of a resolved target: its transport, with IPV6 for an IPv6 address. */
export function typeOfTarget(target: Pick<SipTarget, 'transport' | 'family'>): number {
  const base = target.transport === 'tls' ? Type.TLS : target.transport === 'tcp' ? Type.TCP : Type.UDP;
  return target.family === 6 ? base | Type.IPV6 : base;
}

/** Checks a host info the way PJSIP would have built it; throws InvalidHostInfoError. */
export function checkHostInfo(target: unknown): PjsipHostInfo {
  const info = target as PjsipHostInfo | null | undefined;
  if (!info || typeof info !== 'object' || !info.addr || typeof info.addr !== 'object') {
    throw new InvalidHostInfoError('a pjsip_host_info needs flag, type and addr {host, port}');
  }
  const { flag, type, addr } = info;
  if (!Number.isInteger(flag) || flag < 0 || flag > 7)
    throw new InvalidHostInfoError(
      `flag ${String(flag)} is not a combination of RELIABLE (1), SECURE (2), DATAGRAM (4)`,
    );
  if (!Number.isInteger(type) || type < 0 || type > 255)
    throw new InvalidHostInfoError(`type ${String(type)} is not a pjsip_transport_type_e`);
  if (typeof addr.host !== 'string' || addr.host === '') throw new InvalidHostInfoError('addr.host is empty');
  if (!Number.isInteger(addr.port) || addr.port < 0 || addr.port > 65535)
    throw new InvalidHostInfoError(`addr.port ${String(addr.port)} is outside 0..65535 (0 means none)`);
  return info;
}

/** What @dnscore/sip resolves for a host info: a URI, and the one transport its walk may use. */
export interface LocatorTarget {
  readonly uri: string;
  /** Set when the transport came from elsewhere than the URI: the NAPTR walk runs over it alone. */
  readonly only?: SipTransport;
  /**
   * Set when the type has IPV6 (an IPv6 transport) and the host is not an IPv6 literal: IPv6 addresses only, as
   * pjsip_resolve() takes AF_INET6 for such a type and asks AAAA alone; an IPv4 address could not
   * be reached over that transport.
   */
  readonly ipv6Only?: true;
}

/**
 * What @dnscore/sip resolves for a host info. pjsip_get_dest_info() sets the flag from the type
 * it read in the URI (`transport=`, `sips:`), so a type with its flag came from the URI: TLS is a
 * sips: URI (SIPS NAPTR services, _sips._tcp), UDP and TCP set `transport=` (no NAPTR, RFC 3263
 * 4.1); SECURE with UDP or TCP is TLS too. A type with flag 0 was set by the request's transport
 * selector (pjsip_process_route_set(), an account bound to one transport): the URI had no
 * `transport=`, so RFC 3263 runs its NAPTR walk, over that transport only. UNSPECIFIED with
 * RELIABLE is the same walk over TCP (Asterisk's sip_resolve()); UNSPECIFIED with SECURE is sips:;
 * without flags RFC 3263 chooses among every transport.
 */
export function locatorTarget(info: PjsipHostInfo): LocatorTarget {
  const parsed = parseHost(
    info.addr.host.includes(':') && !info.addr.host.startsWith('[') ? `[${info.addr.host}]` : info.addr.host,
  );
  if (!parsed.ok) throw new InvalidHostInfoError(`addr.host: ${parsed.reason}`);
  const transport = transportOfType(info.type);
  if (transport === null)
    throw new UnsupportedTransportError(
      `type ${info.type} is a transport dnscore does not resolve for (udp, tcp, tls)`,
      String(info.type),
    );
  const port = info.addr.port > 0 ? `:${info.addr.port}` : '';
  const host = formatHost(parsed.host);
  // An IPv6 literal is IPv6 already; a name or an IPv4 literal with an IPv6 type is held to IPv6.
  const family: { ipv6Only?: true } =
    (info.type & Type.IPV6) !== 0 && parsed.host.kind !== 'ipv6' ? { ipv6Only: true } : {};
  if (transport === undefined) {
    if ((info.flag & Flag.SECURE) !== 0) return { uri: `sips:${host}${port}`, ...family };
    return (info.flag & Flag.RELIABLE) !== 0
      ? { uri: `sip:${host}${port}`, only: 'tcp', ...family }
      : { uri: `sip:${host}${port}`, ...family };
  }
  if (info.flag === 0) return { uri: `sip:${host}${port}`, only: transport, ...family };
  // SECURE on a type without it is TLS, as pjsip_get_dest_info() makes such a pair (pjproject#1319).
  if (transport === 'tls' || (info.flag & Flag.SECURE) !== 0) return { uri: `sips:${host}${port}`, ...family };
  return { uri: `sip:${host}${port};transport=${transport}`, ...family };
}
