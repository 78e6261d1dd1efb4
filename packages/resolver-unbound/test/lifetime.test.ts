/**
 * Lifetime in a process of its own (test/fixtures/lifetime-child.mjs): the addon keeps the
 * event loop alive only while questions are in flight, close() frees it at once although
 * questions wait on a silent server for minutes, and neither process.exit() with questions
 * in flight nor collecting a closed context crashes.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BUILD_DIR } from '../src/binding.js';

const CHILD = fileURLToPath(new URL('./fixtures/lifetime-child.mjs', import.meta.url));
const ADDON = join(DEFAULT_BUILD_DIR, 'unbound.node');

interface Ending {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the child; it is killed after 45 s (a busy machine starts Node slowly), which shows as SIGTERM. */
function run(mode: string, nodeFlags: string[] = []): Promise<Ending> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...nodeFlags, CHILD, mode, ADDON],
      { timeout: 45_000, encoding: 'utf8' },
      (error, stdout, stderr) => {
        resolve({
          code: child.exitCode,
          signal: child.signalCode ?? (error?.signal as NodeJS.Signals) ?? null,
          stdout,
          stderr,
        });
      },
    );
  });
}

describe('process lifetime', { timeout: 60_000 }, () => {
  it('an idle context, never closed, does not keep the process alive', async () => {
    expect(await run('idle')).toEqual({ code: 0, signal: null, stdout: 'settled 1\n', stderr: '' });
  });

  it('close() with 50 questions waiting on a silent server: no callback, and the process exits', async () => {
    expect(await run('close')).toEqual({ code: 0, signal: null, stdout: 'settled 0\n', stderr: '' });
  });

  it('process.exit() with 50 questions in flight exits cleanly (no crash at teardown)', async () => {
    expect(await run('exit')).toEqual({ code: 0, signal: null, stdout: 'exiting\n', stderr: '' });
  });

  it('contexts dropped, closed or not, are collected and deleted (only the one kept stays open)', async () => {
    expect(await run('gc', ['--expose-gc'])).toEqual({
      code: 0,
      signal: null,
      stdout: 'settled 10, open 1\n',
      stderr: '',
    });
  });
});
