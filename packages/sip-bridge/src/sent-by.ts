/**
 * Where the far side of an incoming request listens, as an RFC 3263 target (transport, address,
 * port): what a Call-ID pin learned from that request must name so that a later request of the
 * dialog finds it among the targets of its next hop. The port is the top Via's sent-by port, the
 * transport's default when the Via has none (RFC 3261 18.2.2 sends a response there once the
 * connection is gone; 19.1.2 for the default), never the source port: a TCP connection comes
 * from an ephemeral port, and a UDP sender need not send from the port it listens on. The
 * address is the one the request came from (the Via's `received`, RFC 3261 18.2.1), since the
 * sent-by host may be a name.
 */
import { defaultPort, isSipTransport, type Destination } from '@dnscore/sip';
import type { SipRemote, SipRequest } from './sip-stack.js';

/**
 * The listening destination of the request's sender, or undefined when its top Via does not say:
 * no Via, a Via of another transport than the flow's, or a sent-by host that is not whole (the
 * `sip` parser cuts an IPv6 reference at its first colon; via.ts reads such Vias again before
 * a request gets here, so this is the last guard, not the rule).
 */
export function sentByDestination(request: SipRequest, remote: SipRemote): Destination | undefined {
  const transport = remote.protocol.toLowerCase();
  const via = request.headers.via?.[0];
  if (!isSipTransport(transport) || !via || via.protocol?.toLowerCase() !== transport) return undefined;
  if (typeof via.host !== 'string' || (via.host.startsWith('[') && !via.host.endsWith(']'))) return undefined;
  return { transport, address: remote.address, port: via.port ?? defaultPort(transport) };
}
