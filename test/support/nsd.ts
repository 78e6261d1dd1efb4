/**
 * Starts nsd, the authoritative server, on loopback for a test, and stops it by PID.
 * What nsd on loopback needs: as root nsd needs `username: ""`,
 * it daemonizes and exits 0 even when the daemon dies, and it is ready when it answers SOA.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stopOnExit } from './cleanup.js';
import { freePort, hasIpv6Loopback } from './ports.js';

const run = promisify(execFile);

export interface NsdZone {
  /** Zone name without the trailing dot, e.g. "biloxi.example". */
  readonly name: string;
  /** Master-file text. */
  readonly text: string;
}

export interface NsdOptions {
  /** Loopback address to bind (default 127.0.0.1). */
  readonly address?: string;
  /** Also bind ::1 on the same port when loopback has it (default false). */
  readonly ipv6?: boolean;
  readonly port?: number;
}

export interface NsdServer {
  readonly address: string;
  readonly port: number;
  /** "127.0.0.1:5300" */
  readonly endpoint: string;
  /** Whether ::1 is bound too. */
  readonly ipv6: boolean;
  readonly dir: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export function nsdInstalled(): boolean {
  return existsSync('/usr/sbin/nsd') || existsSync('/usr/bin/nsd');
}

/**
 * Starts nsd on a free port. Another process may take the port between the check and nsd's
 * bind (tests run side by side on a shared machine): nsd then fails to start, and a new port
 * is tried, three times at most. A port given in `options` is tried once.
 */
export async function startNsd(zones: readonly NsdZone[], options: NsdOptions = {}): Promise<NsdServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNsdOnce(zones, options);
    } catch (error) {
      if (options.port !== undefined || attempt >= 3) throw error;
    }
  }
}

async function startNsdOnce(zones: readonly NsdZone[], options: NsdOptions): Promise<NsdServer> {
  const address = options.address ?? '127.0.0.1';
  const port = options.port ?? (await freePort(address));
  const ipv6 = (options.ipv6 ?? false) && hasIpv6Loopback();
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-nsd-'));
  for (const zone of zones) writeFileSync(join(dir, `${zone.name}.zone`), zone.text);
  const conf = [
    'server:',
    `  ip-address: ${address}@${port}`,
    ...(ipv6 ? [`  ip-address: ::1@${port}`] : []),
    '  username: ""',
    '  chroot: ""',
    `  zonesdir: "${dir}"`,
    '  database: ""',
    `  zonelistfile: "${dir}/zone.list"`,
    `  xfrdfile: "${dir}/xfrd.state"`,
    `  xfrdir: "${dir}"`,
    `  pidfile: "${dir}/nsd.pid"`,
    `  logfile: "${dir}/nsd.log"`,
    '  server-count: 1',
    '  reuseport: no',
    '  verbosity: 1',
    // Response rate limiting counts every wildcard or NODATA answer of a zone as one flow and
    // drops the excess: a load test from one address would look like an attack.
    '  rrl-ratelimit: 0',
    '  rrl-whitelist-ratelimit: 0',
    'remote-control:',
    '  control-enable: no',
    ...zones.flatMap((zone) => ['zone:', `  name: "${zone.name}"`, `  zonefile: "${zone.name}.zone"`]),
  ].join('\n');
  const confFile = join(dir, 'nsd.conf');
  writeFileSync(confFile, `${conf}\n`);
  try {
    await run(nsdBinary(), ['-c', confFile]);
  } catch (error) {
    const why = log(dir);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`nsd did not start on ${address}@${port}: ${why}`, { cause: error });
  }

  const pid = await waitForPid(join(dir, 'nsd.pid'), dir);
  const release = stopOnExit(pid, dir);
  const server: NsdServer = {
    address,
    port,
    endpoint: `${address}:${port}`,
    ipv6,
    dir,
    pid,
    stop: async () => {
      await stopNsd(pid, dir);
      release();
    },
  };
  try {
    await waitUntilAnswering(server, zones[0]?.name ?? '.');
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

function nsdBinary(): string {
  return existsSync('/usr/sbin/nsd') ? '/usr/sbin/nsd' : 'nsd';
}

async function waitForPid(pidFile: string, dir: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      if (pid > 0 && alive(pid)) return pid;
    }
    await sleep(20);
  }
  throw new Error(`nsd did not start: ${log(dir)}`);
}

async function waitUntilAnswering(server: NsdServer, zone: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (!alive(server.pid)) throw new Error(`nsd died: ${log(server.dir)}`);
    try {
      const { stdout } = await run('dig', [
        '+norec',
        '+time=1',
        '+tries=1',
        `@${server.address}`,
        '-p',
        String(server.port),
        zone,
        'SOA',
      ]);
      if (/status: (NOERROR|NXDOMAIN|REFUSED)/.test(stdout)) return;
    } catch {
      // not listening yet
    }
    await sleep(30);
  }
  throw new Error(`nsd never answered on ${server.endpoint}: ${log(server.dir)}`);
}

/** TERM to the pid in the pidfile (xfrd, which exits last and holds the port), then wait for it. */
async function stopNsd(pid: number, dir: string): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
  for (let i = 0; i < 150 && alive(pid); i++) await sleep(20);
  if (alive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function log(dir: string): string {
  try {
    return readFileSync(join(dir, 'nsd.log'), 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '(no log)';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Checks a zone with nsd-checkzone; returns its complaint or undefined. */
export function checkZone(name: string, file: string): string | undefined {
  try {
    execFileSync('nsd-checkzone', [name, file], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}
