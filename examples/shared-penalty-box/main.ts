/**
 * shared-penalty-box: two SIP senders of one fleet share their penalty box through Redis. The
 * next hop sip1 is dead (nothing answers on its port). Sender A pays the per-target timer to find
 * out and boxes it; the mark reaches sender B by Redis pub/sub, so B's first request goes
 * straight to sip2. Each sender reads its box locally: Redis is never on the request's path.
 * In production each sender is its own process (packages/penalty-redis/test/fleet.test.ts runs
 * them so); here both live in one for a short example.
 * Run it through its test (`npx vitest run test/shared-penalty-box.test.ts` in examples/, which
 * starts redis-server), or with node after a build: `node dist/shared-penalty-box/main.js redis://127.0.0.1:6379`.
 */
import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { DnsCore, ZoneResolver } from '@dnscore/core';
import { RedisPenaltyStore } from '@dnscore/penalty-redis';
import { SipLocator, destinationKey } from '@dnscore/sip';
import { SipBridge, SipEndpoint, loadSipStack, type SipBridge as Bridge, type SipStack } from '@dnscore/sip-bridge';

export async function main(redisUrl: string, print: (line: string) => void = console.log): Promise<void> {
  const sip = await loadSipStack();
  const deadPort = await freeUdpPort(); // nothing listens there: silence, as from a dead host
  const healthy = await SipEndpoint.create(sip, {
    address: '127.0.0.1',
    port: await freeUdpPort(),
    tcpListener: false,
    onRequest: (request) => void healthy.respond(sip.makeResponse(request, 200, 'OK')),
  });
  const zone = `$ORIGIN example.test.
$TTL 300
@ IN SOA ns hostmaster 1 3600 600 86400 300
_sip._udp IN SRV 10 0 ${deadPort} sip1
_sip._udp IN SRV 20 0 ${healthy.port} sip2
sip1 IN A 127.0.0.1
sip2 IN A 127.0.0.1
`;
  const a = await sender(sip, zone, redisUrl);
  const b = await sender(sip, zone, redisUrl);
  const name = (port: number): string => (port === deadPort ? 'sip1' : 'sip2');
  try {
    for (const [who, { bridge }] of [
      ['A', a],
      ['B', b],
    ] as const) {
      if (who === 'B') {
        // The mark travels in the background (well under a millisecond on loopback); wait for it.
        const key = destinationKey({ transport: 'udp', address: '127.0.0.1', port: deadPort });
        for (let i = 0; i < 500 && !b.store.get(key); i++) await new Promise((r) => setTimeout(r, 2));
        const entry = b.store.get(key);
        print(`sender B's box, from Redis: ${entry ? `sip1 (${entry.reason}: ${entry.detail})` : 'empty'}`);
      }
      const report = await bridge.send(options(who), () => {});
      print(`sender ${who}, OPTIONS sip:bob@example.test:`);
      for (const [i, t] of report.attempts.entries()) {
        const skipped = t.skipped.map((e) => `, skipped ${name(e.port)}`).join('');
        print(
          `  try ${i + 1}: ${name(t.target.port)} -> ${t.outcome}${t.status === null ? '' : ` ${t.status}`}${skipped}`,
        );
      }
    }
  } finally {
    for (const s of [a, b]) {
      s.bridge.close();
      await s.store.close();
    }
    healthy.close();
  }
}

/** One sender of the fleet: its own locator and bridge, its box shared through Redis. */
async function sender(sip: SipStack, zone: string, url: string): Promise<{ bridge: Bridge; store: RedisPenaltyStore }> {
  const store = new RedisPenaltyStore({ url, prefix: 'example-fleet:' }).start();
  await store.whenSynced(); // a sender that joins late starts from what the fleet knows
  const locator = new SipLocator(new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })]), {
    ipv6: false,
    targetTimeoutMs: 500,
    penaltyStore: store,
    // OPTIONS here: box a silent next hop for a minute (by default only an INVITE's silence is boxed).
    penalty: { nonInviteTimeoutMs: 60_000 },
  });
  const bridge = await SipBridge.create(sip, locator, {
    address: '127.0.0.1',
    port: await freeUdpPort(),
    tcpListener: false,
  });
  return { bridge, store };
}

function options(who: string) {
  return {
    method: 'OPTIONS',
    uri: 'sip:bob@example.test',
    headers: {
      to: { uri: 'sip:bob@example.test' },
      from: { uri: 'sip:alice@127.0.0.1', params: { tag: `sender-${who}` } },
      'call-id': `shared-penalty-box-${who}@127.0.0.1`,
      cseq: { method: 'OPTIONS', seq: 1 },
    },
  };
}

function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main(process.argv[2] ?? 'redis://127.0.0.1:6379');
}
