/**
 * SIP senders in their own processes, one Redis, a dead next hop: the first pays the per-target
 * timer and boxes it; the second, on its next request, passes it over at once, and so does a
 * third started afterwards (it rebuilds from Redis before its first request). Needs the built
 * packages (dist): the senders run outside vitest.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopOnExit } from '../../../test/support/cleanup.js';
import { answer, startSipPeer, type SipPeer } from '../../../test/support/sip-peer.js';
import { freePort, redisInstalled, startRedis, type RedisServer } from './support/fleet.js';

/** 127.0.7.10-19: this file's addresses. */
const DEAD = '127.0.7.10';
const LIVE = '127.0.7.11';
const SENDERS = ['127.0.7.12', '127.0.7.13', '127.0.7.14'];
const built = existsSync(new URL('../dist/index.js', import.meta.url));

interface Sender {
  readonly child: ChildProcess;
  send(callId: string): Promise<SenderReport>;
  /** True once the sender's own box holds `key` (polled there, for at most 5 s). */
  waitFor(key: string): Promise<boolean>;
}
interface SenderReport {
  readonly attempts: { host: string; outcome: string; skipped: Record<string, unknown>[] }[];
  readonly answeredBy: string | null;
}

describe.runIf(redisInstalled() && built)('bridges in three processes sharing the penalty box', () => {
  let redis: RedisServer;
  let peer: SipPeer;
  let dir: string;
  let zoneFile: string;
  const senders: Sender[] = [];
  const configFor = async (address: string) => ({
    redisUrl: redis.url,
    prefix: 'fleet:',
    zoneFile,
    address,
    port: await freePort(address),
    uri: 'sip:bob@example.test',
  });

  beforeAll(async () => {
    redis = await startRedis();
    const port = await freePort(LIVE);
    dir = mkdtempSync(join(tmpdir(), 'dnscore-fleet-'));
    zoneFile = join(dir, 'example.test.zone');
    writeFileSync(
      zoneFile,
      `$ORIGIN example.test.
$TTL 300
@ IN SOA ns hostmaster 1 3600 600 86400 300
_sip._udp IN SRV 10 0 ${port} dead
_sip._udp IN SRV 20 0 ${port} live
dead IN A ${DEAD}
live IN A ${LIVE}
`,
    );
    peer = await startSipPeer({ transport: 'udp', address: LIVE, port, behaviour: answer(200) });
    for (const address of SENDERS.slice(0, 2)) senders.push(await startSender(await configFor(address)));
  });
  afterAll(async () => {
    for (const sender of senders) sender.child.stdin?.end('quit\n');
    await Promise.all(senders.map((s) => exited(s.child)));
    await peer?.close();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the second sender, and a third that joins later, skip the next hop the first found dead', async () => {
    const first = await senders[0]!.send('first@fleet');
    expect(first.attempts.map((a) => `${a.host} ${a.outcome}`)).toEqual([
      'dead.example.test timeout',
      'live.example.test response',
    ]);
    expect(first.answeredBy).toBe('live.example.test');
    // The mark travels in the background: the test waits until the second sender's box has it.
    expect(await senders[1]!.waitFor(`udp ${DEAD} ${peer.port}`)).toBe(true);

    const second = await senders[1]!.send('second@fleet');
    expect(second.attempts.map((a) => `${a.host} ${a.outcome}`)).toEqual(['live.example.test response']);
    expect(second.attempts[0]!.skipped).toEqual([
      { address: DEAD, port: peer.port, reason: 'timeout', detail: 'no response to OPTIONS within 500 ms' },
    ]);

    // A third process joins after the fact: its rebuild (SCAN) brings the entry before its first request.
    senders.push(await startSender(await configFor(SENDERS[2]!)));
    const third = await senders[2]!.send('third@fleet');
    expect(third.attempts.map((a) => `${a.host} ${a.outcome}`)).toEqual(['live.example.test response']);
    expect(third.attempts[0]!.skipped).toEqual(second.attempts[0]!.skipped);
    expect(peer.requests.map((r) => r.headers['call-id'])).toEqual(['first@fleet', 'second@fleet', 'third@fleet']);
  });
});

/** Starts test/support/sender.mjs and waits for its "ready" line. */
async function startSender(config: Record<string, unknown>): Promise<Sender> {
  const script = new URL('./support/sender.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [script, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'inherit'] });
  // A sender still starting (waiting for Redis) never reads stdin: stopped with the test process.
  if (child.pid !== undefined) child.once('exit', stopOnExit(child.pid));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the sender exited');
    return JSON.parse(value) as Record<string, unknown>;
  };
  expect(await next()).toEqual({ ready: true });
  return {
    child,
    send: async (callId) => {
      child.stdin!.write(`send ${callId}\n`);
      return (await next()) as unknown as SenderReport;
    },
    waitFor: async (key) => {
      child.stdin!.write(`wait ${key}\n`);
      return (await next()).boxed === true;
    },
  };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
