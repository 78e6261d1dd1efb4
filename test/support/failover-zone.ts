/**
 * The zone of the failover scenarios: for each case an SRV set whose first target misbehaves
 * and whose second answers, all on one port of 127.x.y.z loopback addresses, so sipp and node
 * peers can play the servers. One prefix per test file keeps parallel files apart.
 */
import { freePort } from './ports.js';
import { isBound } from './sipp.js';

export interface FailoverHosts {
  /** Nothing listens (UDP silent, TCP refused). */
  readonly dead: string;
  /** Answers 503 with Retry-After. */
  readonly busy: string;
  /** Answers 200 over UDP and TCP. */
  readonly live: string;
  /** Answers 200 (the heavier SRV weight, and the first target of the cluster). */
  readonly weighted: string;
  /** The sipp client that starts a dialog. */
  readonly dialog: string;
  /** TLS with a certificate for another name (and its own IP address). */
  readonly tlsWrong: string;
  /** TLS with a certificate for the SIP domain. */
  readonly tlsRight: string;
  /** Answers 500 over UDP; nothing listens on TCP. */
  readonly error: string;
}

/** prefix "127.0.6" and base 10 -> 127.0.6.11 ... 127.0.6.18. */
export function failoverHosts(prefix: string, base: number): FailoverHosts {
  const at = (n: number): string => `${prefix}.${base + n}`;
  return {
    dead: at(1),
    busy: at(2),
    live: at(3),
    weighted: at(4),
    dialog: at(5),
    tlsWrong: at(6),
    tlsRight: at(7),
    error: at(8),
  };
}

/** A port free for UDP and TCP on every host. */
export async function freePortOnAll(hosts: FailoverHosts): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await freePort(hosts.live);
    if (Object.values(hosts).every((a) => !isBound(a, port, 'udp') && !isBound(a, port, 'tcp'))) return port;
  }
  throw new Error('no port free on every failover host');
}

/**
 * Names under `origin`: dead (silent first), busy (503 first), refuse (TCP refused first),
 * weights (80/20 between two live servers), cluster (two servers, the dialog's second),
 * tls (wrong certificate first), err500 (500 first), silent (four servers silent over UDP
 * unless a test starts one), downgrade (two TLS servers that refuse, then a live UDP server
 * in the same NAPTR order: what a sips: URI must never reach). Each second target is `live`
 * unless said otherwise.
 */
export function failoverZone(origin: string, h: FailoverHosts, port: number): string {
  return `$ORIGIN ${origin}.
$TTL 300
@ IN SOA ns hostmaster 1 3600 600 86400 300
_sip._udp.dead IN SRV 10 0 ${port} dead-server
_sip._udp.dead IN SRV 20 0 ${port} live-server
_sip._udp.busy IN SRV 10 0 ${port} busy-server
_sip._udp.busy IN SRV 20 0 ${port} live-server
_sip._tcp.refuse IN SRV 10 0 ${port} dead-server
_sip._tcp.refuse IN SRV 20 0 ${port} live-server
_sip._udp.weights IN SRV 10 80 ${port} weighted-server
_sip._udp.weights IN SRV 10 20 ${port} live-server
_sip._udp.cluster IN SRV 10 0 ${port} weighted-server
_sip._udp.cluster IN SRV 20 0 ${port} dialog-server
_sips._tcp.tls IN SRV 10 0 ${port} tls-wrong
_sips._tcp.tls IN SRV 20 0 ${port} tls-right
_sip._udp.err500 IN SRV 10 0 ${port} error-server
_sip._udp.err500 IN SRV 20 0 ${port} live-server
_sip._udp.silent IN SRV 10 0 ${port} dead-server
_sip._udp.silent IN SRV 20 0 ${port} dialog-server
_sip._udp.silent IN SRV 30 0 ${port} tls-wrong
_sip._udp.silent IN SRV 40 0 ${port} tls-right
downgrade IN NAPTR 10 10 "s" "SIPS+D2T" "" _sips._tcp.downgrade
downgrade IN NAPTR 10 20 "s" "SIP+D2U" "" _sip._udp.downgrade
_sips._tcp.downgrade IN SRV 10 0 ${port} dead-server
_sips._tcp.downgrade IN SRV 20 0 ${port} error-server
_sip._udp.downgrade IN SRV 10 0 ${port} live-server
dead-server IN A ${h.dead}
busy-server IN A ${h.busy}
live-server IN A ${h.live}
weighted-server IN A ${h.weighted}
dialog-server IN A ${h.dialog}
tls-wrong IN A ${h.tlsWrong}
tls-right IN A ${h.tlsRight}
error-server IN A ${h.error}
`;
}
