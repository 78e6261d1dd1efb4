/** Transports, schemes, SRV service names and NAPTR services (RFC 3263 sections 4.1 and 9). */
export type SipTransport = 'udp' | 'tcp' | 'tls';
export type SipScheme = 'sip' | 'sips';
export type AddressFamily = 4 | 6;

export const SIP_TRANSPORTS: readonly SipTransport[] = Object.freeze(['udp', 'tcp', 'tls']);

export function isSipTransport(value: unknown): value is SipTransport {
  return value === 'udp' || value === 'tcp' || value === 'tls';
}

/** RFC 3261 section 19.1.2: 5060 for sip over UDP and TCP. */
export const DEFAULT_SIP_PORT = 5060;
/** RFC 3261 section 19.1.2: 5061 for TLS (sips, or transport=tls). */
export const DEFAULT_SIPS_PORT = 5061;

/** RFC 3261 section 19.1.2: 5061 for TLS, 5060 otherwise. */
export function defaultPort(transport: SipTransport): number {
  return transport === 'tls' ? DEFAULT_SIPS_PORT : DEFAULT_SIP_PORT;
}

/** The SRV owner for a transport (RFC 3263 section 4.2): "_sips._tcp" for TLS, "_sip._udp"/"_sip._tcp" else. */
export function srvName(transport: SipTransport, domain: string): string {
  const prefix = transport === 'tls' ? '_sips._tcp' : transport === 'tcp' ? '_sip._tcp' : '_sip._udp';
  return `${prefix}.${domain}`;
}

/** NAPTR services of RFC 3263 section 4.1 that map to a transport we implement. */
const SERVICE_TRANSPORT: ReadonlyMap<string, SipTransport> = new Map([
  ['sip+d2u', 'udp'],
  ['sip+d2t', 'tcp'],
  ['sips+d2t', 'tls'],
]);

/** The canonical spelling of the three services, for messages. */
export const SIP_SERVICES: readonly string[] = Object.freeze(['SIPS+D2T', 'SIP+D2T', 'SIP+D2U']);

/** "SIP+D2U" -> udp, case-insensitively; undefined for any other service. */
export function serviceTransport(services: string): SipTransport | undefined {
  return SERVICE_TRANSPORT.get(services.toLowerCase());
}

/** True for a SIP or SIPS resolution service of any transport ("SIP+D2S", "SIPS+D2W", ...). */
export function isSipService(services: string): boolean {
  return /^sips?\+d2[a-z]$/i.test(services);
}

/** The service that reaches `transport`, as written in NAPTR records. */
export function transportService(transport: SipTransport): string {
  return transport === 'tls' ? 'SIPS+D2T' : transport === 'tcp' ? 'SIP+D2T' : 'SIP+D2U';
}

/** "udp, tcp, tls" in the fixed order of SIP_TRANSPORTS. */
export function describeTransports(transports: ReadonlySet<SipTransport>): string {
  return SIP_TRANSPORTS.filter((t) => transports.has(t)).join(', ');
}
