#!/usr/bin/env node
/**
 * Builds the C files of native/ (the addon, its event base, the process-wide claims, string_arg) into
 * build/unbound.node with one compiler call, against the Node-API headers of the
 * `node-api-headers` package and Debian's libunbound-dev: no node-gyp, no Node source headers,
 * no download. It never fails the install or the build: when the
 * compile fails (no compiler, no libunbound-dev), it writes why to build/build-error.txt and
 * the plugin reports itself unavailable with that reason, so the registry falls back.
 *
 *   node scripts/build-addon.mjs [--out DIR]     (CC picks the compiler; default cc)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outIndex = process.argv.indexOf('--out');
const outDir = outIndex > 0 ? resolve(process.argv[outIndex + 1] ?? '') : join(packageDir, 'build');
const nativeDir = join(packageDir, 'native');
const sourceFiles = ['unbound_addon.c', 'event_base.c', 'process_wide.c', 'string_arg.c'];
const sources = sourceFiles.map((file) => join(nativeDir, file));
const headerFiles = ['event_base.h', 'process_wide.h', 'string_arg.h'];
const inputs = [...sources, ...headerFiles.map((file) => join(nativeDir, file))];
const target = join(outDir, 'unbound.node');
const errorFile = join(outDir, 'build-error.txt');

mkdirSync(outDir, { recursive: true });

function fail(reason) {
  rmSync(target, { force: true });
  writeFileSync(errorFile, `${reason}\n`);
  process.stderr.write(`@dnscore/resolver-unbound: the libunbound addon was not built: ${reason}\n`);
}

function headers() {
  try {
    const require = createRequire(join(packageDir, 'package.json'));
    return join(dirname(require.resolve('node-api-headers/package.json')), 'include');
  } catch {
    return undefined;
  }
}

function upToDate() {
  try {
    const built = statSync(target).mtimeMs;
    return [...inputs, fileURLToPath(import.meta.url)].every((file) => built >= statSync(file).mtimeMs);
  } catch {
    return false;
  }
}

function build() {
  if (process.platform === 'win32') return fail('the libunbound addon builds on Linux and other POSIX systems only');
  const include = headers();
  if (!include) return fail('the package node-api-headers is not installed (npm ci installs it)');
  if (outIndex < 0 && upToDate()) return;
  const [cc, ...ccArgs] = (process.env.CC || 'cc').trim().split(/\s+/);
  const temporary = `${target}.${process.pid}.tmp`;
  const args = [
    ...ccArgs,
    '-O2',
    '-Wall',
    '-shared',
    '-fPIC',
    '-fvisibility=hidden',
    '-I',
    include,
    ...sources,
    '-o',
    temporary,
    '-lunbound',
    '-lpthread',
  ];
  const run = spawnSync(cc, args, { encoding: 'utf8' });
  if (run.error) {
    const missing = run.error.code === 'ENOENT';
    return fail(
      missing
        ? `no C compiler: "${cc}" was not found (install gcc and libc6-dev, or set CC)`
        : `the C compiler "${cc}" did not run: ${run.error.message}`,
    );
  }
  if (run.status !== 0) {
    rmSync(temporary, { force: true });
    const output = `${run.stderr}${run.stdout}`;
    if (/unbound(-event)?\.h/.test(output))
      return fail('libunbound-dev is missing (unbound.h not found): apt-get install libunbound-dev');
    if (/-lunbound|cannot find -l ?unbound/.test(output))
      return fail('libunbound is missing (cannot link -lunbound): apt-get install libunbound-dev');
    const first = output.split('\n').find((line) => /error/i.test(line)) ?? output.split('\n')[0] ?? '';
    return fail(`"${cc}" exited with ${run.status ?? run.signal}: ${first.trim()}`);
  }
  renameSync(temporary, target);
  rmSync(errorFile, { force: true });
}

build();
