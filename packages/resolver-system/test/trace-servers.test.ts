/**
 * The servers the system resolver says it asked, in the `dnscore:query` trace: each nameserver
 * and transport with its outcome (answer with rcode, truncated, timeout, error), the hosts
 * file, and the tries of a walk that got no answer attached to its error. Hostile servers on
 * 127.0.0.1; nothing is recorded while nobody traces.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DnsCore, TimeoutError, makeQuery } from '@dnscore/core';
import type { QueryAttempt } from '@dnscore/core/diagnostics';
import { serversOf } from '@dnscore/core/plugin';
import { startHostileServer, type HostileServer } from '../../../test/support/hostile-server.js';
import { recordQueryTraces } from '../../../test/support/query-trace.js';
import { SystemResolver } from '../src/index.js';
import { HOSTILE_ZONE } from './helpers.js';

let one: HostileServer;
let two: HostileServer;
let dir: string;
let noResolvConf: string;

beforeAll(async () => {
  [one, two] = await Promise.all([
    startHostileServer({ zone: HOSTILE_ZONE }),
    startHostileServer({ zone: HOSTILE_ZONE }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'dnscore-trace-'));
  noResolvConf = join(dir, 'resolv.conf');
  writeFileSync(noResolvConf, '');
});
afterAll(async () => {
  await Promise.all([one.close(), two.close()]);
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.useRealTimers();
  one.setPlan({ udp: ['answer'], tcp: ['answer'] });
  two.setPlan({ udp: ['answer'], tcp: ['answer'] });
});

function core(options: { timeoutMs?: number; attempts?: number; useHosts?: boolean } = {}, hosts?: string) {
  const system = new SystemResolver(
    { nameservers: [one.endpoint, two.endpoint], resolvConf: noResolvConf, search: [], ...(hosts ? { hosts } : {}) },
    { timeoutMs: 2000, attempts: 1, ...options },
  );
  return new DnsCore([system]);
}

const servers = (attempts: readonly QueryAttempt[]) => attempts.map((a) => [a.backend, a.servers]);

describe('the servers in the query trace', () => {
  it('lists a SERVFAIL from the first server and the answer of the second, with their rcodes', async () => {
    one.setPlan({ udp: ['servfail'] });
    const ended = recordQueryTraces();
    await core().resolve('www.hostile.example');
    expect(servers(ended[0]!.attempts)).toEqual([
      [
        'system',
        [
          { server: one.endpoint, transport: 'udp', outcome: 'answer', rcode: 2 },
          { server: two.endpoint, transport: 'udp', outcome: 'answer', rcode: 0 },
        ],
      ],
    ]);
  });

  it('lists a truncated UDP answer, the TCP try that failed, and the next server (over TCP: remembered)', async () => {
    one.setPlan({ udp: ['truncate'], tcp: ['close'] });
    const ended = recordQueryTraces();
    await core().resolve('www.hostile.example');
    const [truncated, closed, answered] = ended[0]!.attempts[0]!.servers!;
    expect([truncated, answered]).toEqual([
      { server: one.endpoint, transport: 'udp', outcome: 'truncated' },
      { server: two.endpoint, transport: 'tcp', outcome: 'answer', rcode: 0 },
    ]);
    expect([closed!.server, closed!.transport, closed!.outcome, typeof closed!.error]).toEqual([
      one.endpoint,
      'tcp',
      'error',
      'string',
    ]);
  });

  it('attaches the timeouts of a walk that got no answer to its error', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    one.setPlan({ udp: ['drop'] });
    two.setPlan({ udp: ['drop'] });
    const ended = recordQueryTraces();
    const before = [one.received.length, two.received.length];
    const asked = core({ timeoutMs: 1000 }).resolve('www.hostile.example');
    const failed = expect(asked).rejects.toBeInstanceOf(TimeoutError);
    await one.waitForQueries(before[0]! + 1);
    vi.advanceTimersByTime(1000);
    await two.waitForQueries(before[1]! + 1);
    vi.advanceTimersByTime(1000);
    await failed;
    const [attempt] = ended[0]!.attempts;
    const expected = [
      { server: one.endpoint, transport: 'udp', outcome: 'timeout' },
      { server: two.endpoint, transport: 'udp', outcome: 'timeout' },
    ];
    expect(attempt!.servers).toEqual(expected);
    expect(serversOf(attempt!.error)).toEqual(expected);
  });

  it('names the hosts file when it answered', async () => {
    const hosts = join(dir, 'hosts');
    writeFileSync(hosts, '192.0.2.7 printer.lan\n');
    const ended = recordQueryTraces();
    const result = await core({ useHosts: true }, hosts).resolve('printer.lan');
    expect(result.records.map((r) => r.data)).toEqual(['192.0.2.7']);
    expect(servers(ended[0]!.attempts)).toEqual([
      ['system', [{ server: `hosts file ${hosts}`, transport: 'file', outcome: 'answer', rcode: 0 }]],
    ]);
  });

  it('records nothing while nobody traces', async () => {
    const system = new SystemResolver(
      { nameservers: [one.endpoint], resolvConf: noResolvConf, search: [] },
      { timeoutMs: 2000, attempts: 1 },
    );
    const answer = await system.resolve(makeQuery('www.hostile.example', 'A'), new AbortController().signal);
    expect(answer.rcode).toBe(0);
    expect('servers' in answer).toBe(false);
  });
});
