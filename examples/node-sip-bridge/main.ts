/**
 * node-sip-bridge: an application on the npm `sip` stack sends its requests through dnscore.
 * The bridge resolves the Request-URI with RFC 3263 (here SRV: sip1 first, sip2 second), sends
 * each try as a new `sip` client transaction, fails over at once on a 503, and remembers the
 * overloaded server in the penalty box, so the next request goes straight to the healthy one.
 * Two stand-in SIP servers on 127.0.0.1 (built from the same `sip` pieces) play the far side.
 * Run it through its test (`npx vitest run test/node-sip-bridge.test.ts` in examples/).
 */
import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { DnsCore, ZoneResolver } from '@dnscore/core';
import { SipLocator } from '@dnscore/sip';
import { SipBridge, SipEndpoint, loadSipStack, type SipRequest, type SipStack } from '@dnscore/sip-bridge';

/** A stand-in SIP server that answers every request with `status`. */
async function server(
  sip: SipStack,
  status: number,
  reason: string,
  headers: Record<string, string> = {},
): Promise<SipEndpoint> {
  const port = await freeUdpPort();
  const endpoint: SipEndpoint = await SipEndpoint.create(sip, {
    address: '127.0.0.1',
    port,
    tcpListener: false,
    onRequest: (request) => void endpoint.respond(sip.makeResponse(request, status, reason, { headers })),
  });
  return endpoint;
}

export async function main(print: (line: string) => void = console.log): Promise<void> {
  const sip = await loadSipStack();
  const overloaded = await server(sip, 503, 'Service Unavailable', { 'retry-after': '120' });
  const healthy = await server(sip, 200, 'OK');
  // The zone says: sip1 first (priority 10), sip2 second (priority 20).
  const zone = `$ORIGIN example.test.
$TTL 300
@ IN SOA ns hostmaster 1 3600 600 86400 300
_sip._udp IN SRV 10 0 ${overloaded.port} sip1
_sip._udp IN SRV 20 0 ${healthy.port} sip2
sip1 IN A 127.0.0.1
sip2 IN A 127.0.0.1
`;
  const locator = new SipLocator(new DnsCore([new ZoneResolver({ zones: [{ text: zone }] })]), {
    ipv6: false,
    targetTimeoutMs: 500,
  });
  const bridge = await SipBridge.create(sip, locator, {
    address: '127.0.0.1',
    port: await freeUdpPort(),
    tcpListener: false,
  });
  const name = (port: number): string => (port === overloaded.port ? 'sip1' : 'sip2');
  try {
    for (const n of [1, 2]) {
      // The application builds its request as for sip.send(); the Request-URI is never rewritten.
      const request: SipRequest = {
        method: 'OPTIONS',
        uri: 'sip:bob@example.test',
        headers: {
          to: { uri: 'sip:bob@example.test' },
          from: { uri: 'sip:alice@127.0.0.1', params: { tag: `example${n}` } },
          'call-id': `node-sip-bridge-${n}@127.0.0.1`,
          cseq: { method: 'OPTIONS', seq: n },
        },
      };
      print(`OPTIONS ${request.uri} #${n}:`);
      const report = await bridge.send(request, (response) =>
        print(`  the application gets ${response.status} ${response.reason}`),
      );
      for (const [i, a] of report.attempts.entries())
        print(`  try ${i + 1}: ${name(a.target.port)} -> ${a.outcome}${a.status === null ? '' : ` ${a.status}`}`);
      print(`  answered by ${report.answeredBy ? name(report.answeredBy.port) : 'nobody'}`);
    }
    for (const e of locator.penaltyBox.entries()) {
      const left = Math.round((e.until - Date.now()) / 1000);
      print(`penalty box: ${name(e.port)} (${e.reason}: ${e.detail}), ${left} s or less`);
    }
  } finally {
    bridge.close();
    overloaded.close();
    healthy.close();
  }
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
  await main();
}
