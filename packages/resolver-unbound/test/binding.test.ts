/**
 * Loading the optional binding for real, and each way it fails for real: the package not
 * installed, installed without its native build, and built against a libunbound that is
 * not there (a copy of the binary that asks for libunbound.so.9).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainLoadFailure, loadUnboundBinding, unboundAvailability } from '../src/index.js';

const require = createRequire(import.meta.url);
const unboundDir = dirname(require.resolve('unbound/package.json'));
const loadyDir = dirname(require.resolve('loady/package.json'));
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'dnscore-binding-'));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A node_modules with a copy of `unbound` (lib and package.json) and loady; `binary` is its build. */
function install(name: string, binary?: Buffer): string {
  const root = join(scratch, name);
  const modules = join(root, 'node_modules');
  cpSync(join(unboundDir, 'lib'), join(modules, 'unbound', 'lib'), { recursive: true });
  cpSync(join(unboundDir, 'package.json'), join(modules, 'unbound', 'package.json'));
  cpSync(loadyDir, join(modules, 'loady'), { recursive: true });
  if (binary) {
    mkdirSync(join(modules, 'unbound', 'build', 'Release'), { recursive: true });
    writeFileSync(join(modules, 'unbound', 'build', 'Release', 'node_unbound.node'), binary);
  }
  return join(root, 'main.js');
}

describe('loading the binding', () => {
  it('loads here, with the libunbound version', () => {
    const binding = loadUnboundBinding();
    expect(binding.available).toBe(true);
    expect(binding.available && binding.version).toMatch(/^1\.\d+\.\d+$/);
    expect(unboundAvailability()).toEqual({ available: true, version: binding.available ? binding.version : '' });
    expect(loadUnboundBinding()).toBe(binding); // loaded once
  });

  it('not installed: says so and how to install it', () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    expect(loadUnboundBinding(join(empty, 'main.js'))).toEqual({
      available: false,
      reason: 'the optional package "unbound" is not installed (npm install unbound; it builds against libunbound-dev)',
    });
  });

  it('installed without its native build (npm --ignore-scripts): says how to build it', () => {
    expect(loadUnboundBinding(install('unbuilt'))).toEqual({
      available: false,
      reason:
        'the package "unbound" is installed but its native binding was not built (install libunbound-dev, then npm rebuild unbound)',
    });
  });

  it('libunbound missing: the loader error names the library', () => {
    const original = readFileSync(join(unboundDir, 'build', 'Release', 'node_unbound.node'));
    const needed = Buffer.from('libunbound.so.8');
    const at = original.indexOf(needed);
    expect(at).toBeGreaterThan(0);
    const patched = Buffer.from(original);
    patched.write('libunbound.so.9', at, 'latin1');
    const binding = loadUnboundBinding(install('nolib', patched));
    expect(binding.available).toBe(false);
    expect(!binding.available && binding.reason).toMatch(
      /^libunbound is missing \(install libunbound8, or libunbound-dev to build\): libunbound\.so\.9: cannot open shared object file/,
    );
  });

  it('any other failure keeps the first line of its message', () => {
    expect(explainLoadFailure(new Error('boom\nstack'))).toBe('the "unbound" binding did not load: boom');
    expect(explainLoadFailure('odd')).toBe('the "unbound" binding did not load: odd');
  });

  it('no module of the package imports `unbound` eagerly, so it loads without it', () => {
    const src = join(dirname(new URL(import.meta.url).pathname), '..', 'src');
    const eager = readdirSync(src).filter((file) =>
      /from ['"]unbound['"]|import\(['"]unbound['"]\)/.test(readFileSync(join(src, file), 'utf8')),
    );
    expect(eager).toEqual([]);
  });
});
