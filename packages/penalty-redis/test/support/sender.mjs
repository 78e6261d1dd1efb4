// A SIP sender in its own process, for the fleet test: a sip-bridge bridge whose locator's
// penalty box is a RedisPenaltyStore. Plain JavaScript on the built packages (dist), because a
// child process runs outside vitest. Commands on stdin, one JSON line per answer on stdout:
// "send <call-id>" -> the report's tries; "wait <transport> <address> <port>" -> whether the box
// holds it within 5 s; "quit" (or stdin's end) -> closes and exits.
import { createInterface } from 'node:readline';
import { DnsCore, ZoneResolver } from '@dnscore/core';
import { RedisPenaltyStore } from '@dnscore/penalty-redis';
import { SipLocator } from '@dnscore/sip';
import { SipBridge } from '@dnscore/sip-bridge';
import sip from 'sip';

const { redisUrl, prefix, zoneFile, address, port, uri } = JSON.parse(process.argv[2]);
const store = new RedisPenaltyStore({ url: redisUrl, prefix, log: () => {} }).start();
await store.whenSynced();
const core = new DnsCore([new ZoneResolver({ files: [zoneFile] })]);
// OPTIONS are this test's requests: box a silent one (the default boxes only an INVITE's silence).
const locator = new SipLocator(core, {
  targetTimeoutMs: 500,
  penaltyStore: store,
  penalty: { nonInviteTimeoutMs: 60_000 },
});
const bridge = await SipBridge.create(sip, locator, { address, port });
const say = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
say({ ready: true });

let seq = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, callId, ...rest] = line.trim().split(' ');
  if (command === 'quit') break;
  if (command === 'wait') {
    const key = [callId, ...rest].join(' ');
    const end = Date.now() + 5_000;
    while (!store.get(key) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
    say({ boxed: store.get(key) !== undefined });
    continue;
  }
  if (command !== 'send') continue;
  const report = await bridge.send(
    {
      method: 'OPTIONS',
      uri,
      headers: {
        to: { uri },
        from: { uri: `sip:fleet@${address}`, params: { tag: `t${process.pid}` } },
        'call-id': callId,
        cseq: { method: 'OPTIONS', seq: ++seq },
      },
    },
    () => {},
  );
  say({
    attempts: report.attempts.map((a) => ({
      host: a.target.host,
      outcome: a.outcome,
      skipped: a.skipped.map((e) => ({ address: e.address, port: e.port, reason: e.reason, detail: e.detail })),
    })),
    answeredBy: report.answeredBy?.host ?? null,
  });
}
bridge.close();
await store.close();
process.exit(0);
