/**
 * The addon's event base (native/event_base.c) alone: test/native/event-base-harness.c drives it
 * through libunbound's ub_event methods on a clock of its own, so deadlines are exact and the
 * rounds never wait. Compiled here with AddressSanitizer (an event freed during a round is
 * touched after it: a failure; anything left unfreed: a leak report), once with epoll and once
 * with poll() (EVENT_BASE_POLL). The same base under libunbound, for real: timers.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const native = fileURLToPath(new URL('../native', import.meta.url));
const harness = fileURLToPath(new URL('./native/event-base-harness.c', import.meta.url));
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'dnscore-event-base-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Compiles the harness with `defines` and runs it: its lines. */
function run(defines: string[]): string[] {
  const out = join(scratch, `harness${defines.join('')}`);
  const [cc = 'cc', ...ccArgs] = (process.env.CC || 'cc').trim().split(/\s+/);
  execFileSync(cc, [
    ...ccArgs,
    '-g',
    '-O1',
    '-Wall',
    '-fsanitize=address,undefined',
    '-fno-sanitize-recover=all',
    '-DEVENT_BASE_TEST_CLOCK=test_clock',
    ...defines,
    '-I',
    native,
    join(native, 'event_base.c'),
    harness,
    '-o',
    out,
    '-lpthread',
  ]);
  const result = spawnSync(out, { encoding: 'utf8', timeout: 30_000 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.trimEnd().split('\n');
}

const EXPECTED = [
  // Armed 50, 10, 40, 20, 30, 60 ms; t40 deleted; t20 armed again for 70: by deadline.
  'order +5:',
  'order +40: t10:t t30:t',
  'order +30: t50:t t60:t t20:t',
  'order +100:',
  // All due in one round: a deletes c, b arms d again (5 ms on), e frees f; then a frees g.
  'same round +50: a:t b:t e:t',
  'same round +4:',
  'same round +1: d:t',
  'same round +1: a:t',
  'same round +1000:',
  // Persistent, 30 ms: armed again from the round it fired in, once however late; then deleted.
  'persistent +30: p:t',
  'persistent +20:',
  'persistent +10: p:t',
  'persistent +100: p:t',
  'persistent +29:',
  'persistent +1: p:t',
  'persistent +1000:',
  // Readable at 60 re-arms its 100 ms timeout (due at 160, not 100); readable and due: once.
  'fd +60: r:r',
  'fd +60:',
  'fd +50: r:t',
  'fd +100: r:r',
  // Not persistent: removed before its callback, so unread data does not fire it again.
  'fd +1: w:r',
  'fd +1:',
  'fd +100:',
  'many: 133 moved, 666 fired once, 334 deleted never fired, 0 out of order, 0 early',
  'extra fd +0:',
  'extra fd: woken 1',
  // A TCP socket added by another thread during the unlocked wait, before its connect: its
  // hang-up from before the connect does not fire it, nor does the connected socket after.
  'added while waiting:',
];

describe('the event base', { timeout: 60_000 }, () => {
  it('with epoll: timers by deadline, deleted and re-armed ones as they were left, freed ones never', () => {
    expect(run([])).toEqual(EXPECTED);
  });

  it('with poll(): the same', () => {
    expect(run(['-DEVENT_BASE_POLL'])).toEqual(EXPECTED);
  });
});
