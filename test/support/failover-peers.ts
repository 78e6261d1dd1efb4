/**
 * The SIP servers of the failover scenarios (support/failover-zone.ts names their addresses):
 * sipp answering 200 over UDP and TCP on the live and weighted hosts, sipp answering 503 on the
 * busy host and 500 on the error host, and node TLS peers (this sipp has no TLS): one whose certificate names the host
 * name, one whose certificate names only its own IP address.
 */
import { makeCertificate, type TestCertificate } from './certs.js';
import type { failoverHosts } from './failover-zone.js';
import { answer, startSipPeer, type SipPeer } from './sip-peer.js';
import { answeringScenario, startSippServer, type SippProcess } from './sipp.js';

export interface FailoverPeers {
  /** The certificate of tls.ORIGIN. */
  readonly right: TestCertificate;
  /** A certificate that names only the wrong TLS server's IP: checking against the IP would accept it. */
  readonly wrong: TestCertificate;
  /** The TLS peers: the one with the wrong certificate, then the right one. */
  readonly tlsPeers: readonly SipPeer[];
  stop(): Promise<void>;
}

export async function startFailoverPeers(
  origin: string,
  hosts: ReturnType<typeof failoverHosts>,
  port: number,
): Promise<FailoverPeers> {
  const right = makeCertificate({ dns: [`tls.${origin}`] });
  const wrong = makeCertificate({ dns: ['other.example'], ip: [hosts.tlsWrong] });
  const ok = answeringScenario(200, 'OK');
  const servers: SippProcess[] = [];
  const peers: SipPeer[] = [];
  const stop = async (): Promise<void> => {
    for (const s of servers) await s.stop();
    for (const p of peers) await p.close();
  };
  try {
    servers.push(
      await startSippServer({ scenario: ok, address: hosts.live, port, transport: 'udp' }),
      await startSippServer({ scenario: ok, address: hosts.live, port, transport: 'tcp' }),
      await startSippServer({ scenario: ok, address: hosts.weighted, port, transport: 'udp' }),
      await startSippServer({
        scenario: answeringScenario(503, 'Service Unavailable', 30),
        address: hosts.busy,
        port,
        transport: 'udp',
      }),
      await startSippServer({
        scenario: answeringScenario(500, 'Server Internal Error'),
        address: hosts.error,
        port,
        transport: 'udp',
      }),
    );
    peers.push(
      await startSipPeer({ transport: 'tls', address: hosts.tlsWrong, port, behaviour: answer(200), tls: wrong }),
      await startSipPeer({ transport: 'tls', address: hosts.tlsRight, port, behaviour: answer(200), tls: right }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { right, wrong, tlsPeers: peers, stop };
}
