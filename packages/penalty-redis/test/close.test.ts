/**
 * close() leaves the process free to exit, whatever state the connections are in: synced, with
 * commands waiting on a paused Redis, still connecting (close() at once after start()), or
 * facing a server that never answers. Each case runs in a
 * process of its own (the built package, dist) that must end by itself once close() resolved.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopOnExit } from '../../../test/support/cleanup.js';
import { redisInstalled, startRedis, type RedisServer } from './support/fleet.js';

const built = existsSync(new URL('../dist/index.js', import.meta.url));

/** Marks 50 targets, waits as `mode` says, closes, and prints the stats. Nothing else ends it. */
const SCRIPT = `
import { createClient } from 'redis';
import { RedisPenaltyStore } from '@dnscore/penalty-redis';
const [mode, url] = process.argv.slice(1);
const store = new RedisPenaltyStore({ url, prefix: 'close:', log: () => {}, commandTimeoutMs: 60_000 }).start();
if (mode === 'synced' || mode === 'paused') await store.whenSynced();
if (mode === 'paused') {
  const raw = createClient({ url });
  await raw.connect();
  await raw.sendCommand(['CLIENT', 'PAUSE', '3000', 'ALL']);
  raw.destroy();
}
for (let i = 1; i <= 50; i++)
  store.mark(\`udp 192.0.2.\${i} 5060\`, {
    transport: 'udp', address: \`192.0.2.\${i}\`, port: 5060, until: Date.now() + 60_000, reason: 'timeout', detail: '',
  });
await store.close();
console.log(JSON.stringify({ closed: mode, synced: store.synced }));
`;

describe.runIf(redisInstalled() && built)('close() and the process exit', () => {
  let redis: RedisServer;
  const sockets: Socket[] = [];
  const silent = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.resume();
  });
  beforeAll(async () => {
    redis = await startRedis();
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await redis?.stop();
  });

  it.each(['synced', 'paused', 'connecting', 'silent'])('lets a process end once closed (%s)', async (mode) => {
    const silentUrl = `redis://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const { code, output } = await run(mode, mode === 'silent' ? silentUrl : redis.url);
    const printed = `${JSON.stringify({ closed: mode, synced: false })}\n`;
    expect({ code, output }).toEqual({ code: 0, output: printed });
  });
});

/** Runs SCRIPT; a process still alive 10 s later is killed (code null: the test fails). */
function run(mode: string, url: string): Promise<{ code: number | null; output: string }> {
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, mode, url], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.pid !== undefined) child.once('exit', stopOnExit(child.pid));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
