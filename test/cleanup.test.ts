/**
 * Servers started for a run are stopped when the run cannot stop them itself: a process that
 * started nsd (which daemonizes) and is then sent SIGTERM or SIGINT, or dies of an uncaught
 * error, leaves no nsd behind. The rig (test/support) is compiled as it is into a scratch
 * directory and run by a child node process, as the bench runs it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nsdInstalled } from './support/nsd.js';

const ZONE = '$ORIGIN cleanup.test.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\n@ IN NS ns\nns IN A 127.0.0.1\n';
let dir: string;
const leftovers: number[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dnscore-cleanup-'));
  const support = new URL('./support/', import.meta.url).pathname;
  const tsc = new URL('../node_modules/.bin/tsc', import.meta.url).pathname;
  execFileSync(tsc, [
    ...['--ignoreConfig', '--outDir', dir, '--rootDir', support, '--module', 'nodenext', '--target', 'es2022'],
    ...['--types', 'node', '--skipLibCheck', join(support, 'nsd.ts'), join(support, 'cleanup.ts')],
  ]);
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  // Starts nsd, reports its pid, then waits (for a signal) or fails (uncaught error).
  writeFileSync(
    join(dir, 'child.js'),
    `import { startNsd } from './nsd.js';
const server = await startNsd([{ name: 'cleanup.test', text: ${JSON.stringify(ZONE)} }]);
process.stdout.write(server.pid + '\\n');
if (process.argv[2] === 'fail') setImmediate(() => { throw new Error('a failed run'); });
else setInterval(() => {}, 1000);
`,
  );
}, 60_000);

afterAll(() => {
  for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs the child until nsd is up, then `end` it; resolves with nsd's pid and how the child ended. */
async function run(mode: 'wait' | 'fail', end?: NodeJS.Signals): Promise<{ nsd: number; exit: string }> {
  const child = spawn(process.execPath, [join(dir, 'child.js'), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? `code ${code}`)),
  );
  const nsd = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    void exited.then((how) => reject(new Error(`the child ended (${how}) before nsd was up`)));
  });
  leftovers.push(nsd);
  expect(alive(nsd)).toBe(true);
  if (end) child.kill(end);
  const exit = await exited;
  // nsd's TERM handler needs a moment; it must not need a second signal.
  for (let i = 0; i < 150 && alive(nsd); i++) await new Promise((r) => setTimeout(r, 20));
  return { nsd, exit };
}

describe.skipIf(!nsdInstalled())('servers started for a run', () => {
  it('are stopped on SIGTERM, and the process still ends by the signal', async () => {
    const { nsd, exit } = await run('wait', 'SIGTERM');
    expect([exit, alive(nsd)]).toEqual(['SIGTERM', false]);
  });

  it('are stopped on SIGINT (Ctrl-C)', async () => {
    const { nsd, exit } = await run('wait', 'SIGINT');
    expect([exit, alive(nsd)]).toEqual(['SIGINT', false]);
  });

  it('are stopped when the run fails with an uncaught error', async () => {
    const { nsd, exit } = await run('fail');
    expect([exit, alive(nsd)]).toEqual(['code 1', false]);
  });
});
