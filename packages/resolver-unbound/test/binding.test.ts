/**
 * Building and loading the addon for real, and each way it fails for real: no compiler (the
 * build still succeeds and says why), not built at all, and built against a libunbound that
 * is not there (a copy of the binary that asks for libunbound.so.9).
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeQuery } from '@dnscore/core/plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_BUILD_DIR,
  NOT_BUILT,
  explainLoadFailure,
  loadUnboundBinding,
  unboundAvailability,
} from '../src/binding.js';
import { resolverOnBinding } from '../src/unbound-resolver.js';
import { UnboundUnavailableError } from '../src/errors.js';

const BUILD_SCRIPT = fileURLToPath(new URL('../scripts/build-addon.mjs', import.meta.url));
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'dnscore-addon-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the build script into `out` with the environment `env`; returns its stderr. */
function build(out: string, env: NodeJS.ProcessEnv): string {
  return execFileSync(process.execPath, [BUILD_SCRIPT, '--out', out], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

// Each build is a compiler run: slow on a busy machine.
describe('loading the addon', { timeout: 60_000 }, () => {
  it('loads here, with the libunbound version', () => {
    const binding = loadUnboundBinding();
    expect(binding.available).toBe(true);
    expect(binding.available && binding.version).toMatch(/^1\.\d+\.\d+$/);
    expect(unboundAvailability()).toEqual({ available: true, version: binding.available ? binding.version : '' });
    expect(loadUnboundBinding()).toBe(binding); // loaded once
    expect(existsSync(join(DEFAULT_BUILD_DIR, 'unbound.node'))).toBe(true);
  });

  it('the build script compiles it into another directory, and that copy loads', () => {
    const out = join(scratch, 'fresh');
    build(out, {});
    expect(existsSync(join(out, 'build-error.txt'))).toBe(false);
    const binding = loadUnboundBinding(out);
    expect(binding.available && binding.version).toMatch(/^1\.\d+\.\d+$/);
  });

  it('no compiler: the build succeeds, says why, and the plugin is unavailable with that reason', async () => {
    const out = join(scratch, 'nocc');
    build(out, { CC: join(scratch, 'no-such-compiler') });
    const compiler = join(scratch, 'no-such-compiler');
    const reason = `no C compiler: "${compiler}" was not found (install gcc and libc6-dev, or set CC)`;
    expect(readFileSync(join(out, 'build-error.txt'), 'utf8')).toBe(`${reason}\n`);
    expect(existsSync(join(out, 'unbound.node'))).toBe(false);
    const binding = loadUnboundBinding(out);
    expect(binding).toEqual({ available: false, reason: `the libunbound addon was not built: ${reason}` });
    const resolver = resolverOnBinding(binding, { hosts: false, resolvConf: false });
    expect(resolver.available()).toEqual({ available: false, reason: `the libunbound addon was not built: ${reason}` });
    await expect(resolver.resolve(makeQuery('example.com', 'A'), new AbortController().signal)).rejects.toBeInstanceOf(
      UnboundUnavailableError,
    );
  });

  it('no libunbound-dev (unbound.h not found): the build says which package to install', () => {
    // A sysroot that is this machine's /usr/include without unbound.h stands for a machine
    // without libunbound-dev.
    const root = join(scratch, 'sysroot');
    mkdirSync(join(root, 'usr', 'include'), { recursive: true });
    for (const entry of readdirSync('/usr/include')) {
      if (entry !== 'unbound.h') symlinkSync(join('/usr/include', entry), join(root, 'usr', 'include', entry));
    }
    for (const dir of ['usr/lib', 'lib', 'lib64']) if (existsSync(`/${dir}`)) symlinkSync(`/${dir}`, join(root, dir));
    const out = join(scratch, 'noheaders');
    build(out, { CC: `cc --sysroot=${root}` });
    const reason = 'libunbound-dev is missing (unbound.h not found): apt-get install libunbound-dev';
    expect(readFileSync(join(out, 'build-error.txt'), 'utf8')).toBe(`${reason}\n`);
    expect(loadUnboundBinding(out)).toEqual({
      available: false,
      reason: `the libunbound addon was not built: ${reason}`,
    });
  });

  it('a failed rebuild removes the old addon, so what loads is what the last build says', () => {
    const out = join(scratch, 'rebuilt');
    build(out, {});
    expect(existsSync(join(out, 'unbound.node'))).toBe(true);
    build(out, { CC: join(scratch, 'gone') });
    expect(existsSync(join(out, 'unbound.node'))).toBe(false);
    expect(loadUnboundBinding(out)).toMatchObject({ available: false, reason: expect.stringMatching(/no C compiler/) });
  });

  it('never built there: says how to build it', () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    expect(loadUnboundBinding(empty)).toEqual({ available: false, reason: NOT_BUILT });
    expect(NOT_BUILT).toBe(
      'the libunbound addon was not built (npm ci or npm run build builds it; ' +
        'it needs a C compiler and libunbound-dev)',
    );
  });

  it('libunbound missing: the loader error names the library', () => {
    const original = readFileSync(join(DEFAULT_BUILD_DIR, 'unbound.node'));
    const needed = Buffer.from('libunbound.so.8');
    const at = original.indexOf(needed);
    expect(at).toBeGreaterThan(0);
    const patched = Buffer.from(original);
    patched.write('libunbound.so.9', at, 'latin1');
    const dir = join(scratch, 'nolib');
    mkdirSync(dir);
    writeFileSync(join(dir, 'unbound.node'), patched);
    const binding = loadUnboundBinding(dir);
    expect(binding.available).toBe(false);
    expect(!binding.available && binding.reason).toMatch(
      new RegExp(
        '^libunbound is missing \\(install libunbound8, or libunbound-dev to build\\): ' +
          'libunbound\\.so\\.9: cannot open shared object file',
      ),
    );
  });

  it('a file that is not an addon: the loader message, first line', () => {
    const dir = join(scratch, 'garbage');
    mkdirSync(dir);
    copyFileSync(BUILD_SCRIPT, join(dir, 'unbound.node'));
    const binding = loadUnboundBinding(dir);
    expect(!binding.available && binding.reason).toMatch(/^the libunbound addon did not load: .*unbound\.node/);
  });

  it('any other failure keeps the first line of its message', () => {
    expect(explainLoadFailure(new Error('boom\nstack'))).toBe('the libunbound addon did not load: boom');
    expect(explainLoadFailure('odd')).toBe('the libunbound addon did not load: odd');
  });

  it('the package depends on no npm binding: only node-api-headers, to build', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    expect(manifest.dependencies).toEqual({ 'node-api-headers': '1.9.0' });
    expect(manifest.optionalDependencies).toBeUndefined();
  });
});
