/**
 * sip-failover: where does a request for sip:bob@biloxi.example go, and what happens when the
 * servers fail? Resolves the URI with RFC 3263 (NAPTR, SRV, A/AAAA in one round trip), walks
 * the failover cursor through simulated outcomes (a 503 with Retry-After, a server that never
 * answers), and shows the penalty box sending later requests elsewhere until it expires.
 *
 * Time is a clock this program moves by hand, so the output is the same on every run.
 * Run it through its test (`npx vitest run test/sip-failover.test.ts` in examples/), or with
 * node after a build.
 */
import { fileURLToPath } from 'node:url';
import { DnsCore, ZoneResolver, seededRandom, withCache, type Clock } from '@dnscore/core';
import { SipLocator, type SipAttempt, type TryOutcome } from '@dnscore/sip';

const ZONE = fileURLToPath(new URL('../zones/biloxi.example.zone', import.meta.url));

/** What each server does in this story: sip2 is overloaded, sip1 is down, backup answers. */
const BEHAVIOUR: Readonly<Record<string, TryOutcome>> = {
  'sip2.biloxi.example': { type: 'response', status: 503, retryAfter: 120 },
  'sip1.biloxi.example': { type: 'timeout' },
  'backup.biloxi.example': { type: 'response', status: 200 },
};

export async function main(print: (line: string) => void = console.log): Promise<void> {
  let now = Date.UTC(2026, 10, 29, 12, 0, 0);
  const clock: Clock = { now: () => now };
  const core = new DnsCore([withCache(new ZoneResolver({ files: [ZONE] }), { clock })], { random: seededRandom(2026) });
  const locator = new SipLocator(core, { clock });

  const resolution = await locator.resolve('sip:bob@biloxi.example');
  print(
    `sip:bob@biloxi.example -> ${resolution.transport?.toUpperCase()} by rule ${resolution.rule}, ` +
      `${resolution.roundTrips} round trip(s)`,
  );
  for (const t of resolution.targets)
    print(`  ${t.host} ${t.address}:${t.port} priority ${t.priority} weight ${t.weight}`);

  const describe = (attempt: SipAttempt): string =>
    attempt.target.host +
    (attempt.penalized ? ' (in the penalty box)' : '') +
    (attempt.pinned ? ' (Call-ID affinity)' : '');

  print('');
  print('INVITE, Call-ID call-1:');
  const invite = locator.cursor('sip:bob@biloxi.example', { callId: 'call-1', method: 'INVITE' });
  for (let attempt = await invite.next(); attempt; attempt = await invite.next()) {
    const outcome = BEHAVIOUR[attempt.target.host]!;
    const verdict = invite.report(attempt, outcome);
    const what =
      outcome.type === 'response'
        ? `${outcome.status}${outcome.retryAfter ? ` Retry-After ${outcome.retryAfter}` : ''}`
        : `no response within ${attempt.timeoutMs} ms`;
    print(`  try ${attempt.index + 1}: ${describe(attempt)} -> ${what} -> ${verdict}`);
    if (verdict === 'success') break;
  }

  const showBox = (): void => {
    const entries = locator.penaltyBox.entries();
    if (entries.length === 0) print('  penalty box: empty');
    for (const e of entries) {
      const where = `${e.transport} ${e.address}:${e.port}`;
      print(`  penalty box: ${where} for ${(e.until - now) / 1000} s more (${e.reason}: ${e.detail})`);
    }
  };
  showBox();

  const firstTry = async (label: string, callId: string): Promise<void> => {
    const attempt = await locator.cursor('sip:bob@biloxi.example', { callId }).next();
    print(`${label}: first try ${describe(attempt!)}`);
  };

  print('');
  await firstTry('OPTIONS, Call-ID call-2, at once', 'call-2');
  await firstTry('BYE, Call-ID call-1, at once', 'call-1');

  now += 61_000;
  print('');
  print('61 s later:');
  showBox();
  await firstTry('OPTIONS, Call-ID call-3', 'call-3');

  now += 60_000;
  print('');
  print('121 s later:');
  showBox();
  await firstTry('OPTIONS, Call-ID call-4', 'call-4');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
