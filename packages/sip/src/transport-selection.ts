/**
 * The first three rules of RFC 3263 section 4.1, which the URI alone decides: a transport
 * parameter, an IP literal, an explicit port. Without any of them the transport comes from
 * DNS (NAPTR, then SRV, then A/AAAA), in procedure.ts.
 */
import { AddressFamilyError, SipsWithoutTlsError, UnsupportedTransportError } from './errors.js';
import type { ClientCapabilities, SelectionRule } from './resolution.js';
import { describeTransports, isSipTransport, type SipScheme, type SipTransport } from './transport.js';
import { uriTarget, type SipUri } from './uri.js';

export interface FixedTransport {
  readonly rule: Extract<SelectionRule, 'transport-param' | 'ip-literal' | 'port'>;
  readonly transport: SipTransport;
  readonly reason: string;
}

/** A SIPS URI needs TLS end to end: without TLS it fails before any query. */
export function checkScheme(uri: SipUri, client: ClientCapabilities): void {
  if (uri.scheme === 'sips' && !client.transports.has('tls')) {
    throw new SipsWithoutTlsError(
      `${uri.text} is a SIPS URI but the client does not support TLS (transports: ` +
        `${describeTransports(client.transports)}): SIPS needs TLS on every hop`,
    );
  }
}

/**
 * The transport when the URI decides it, or undefined when DNS must. Throws for a transport
 * the client cannot use and for an IP literal of a family the client has turned off.
 */
export function fixedTransport(uri: SipUri, client: ClientCapabilities): FixedTransport | undefined {
  checkScheme(uri, client);
  const target = uriTarget(uri);
  if (target.kind !== 'hostname') {
    const family = target.kind === 'ipv6' ? 6 : 4;
    if ((family === 6 && !client.ipv6) || (family === 4 && !client.ipv4)) {
      throw new AddressFamilyError(`the TARGET ${target.host} is an IPv${family} address but IPv${family} is off`);
    }
  }
  if (uri.transport !== undefined) {
    const transport = paramTransport(uri, client);
    return {
      rule: 'transport-param',
      transport,
      reason: `the URI says transport=${uri.transport} (RFC 3263 section 4.1: that transport SHOULD be used)`,
    };
  }
  if (target.kind !== 'hostname') {
    const transport = defaultTransport(uri.scheme, client);
    return {
      rule: 'ip-literal',
      transport,
      reason:
        `the TARGET is an IP address: ${transport.toUpperCase()} for a ${uri.scheme.toUpperCase()} URI (RFC ` +
        `3263 section 4.1)`,
    };
  }
  if (uri.port !== undefined) {
    const transport = defaultTransport(uri.scheme, client);
    return {
      rule: 'port',
      transport,
      reason:
        `the URI gives port ${uri.port}: ${transport.toUpperCase()} for a ${uri.scheme.toUpperCase()} URI, ` +
        `A/AAAA at that port, no SRV (RFC 3263 sections 4.1, 4.2)`,
    };
  }
  return undefined;
}

/**
 * UDP for a SIP URI, TLS (over TCP) for a SIPS URI. A client without UDP may use TCP, then
 * TLS ("another transport, such as TCP, MAY be used"); transports declared not offered by an
 * SRV "." are passed over.
 */
export function defaultTransport(
  scheme: SipScheme,
  client: ClientCapabilities,
  notOffered: ReadonlySet<SipTransport> = new Set(),
): SipTransport {
  const order: SipTransport[] = scheme === 'sips' ? ['tls'] : ['udp', 'tcp', 'tls'];
  return (
    order.find((t) => client.transports.has(t) && !notOffered.has(t)) ?? order.find((t) => client.transports.has(t))!
  );
}

/** transport=tcp on a SIPS URI means TLS over TCP; transport=udp on a SIPS URI has no secure form. */
function paramTransport(uri: SipUri, client: ClientCapabilities): SipTransport {
  const param = uri.transport!;
  if (!isSipTransport(param)) {
    throw new UnsupportedTransportError(
      `transport=${param} is not a transport this client implements (udp, tcp, tls)`,
      param,
    );
  }
  let transport: SipTransport = param;
  if (uri.scheme === 'sips') {
    if (param === 'udp')
      throw new UnsupportedTransportError(
        `a SIPS URI cannot use transport=udp: SIPS needs TLS, which runs over TCP`,
        param,
      );
    transport = 'tls';
  }
  if (!client.transports.has(transport)) {
    throw new UnsupportedTransportError(
      `transport=${param} asks for ${transport.toUpperCase()} but the client supports only ` +
        `${describeTransports(client.transports)}`,
      param,
    );
  }
  return transport;
}
