import { DnsCore, ZoneResolver, seededRandom } from '@dnscore/core';
import { SipLocator, type SipTarget, type TryOutcome } from '@dnscore/sip';

export async function example(zoneFile: string, send: (target: SipTarget) => Promise<TryOutcome>): Promise<string[]> {
  const core = new DnsCore([new ZoneResolver({ files: [zoneFile] })], { random: seededRandom(1) });
  const locator = new SipLocator(core); // transports udp, tcp, tls; IPv4 and IPv6

  // Where does a request for sip:bob@biloxi.example go? NAPTR, SRV, A/AAAA: one round trip.
  const resolution = await locator.resolve('sip:bob@biloxi.example');
  const lines = resolution.targets.map(
    (t) => `${t.transport} ${t.address}:${t.port} priority ${t.priority} weight ${t.weight}`,
  );

  // Walk the targets: a 503 or a dead server moves on and goes to the penalty box.
  const cursor = locator.cursor('sip:bob@biloxi.example', { callId: 'a84b4c76e66710' });
  for (let attempt = await cursor.next(); attempt; attempt = await cursor.next()) {
    const verdict = cursor.report(attempt, await send(attempt.target));
    lines.push(`${attempt.target.host}: ${verdict}`);
    if (verdict === 'success') break;
  }
  return lines;
}
