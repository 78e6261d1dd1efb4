/**
 * Starts redis-server on loopback for a test, with no persistence (no RDB, no AOF, its own temp
 * dir), and stops it by PID, also when the test process exits or gets SIGINT/SIGTERM. `kill()`
 * and `restart()` let a test take Redis away mid-run and bring it back on the same port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopOnExit } from './cleanup.js';
import { freePort } from './ports.js';

export interface RedisOptions {
  readonly address?: string;
  readonly port?: number;
  /** Lines added to redis.conf, e.g. `user fleet on >secret ~fleet:* &fleet:* +@all`. */
  readonly config?: readonly string[];
  /** Serve TLS on the port instead of plain TCP (the files are PEM paths). */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
}

export interface RedisServer {
  readonly address: string;
  readonly port: number;
  /** "redis://127.0.0.1:6390" (rediss:// with TLS). */
  readonly url: string;
  readonly pid: number;
  readonly dir: string;
  /** SIGKILL, like a crash: no goodbye to clients. The dir stays for `restart()`. */
  kill(): Promise<void>;
  /** Starts a fresh, empty redis-server on the same address and port. */
  restart(): Promise<void>;
  /** SIGTERM (SIGKILL if it lingers), then removes the dir. */
  stop(): Promise<void>;
}

export function redisInstalled(): boolean {
  return existsSync('/usr/bin/redis-server') || existsSync('/usr/local/bin/redis-server');
}

export async function startRedis(options: RedisOptions = {}): Promise<RedisServer> {
  const address = options.address ?? '127.0.0.1';
  const port = options.port ?? (await freePort(address));
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-redis-'));
  const conf = [
    `bind ${address}`,
    options.tls ? 'port 0' : `port ${port}`,
    ...(options.tls
      ? [
          `tls-port ${port}`,
          `tls-cert-file ${options.tls.certFile}`,
          `tls-key-file ${options.tls.keyFile}`,
          'tls-auth-clients no',
        ]
      : []),
    'save ""',
    'appendonly no',
    `dir ${dir}`,
    'daemonize no',
    'protected-mode no',
    `logfile ${join(dir, 'redis.log')}`,
    ...(options.config ?? []),
  ].join('\n');
  const confFile = join(dir, 'redis.conf');
  writeFileSync(confFile, `${conf}\n`);

  let child = await launch(confFile, dir, address, port);
  const server: RedisServer = {
    address,
    port,
    url: `${options.tls ? 'rediss' : 'redis'}://${address}:${port}`,
    get pid() {
      return child.pid!;
    },
    dir,
    kill: () => terminate(child, 'SIGKILL'),
    restart: async () => {
      await terminate(child, 'SIGKILL');
      child = await launch(confFile, dir, address, port);
    },
    stop: async () => {
      await terminate(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

async function launch(confFile: string, dir: string, address: string, port: number): Promise<ChildProcess> {
  writeFileSync(join(dir, 'redis.log'), ''); // a restart must not read the last run's "Ready"
  const child = spawn('redis-server', [confFile], { stdio: 'ignore' });
  if (child.pid !== undefined) child.once('exit', stopOnExit(child.pid));
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server died: ${log(dir)}`);
    if (readyInLog(dir) && (await accepts(address, port))) return child;
    await sleep(20);
  }
  await terminate(child, 'SIGKILL');
  throw new Error(`redis-server never listened on ${address}:${port}: ${log(dir)}`);
}

/** Ready once it logs so (the port may be bound a moment earlier) and accepts a connection. */
function readyInLog(dir: string): boolean {
  return log(dir).includes('Ready to accept connections');
}

function accepts(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const lingering = await Promise.race([exited.then(() => false), sleep(3000).then(() => true)]);
  if (lingering) {
    child.kill('SIGKILL');
    await exited;
  }
}

function log(dir: string): string {
  try {
    return readFileSync(join(dir, 'redis.log'), 'utf8').slice(-2000);
  } catch {
    return '(no log)';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
