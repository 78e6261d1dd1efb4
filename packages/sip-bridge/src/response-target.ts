/**
 * Where the responses to a request received over UDP go (RFC 3261 section 18.2.2, RFC 3581):
 * the source address and port when the top Via asked for `rport`; else where the sender listens
 * (sent-by.ts: the source address at the Via's sent-by port, 5060 when it names none). A UDP
 * sender need not send from the port it listens on, and without `rport` it listens only at its
 * sent-by. `maddr` is not followed: a request could aim our responses at a third party. Over a
 * stream the response goes back on the request's connection, and this does not apply.
 */
import { sentByDestination } from './sent-by.js';
import type { SipRemote, SipRequest } from './sip-stack.js';

export function responseTarget(request: SipRequest, remote: SipRemote): SipRemote {
  if (remote.protocol.toUpperCase() !== 'UDP') return remote;
  const via = request.headers.via?.[0];
  if (!via || Object.hasOwn(via.params, 'rport')) return remote;
  const listening = sentByDestination(request, remote);
  return listening === undefined || listening.port === remote.port ? remote : { ...remote, port: listening.port };
}
