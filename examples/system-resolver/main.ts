/**
 * The system resolver against explicit nameservers: one question, a query set asked in
 * parallel, and a cancelled question. Run by examples/test/system-resolver.test.ts against nsd
 * on loopback; after a build: `node dist/system-resolver/main.js 127.0.0.1:5300`.
 */
import { pathToFileURL } from 'node:url';
import { DnsCore, formatRecord, seededRandom, type DnsError } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';

export async function main(nameservers: readonly string[], print: (line: string) => void = console.log): Promise<void> {
  // Where to ask (the nameservers replace resolv.conf's), then how.
  const system = new SystemResolver({ nameservers: [...nameservers] }, { timeoutMs: 2000, attempts: 2 });
  // A seeded random source makes the SRV weighted draw repeatable.
  const core = new DnsCore([system], { random: seededRandom(2026) });
  try {
    const srv = await core.resolve('_sip._udp.biloxi.example', 'SRV');
    print(`${srv.query.name} ${srv.rcodeName} via ${srv.resolver}, secure=${srv.secure}`);
    for (const record of srv.records) print(`  ${formatRecord(record).replaceAll('\t', ' ')}`);

    const outcomes = await core
      .querySet()
      .add('biloxi.example', 'NAPTR')
      .add('sip1.biloxi.example', 'A')
      .add('nothere.biloxi.example', 'A')
      .resolve();
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        print(`${outcome.query.name}: error ${(outcome.error as DnsError).code}`);
        continue;
      }
      const { result } = outcome;
      print(
        `${result.query.name} ${result.rcodeName}: ${result.records.length} record(s), negative TTL ` +
          `${result.negativeTtl}`,
      );
    }

    const controller = new AbortController();
    const pending = core.resolve('sip2.biloxi.example', 'A', { signal: controller.signal });
    controller.abort();
    await pending.catch((error: DnsError) => print(`sip2.biloxi.example: cancelled (${error.code})`));

    const { queries, udpSent, tcpSent, timeouts, wrongId, wrongSource, wrongQuestion } = system.stats;
    const dropped = wrongId + wrongSource + wrongQuestion;
    print(
      `stats: ${queries} queries, ${udpSent + tcpSent} sent, ${timeouts} timeouts, ${dropped} spoofed answers dropped`,
    );
  } finally {
    await core.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
