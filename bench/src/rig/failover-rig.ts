/**
 * The SIP servers of the failover part, on 127.0.9.x (test files use 127.0.6.x and others),
 * all on one port, played by the repository's node SIP peer (test/support/sip-peer.ts), and a
 * zone served by its own nsd in which each scenario's one SRV target has two addresses: the
 * misbehaving server first, the live one second (nsd keeps the order of an RRset).
 */
import { startSipPeer, answer, silent, type SipPeer } from '../support/sip-peer.js';
import { freePort, startNsd, type NsdServer } from './support.js';

export const FAILOVER_ZONE = 'failover.example';
export const LIVE = '127.0.9.9';

export interface Scenario {
  readonly id: 'silent-udp' | 'busy-udp' | 'refused-tcp' | 'silent-tcp';
  readonly label: string;
  readonly transport: 'udp' | 'tcp';
  /** The first address, the one that misbehaves. */
  readonly dead: string;
  /** Whether the npm `sip` stack waits for its 32-second Timer B/F here. */
  readonly timerB: boolean;
}

export const SCENARIOS: readonly Scenario[] = [
  { id: 'silent-udp', label: '(a) silent (UDP)', transport: 'udp', dead: '127.0.9.1', timerB: true },
  { id: 'busy-udp', label: '(b) answering 503 (UDP)', transport: 'udp', dead: '127.0.9.2', timerB: false },
  { id: 'refused-tcp', label: '(c) refusing TCP', transport: 'tcp', dead: '127.0.9.3', timerB: false },
  { id: 'silent-tcp', label: '(d) accepting TCP, then silent', transport: 'tcp', dead: '127.0.9.4', timerB: true },
];

export function scenarioUri(s: Scenario): string {
  return `sip:svc@${s.id}.${FAILOVER_ZONE};transport=${s.transport}`;
}

export interface FailoverRig {
  readonly nsd: NsdServer;
  readonly port: number;
  /** Peers by address and transport: "127.0.9.9 udp". */
  readonly peers: ReadonlyMap<string, SipPeer>;
  stop(): Promise<void>;
}

function zoneText(port: number): string {
  const lines = [
    `$ORIGIN ${FAILOVER_ZONE}.`,
    '$TTL 3600',
    '@ IN SOA ns1 hostmaster 2026120101 7200 900 1209600 300',
    '  IN NS ns1',
    'ns1 IN A 203.0.113.53',
  ];
  for (const s of SCENARIOS) {
    lines.push(
      `_sip._${s.transport}.${s.id} IN SRV 10 0 ${port} servers.${s.id}`,
      `servers.${s.id} IN A ${s.dead}`,
      `servers.${s.id} IN A ${LIVE}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function startPeers(port: number): Promise<Map<string, SipPeer>> {
  const peers = new Map<string, SipPeer>();
  const start = async (
    address: string,
    transport: 'udp' | 'tcp',
    behaviour: Parameters<typeof startSipPeer>[0]['behaviour'],
  ): Promise<void> => {
    peers.set(`${address} ${transport}`, await startSipPeer({ address, port, transport, behaviour }));
  };
  try {
    await start(LIVE, 'udp', answer(200));
    await start(LIVE, 'tcp', answer(200));
    await start('127.0.9.1', 'udp', silent);
    await start('127.0.9.2', 'udp', answer(503));
    // 127.0.9.3: nothing listens, so a TCP connection is refused.
    await start('127.0.9.4', 'tcp', silent);
    return peers;
  } catch (error) {
    for (const peer of peers.values()) await peer.close();
    throw error;
  }
}

export async function startFailoverRig(): Promise<FailoverRig> {
  let peers: Map<string, SipPeer> | undefined;
  let port = 0;
  for (let attempt = 0; !peers; attempt++) {
    port = await freePort(LIVE);
    try {
      peers = await startPeers(port);
    } catch (error) {
      if (attempt >= 10) throw error;
    }
  }
  let nsd: NsdServer;
  try {
    nsd = await startNsd([{ name: FAILOVER_ZONE, text: zoneText(port) }]);
  } catch (error) {
    for (const peer of peers.values()) await peer.close();
    throw error;
  }
  return {
    nsd,
    port,
    peers,
    stop: async () => {
      for (const peer of peers.values()) await peer.close();
      await nsd.stop();
    },
  };
}

/** How many requests with this Call-ID a peer got. */
export function received(peer: SipPeer | undefined, callId: string): number {
  return peer ? peer.requests.filter((r) => r.headers['call-id'] === callId).length : 0;
}
