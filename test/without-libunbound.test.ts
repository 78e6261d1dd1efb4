/**
 * The fallback for real: a clean copy of the repository installed with `npm ci` on a machine
 * without a C compiler (CC names none) has no libunbound addon, yet `npm ci` succeeds and
 * `dnscore resolve --resolver auto` still answers, through the system backend, and says why
 * once on stderr. (Needs the npm registry, as `npm ci` does.)
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startNsd, type NsdServer } from './support/nsd.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// dist/ is copied: the packages are built already, and TypeScript 7's compiler is itself an
// optional dependency that --omit=optional leaves out.
// build/ is the addon's output: the copy's install must build it (and fail) itself.
const SKIP = new Set(['node_modules', '.turbo', '.git', 'coverage', 'build']);
const NO_COMPILER = '/nonexistent/cc';

let copy: string;
let nsd: NsdServer;

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'dnscore-no-unbound-'));
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (source) =>
      !relative(ROOT, source)
        .split(sep)
        .some((part) => SKIP.has(part)),
  });
  await run('npm', ['ci', '--omit=optional', '--no-audit', '--no-fund'], {
    cwd: copy,
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', CC: NO_COMPILER },
  });
  nsd = await startNsd([
    { name: 'biloxi.example', text: readFileSync(join(ROOT, 'examples/zones/biloxi.example.zone'), 'utf8') },
  ]);
}, 300_000);

afterAll(async () => {
  await nsd?.stop();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

it('without the libunbound addon, auto answers through the system backend and says why once', async () => {
  const addon = join(copy, 'packages/resolver-unbound/build');
  expect(existsSync(join(addon, 'unbound.node'))).toBe(false);
  const reason = `no C compiler: "${NO_COMPILER}" was not found (install gcc and libc6-dev, or set CC)`;
  expect(readFileSync(join(addon, 'build-error.txt'), 'utf8')).toBe(`${reason}\n`);
  const bin = join(copy, 'packages/cli/dist/main.cjs');
  const { stdout, stderr } = await run(process.execPath, [
    bin,
    'resolve',
    'sip1.biloxi.example',
    '--resolver',
    'auto',
    '--server',
    nsd.endpoint,
    '--json',
  ]);
  expect(JSON.parse(stdout)).toMatchObject({ rcode: 'NOERROR', records: [{ data: '203.0.113.11' }] });
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toBe(
    `dnscore: resolving with "system" (unbound unavailable: the libunbound addon was not built: ${reason}; ` +
      'validating unavailable: the upstream nameservers answered REFUSED to DNSKEY . ' +
      '(they cannot be used to validate))',
  );
}, 60_000);

it('without the libunbound addon, a trust anchor under auto goes to the validating backend: exit 5', async () => {
  const bin = join(copy, 'packages/cli/dist/main.cjs');
  const failure = await run(process.execPath, [
    bin,
    'resolve',
    'sip1.biloxi.example',
    '--resolver',
    'auto',
    '--server',
    nsd.endpoint,
    '--trust-anchor',
    'biloxi.example. IN DS 12345 13 2 0000000000000000000000000000000000000000000000000000000000000000',
  ]).then(
    () => undefined,
    (error: { code?: number; stdout?: string; stderr?: string }) => error,
  );
  expect(failure?.code).toBe(5);
  expect(failure?.stdout).toBe('');
  expect(failure?.stderr).toMatch(/system: not asked in place of "validating", which fails closed/);
}, 60_000);
