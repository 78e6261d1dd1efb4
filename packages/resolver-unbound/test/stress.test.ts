/**
 * A lost result shows as a promise that never settles. Many questions at once through the
 * whole backend (answers from nsd, from libunbound's cache and from local data), cancels
 * racing the answers at every moment (before sending, right after, while on the wire, after
 * the answer), and reloads in the middle: every promise settles, exactly once, with the right
 * answer or AbortError, and nothing stays in flight. The draws are seeded: the same questions,
 * cancels and reloads every run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '@dnscore/core';
import { AbortError, makeQuery, parseMessage, type PluginAnswer } from '@dnscore/core/plugin';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { aZone } from './support/a-zone.js';
import { UnboundResolver } from '../src/unbound-resolver.js';
import type { UnboundOptions } from '../src/options.js';

const NAMES = 300;
const address = (i: number): string => `10.9.${Math.floor(i / 250)}.${(i % 250) + 1}`;
const zone = aZone('stress.test', NAMES, address);

let nsd: NsdServer;
beforeAll(async () => {
  nsd = await startNsd([{ name: 'stress.test', text: zone }]);
});
afterAll(async () => {
  await nsd?.stop();
});

function options(): UnboundOptions {
  return {
    hosts: false,
    resolvConf: false,
    trustAnchors: [],
    qnameMinimisation: false,
    stubZones: [{ name: 'stress.test', addresses: [`127.0.0.1@${nsd.port}`] }],
    localZones: [
      { name: 'test', type: 'transparent' },
      { name: 'feathers', type: 'static' },
    ],
    localData: ['goose.feathers 300 IN A 127.0.0.2'],
    options: { 'do-not-query-localhost': 'no' },
  };
}

/** The A addresses of an answer packet. */
function addresses(answer: PluginAnswer): string[] {
  if (!answer.answer) return [];
  return parseMessage(answer.answer)
    .answers.filter((record) => record.type === 1)
    .map((record) => [...answer.answer!.subarray(record.rdataOffset, record.rdataOffset + 4)].join('.'));
}

type Outcome = 'answered' | 'aborted';

describe('stress: no result is lost', { timeout: 120_000 }, () => {
  it('4,000 questions with cancels racing the answers and reloads in between: each settles once', async () => {
    const resolver = new UnboundResolver(options());
    const random = seededRandom(12);
    const outcomes: Promise<Outcome>[] = [];
    let settledTwice = 0;
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 500; i++) {
        const pick = random();
        // Network answers (first time) and libunbound's cache (later rounds), and local data.
        const n = Math.floor(random() * NAMES);
        const [name, expected] = pick < 0.1 ? ['goose.feathers', '127.0.0.2'] : [`n${n}.stress.test`, address(n)];
        const controller = new AbortController();
        let settled = 0;
        const outcome = resolver.resolve(makeQuery(name, 'A'), controller.signal).then(
          (answer): Outcome => {
            settled++;
            expect(addresses(answer)).toEqual([expected]);
            return 'answered';
          },
          (error: unknown): Outcome => {
            settled++;
            expect(error).toBeInstanceOf(AbortError);
            return 'aborted';
          },
        );
        outcomes.push(outcome.finally(() => settled > 1 && settledTwice++));
        const when = random();
        const abort = (): void => controller.abort();
        if (when < 0.1) abort();
        else if (when < 0.2) queueMicrotask(abort);
        else if (when < 0.3) setImmediate(abort);
        else if (when < 0.4) setTimeout(abort, Math.floor(random() * 5));
      }
      // A reload between bursts: what is in flight finishes on the old context.
      if (round % 3 === 1) resolver.reload(options());
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A lost result would leave its promise pending: say how many instead of timing out blind.
    let pending = outcomes.length;
    for (const outcome of outcomes) void outcome.finally(() => pending--);
    const all = Promise.all(outcomes);
    const stalled = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${pending} of ${outcomes.length} questions never settled`)), 60_000).unref(),
    );
    const results = await Promise.race([all, stalled]);
    expect(results).toHaveLength(4000);
    expect(settledTwice).toBe(0);
    const answered = results.filter((r) => r === 'answered').length;
    expect(answered).toBeGreaterThan(0);
    expect(results.length - answered).toBeGreaterThan(0);
    expect(resolver.inFlight).toBe(0);
    expect(resolver.queued).toBe(0);
    // Every question not cancelled was answered, and every cancelled one rejected at once.
    await resolver.drained();
    resolver.close();
  });

  // After the test above on purpose: its contexts' threads have exited, so this context's thread
  // may get a malloc arena above its stack, the layout in which libunbound 1.17 never reuses a
  // TCP stream (the addon's make_worker says why). Beside two busy CPUs, 1 run in 8 failed here
  // with SERVFAIL until the worker was made on the JS thread.
  it('over TCP (tcp-upstream): 300 questions at once, each answered (connect, write and read events)', async () => {
    const resolver = new UnboundResolver({
      ...options(),
      // Each query waits 3 s, not its server's retransmit timeout (README: outgoing-num-tcp).
      options: { 'do-not-query-localhost': 'no', 'tcp-upstream': 'yes', 'infra-cache-min-rtt': 400 },
    });
    const answers = await Promise.all(
      Array.from({ length: NAMES }, (_, i) =>
        resolver.resolve(makeQuery(`n${i}.stress.test`, 'A'), new AbortController().signal),
      ),
    );
    // An answer without a packet shows its rcode, so that a failure says which one it was.
    const seen = answers.map((answer) => (answer.answer ? addresses(answer) : `rcode ${answer.rcode}`));
    expect(seen).toEqual(Array.from({ length: NAMES }, (_, i) => [address(i)]));
    expect(resolver.inFlight).toBe(0);
    resolver.close();
  });

  it('close() with thousands in flight settles every question (StateError), none twice', async () => {
    const resolver = new UnboundResolver({ ...options(), maxInFlight: 4096 });
    const outcomes = Array.from({ length: 3000 }, (_, i) =>
      resolver.resolve(makeQuery(`n${i % NAMES}.stress.test`, 'A'), new AbortController().signal).then(
        () => 'answered',
        (error: Error) => error.name,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1));
    resolver.close();
    const results = await Promise.all(outcomes);
    expect(results).toHaveLength(3000);
    for (const result of results) expect(['answered', 'StateError']).toContain(result);
    expect(resolver.inFlight).toBe(0);
  });
});
