/**
 * The unbound daemon as the caching resolver that node:dns users would put on localhost: run
 * in the foreground as the current user, from a scratch directory, on a loopback port, with
 * the bench's zones stubbed to nsd and every other name refused (the root hints are never
 * used), no validation, no remote control. Stopped by PID.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sleep } from '../stats.js';
import { freePort, stopOnExit } from './support.js';

const run = promisify(execFile);
export const UNBOUND_DAEMON = '/usr/sbin/unbound';

export interface UnboundDaemon {
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

export function unboundDaemonInstalled(): boolean {
  return existsSync(UNBOUND_DAEMON);
}

/** The daemon, asking `upstream` for `zones` (stub zones) and refusing every other name. */
export async function startUnboundDaemon(
  upstream: { address: string; port: number },
  zones: readonly string[],
): Promise<UnboundDaemon> {
  const probeZone = zones[0] ?? '.';
  const port = await freePort('127.0.0.1');
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-bench-unbound-'));
  const conf = [
    'server:',
    `  interface: 127.0.0.1@${port}`,
    `  port: ${port}`,
    '  do-ip6: no',
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    `  pidfile: "${dir}/unbound.pid"`,
    `  logfile: "${dir}/unbound.log"`,
    '  use-syslog: no',
    '  verbosity: 0',
    '  num-threads: 1',
    '  so-reuseport: no',
    '  do-not-query-localhost: no',
    '  module-config: "iterator"',
    '  qname-minimisation: no',
    '  prefetch: no',
    '  access-control: 127.0.0.0/8 allow',
    // Nothing leaves loopback: every name outside the bench's zones is refused locally.
    '  local-zone: "." refuse',
    ...zones.map((zone) => `  local-zone: "${zone}." transparent`),
    'remote-control:',
    '  control-enable: no',
    ...zones.flatMap((zone) => [
      'stub-zone:',
      `  name: "${zone}."`,
      `  stub-addr: ${upstream.address}@${upstream.port}`,
    ]),
  ];
  const file = join(dir, 'unbound.conf');
  writeFileSync(file, `${conf.join('\n')}\n`);
  const child = spawn(UNBOUND_DAEMON, ['-d', '-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(stopOnExit(child.pid!, dir));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid!, 'SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAnswering(
      port,
      probeZone,
      () => child.exitCode !== null,
      () => `${stderr} ${log(dir)}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint: `127.0.0.1:${port}`, port, pid: child.pid!, stop };
}

async function waitUntilAnswering(port: number, zone: string, dead: () => boolean, why: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (dead()) throw new Error(`unbound exited: ${why()}`);
    try {
      const { stdout } = await run('dig', ['+time=1', '+tries=1', '@127.0.0.1', '-p', String(port), zone, 'SOA']);
      if (/status: NOERROR/.test(stdout)) return;
    } catch {
      // not listening yet
    }
    await sleep(30);
  }
  throw new Error(`unbound never answered on 127.0.0.1:${port}: ${why()}`);
}

function log(dir: string): string {
  try {
    return readFileSync(join(dir, 'unbound.log'), 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '';
  }
}
