/**
 * libunbound's timers on the addon's event base, for real: questions to a silent server time out
 * (a timer each, deadlines as they were sent, then retries with libunbound's backoff) while
 * questions to nsd are answered (their timers deleted) and cancelled ones are dropped (ub_cancel
 * deletes theirs): each question settles once, with its own exact outcome, and the context is
 * fine afterwards. Once on the addon as built (epoll on Linux), once on a copy built with
 * poll() (EVENT_BASE_POLL: the event base of systems without epoll). The event base alone, with
 * exact deadlines: event-base.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, makeQuery, parseMessage, type PluginAnswer } from '@dnscore/core/plugin';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { loadUnboundBinding, type UnboundBinding } from '../src/binding.js';
import { resolverOnBinding } from '../src/unbound-resolver.js';
import { labOptions } from './support/lab.js';

const LIVE = 200;
const SILENT = 60;
const CANCELLED = 40;
const address = (i: number): string => `10.7.${Math.floor(i / 250)}.${(i % 250) + 1}`;
const zone = [
  '$ORIGIN lab.test.',
  '$TTL 300',
  '@ IN SOA ns hostmaster 1 7200 900 1209600 60',
  '  IN NS ns',
  'ns IN A 127.0.0.1',
  ...Array.from({ length: LIVE }, (_, i) => `live${i} IN A ${address(i)}`),
].join('\n');

const BUILD_SCRIPT = fileURLToPath(new URL('../scripts/build-addon.mjs', import.meta.url));
let scratch: string;
let nsd: NsdServer;
let silent: SilentServer;
let pollBinding: UnboundBinding;

/** A UDP server that never answers, on an address of its own, and the query names it got. */
interface SilentServer {
  readonly server: string;
  readonly names: string[];
  /** Resolves once a query for `name` has arrived. */
  waitFor(name: string): Promise<void>;
  close(): Promise<void>;
}

async function startSilentServer(address: string): Promise<SilentServer> {
  const socket = createSocket('udp4');
  const names: string[] = [];
  const waiters = new Map<string, () => void>();
  socket.on('message', (message) => {
    const name = queryName(message);
    names.push(name);
    waiters.get(name)?.();
  });
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  return {
    server: `${address}@${socket.address().port}`,
    names,
    waitFor: (name) =>
      names.includes(name) ? Promise.resolve() : new Promise((resolve) => waiters.set(name, resolve)),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** The question name of a query (lowercase, no trailing dot). */
function queryName(message: Buffer): string {
  const labels: string[] = [];
  for (let offset = 12; offset < message.length && message[offset]! > 0; offset += message[offset]! + 1) {
    labels.push(message.toString('latin1', offset + 1, offset + 1 + message[offset]!).toLowerCase());
  }
  return labels.join('.');
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'dnscore-timers-'));
  const out = join(scratch, 'poll');
  execFileSync(process.execPath, [BUILD_SCRIPT, '--out', out], {
    env: { ...process.env, CC: `${process.env.CC || 'cc'} -DEVENT_BASE_POLL` },
    stdio: 'ignore',
  });
  pollBinding = loadUnboundBinding(out);
  nsd = await startNsd([{ name: 'lab.test', text: `${zone}\n` }]);
  silent = await startSilentServer('127.0.0.1');
}, 60_000);
afterAll(async () => {
  await silent?.close();
  await nsd?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The A addresses of an answer packet. */
function addresses(answer: PluginAnswer): string[] {
  if (!answer.answer) return [];
  return parseMessage(answer.answer)
    .answers.filter((record) => record.type === 1)
    .map((record) => [...answer.answer!.subarray(record.rdataOffset, record.rdataOffset + 4)].join('.'));
}

/** What a question came to: its addresses, its rcode when none, or the error's name. */
async function outcome(pending: Promise<PluginAnswer>): Promise<string> {
  try {
    const answer = await pending;
    const found = addresses(answer);
    return found.length > 0 ? found.join(' ') : `rcode ${answer.rcode}`;
  } catch (error) {
    return error instanceof AbortError ? 'aborted' : String(error);
  }
}

const builds: [string, () => UnboundBinding][] = [
  ['the addon as built', () => loadUnboundBinding()],
  ['the addon built with poll()', () => pollBinding],
];

describe.each(builds)('timers on %s', (_, binding) => {
  it('silent-server questions time out as SERVFAIL, the rest are answered or cancelled, each exactly', async () => {
    expect(binding().available).toBe(true);
    const resolver = resolverOnBinding(
      binding(),
      labOptions(`127.0.0.1@${nsd.port}`, {
        stubZones: [
          { name: 'lab.test', addresses: [`127.0.0.1@${nsd.port}`] },
          { name: 'silent.test', addresses: [silent.server] },
          { name: '.', addresses: [`127.0.0.1@${nsd.port}`] },
        ],
        // The default cap on a server's timeout (1 s), not a lower one: nsd's RTT as measured in a
        // burst on a busy machine may reach a low cap, and libunbound then drops nsd as too slow.
        options: { 'do-not-query-localhost': 'no' },
      }),
    );
    try {
      const signal = new AbortController().signal;
      const canceller = new AbortController();
      const tag = `${binding === builds[0]![1] ? 'e' : 'p'}${Date.now()}`;
      const questions: { name: string; expected: string; pending: Promise<PluginAnswer> }[] = [];
      // Interleaved, so timers of every kind sit side by side in the event base.
      for (let i = 0; i < LIVE; i++) {
        const ask = (name: string, expected: string, s: AbortSignal): void => {
          questions.push({ name, expected, pending: resolver.resolve(makeQuery(name, 'A'), s) });
        };
        ask(`live${i}.lab.test`, address(i), signal);
        if (i < SILENT) ask(`q${i}.${tag}.silent.test`, 'rcode 2', signal);
        if (i < CANCELLED) ask(`c${i}.${tag}.silent.test`, 'aborted', canceller.signal);
      }
      await silent.waitFor(`q0.${tag}.silent.test`);
      canceller.abort();
      const got = await Promise.all(questions.map((q) => outcome(q.pending)));
      expect(Object.fromEntries(questions.map((q, i) => [q.name, got[i]]))).toEqual(
        Object.fromEntries(questions.map((q) => [q.name, q.expected])),
      );
      expect(resolver.inFlight).toBe(0);
      // The silent server was asked (then libunbound gave up on it), and only for silent.test.
      expect(silent.names.filter((name) => name.endsWith(`${tag}.silent.test`)).length).toBeGreaterThan(0);
      // Afterwards: still answering, from nsd.
      expect(addresses(await resolver.resolve(makeQuery(`live${LIVE - 1}.lab.test`, 'A'), signal))).toEqual([
        address(LIVE - 1),
      ]);
    } finally {
      resolver.close();
    }
  }, 60_000);
});
