/**
 * Mistakes in a configured URI (the walk-through's "Common mistakes"): a port or a transport
 * parameter that hides the DNS set-up, and a hard-coded IP address.
 */
import type { SipUri } from '@dnscore/sip';
import type { Finding } from './finding.js';

export function uriFindings(uri: SipUri): Finding[] {
  const findings: Finding[] = [];
  const record = uri.text;
  if (uri.hostKind !== 'hostname') {
    findings.push({
      code: 'uri-ip-literal',
      severity: 'warning',
      record,
      message: `the URI names the IP address ${uri.host}: no DNS is asked, so there is one server and no failover`,
      fix: `configure the domain (sip:user@example.com) and publish its servers in NAPTR and SRV records`,
    });
    return findings;
  }
  if (uri.port !== undefined) {
    findings.push({
      code: 'uri-port',
      severity: 'warning',
      record,
      message:
        `the URI gives port ${uri.port}: clients skip NAPTR and SRV and use only the A/AAAA ` +
        `records of ${uri.host} (RFC 3263 section 4.2), so SRV priorities, weights and failover are never used`,
      fix: `remove ":${uri.port}" from the URI and publish the port in SRV records`,
    });
  }
  if (uri.transport !== undefined) {
    findings.push({
      code: 'uri-transport',
      severity: uri.transport === 'tls' ? 'warning' : 'info',
      record,
      message:
        uri.transport === 'tls'
          ? 'transport=tls is deprecated (RFC 3261 section 26.2.2), and a transport parameter skips NAPTR'
          : `transport=${uri.transport} skips NAPTR: clients ask only the SRV records of that transport ` +
            `(RFC 3263 section 4.1)`,
      fix:
        uri.transport === 'tls'
          ? 'use a sips: URI without the transport parameter'
          : 'leave the transport to NAPTR unless this peer must use one transport',
    });
  }
  return findings;
}
