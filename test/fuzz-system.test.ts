/**
 * Fuzzing the packet path through the system backend: a loopback server answers every query
 * with a mutated copy of the right answer (bytes flipped, cut, inserted, pointers planted),
 * for a fixed number of iterations. Nothing may crash, reject unhandled or hang; every query
 * ends (an answer or a typed error) within its timeout; no socket or timer is left behind.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DnsCore, DnsError, seededRandom } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import dnsPacket from 'dns-packet';
import { startHostileServer, type HostileServer, type ReceivedQuery } from './support/hostile-server.js';

const ITERATIONS = 3000;
const TIMEOUT_MS = 300;

/** The right answer for any name under fuzz.example: every question is distinct, so none is merged. */
function rightAnswer(query: ReceivedQuery): Uint8Array {
  const name = query.name;
  const data: Record<string, dnsPacket.Answer[]> = {
    A: [{ name, type: 'A', ttl: 60, data: '192.0.2.1' }],
    SRV: [
      { name, type: 'SRV', ttl: 60, data: { priority: 10, weight: 60, port: 5060, target: `sip1.${name}` } },
      { name, type: 'SRV', ttl: 60, data: { priority: 20, weight: 0, port: 5060, target: `sip2.${name}` } },
    ],
    NAPTR: [
      {
        name,
        type: 'NAPTR',
        ttl: 60,
        data: {
          order: 10,
          preference: 10,
          flags: 's',
          services: 'SIP+D2U',
          regexp: '',
          replacement: `_sip._udp.${name}`,
        },
      },
    ],
  };
  return dnsPacket.encode({
    type: 'response',
    id: query.id,
    flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: query.type as dnsPacket.RecordType, class: 'IN' }],
    answers: data[query.type] ?? [],
    additionals: query.type === 'SRV' ? [{ name: `sip1.${name}`, type: 'A', ttl: 60, data: '192.0.2.11' }] : [],
  } as dnsPacket.Packet);
}

const random = seededRandom(20261129);
const int = (n: number): number => Math.floor(random() * n);

/** The right answer, mutated 1-4 times; the ID is kept most of the time, so mutations reach the parser. */
function mutated(query: ReceivedQuery): Uint8Array {
  const bytes = Array.from(rightAnswer(query));
  for (let m = 1 + int(4); m > 0; m--) {
    const at = 2 + int(Math.max(1, bytes.length - 2));
    switch (int(5)) {
      case 0:
        bytes[at] = int(256);
        break;
      case 1:
        bytes.length = Math.max(2, at);
        break;
      case 2:
        bytes.splice(at, 0, ...Array.from({ length: 1 + int(8) }, () => int(256)));
        break;
      case 3:
        bytes.splice(at, 2, 0xc0 | int(64), int(256)); // a compression pointer anywhere
        break;
      default:
        bytes.splice(6 + 2 * int(3), 2, int(256), int(256)); // a record count that lies
    }
  }
  return Uint8Array.from(bytes);
}

let server: HostileServer;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

beforeAll(async () => {
  server = await startHostileServer({ udp: () => [{ raw: mutated }], tcp: () => [{ raw: mutated }] });
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await server?.close();
});

it(`${ITERATIONS} mutated answers: each query ends in an answer or a typed error, in time, and nothing ` +
  `leaks`, async () => {
  const before = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
  const system = new SystemResolver({ nameservers: [server.endpoint] }, { timeoutMs: TIMEOUT_MS, attempts: 1 });
  const core = new DnsCore([system]);
  const types = ['SRV', 'NAPTR', 'A', 'AAAA'];
  const outcomes = { answers: 0, errors: new Map<string, number>() };
  const batch = 100;
  for (let i = 0; i < ITERATIONS; i += batch) {
    await Promise.all(
      Array.from({ length: batch }, async (_, k) => {
        const type = types[(i + k) % types.length]!;
        const name = `${type === 'SRV' ? '_sip._udp.' : ''}n${i + k}.fuzz.example`;
        const started = performance.now();
        try {
          const result = await core.resolve(name, type);
          outcomes.answers++;
          for (const record of result.records) expect(record.name.toLowerCase()).toBe(result.canonical.toLowerCase());
        } catch (error) {
          expect(error).toBeInstanceOf(DnsError);
          const code = (error as DnsError).code;
          outcomes.errors.set(code, (outcomes.errors.get(code) ?? 0) + 1);
        }
        // A bound, not a timing: one timeout plus a TCP retry and slack for a loaded machine.
        expect(performance.now() - started).toBeLessThan(TIMEOUT_MS * 2 + 5000);
      }),
    );
  }
  await core.close();
  console.log(
    `fuzz: ${outcomes.answers} answers, errors ${JSON.stringify(Object.fromEntries(outcomes.errors))}, stats ` +
      `${JSON.stringify(system.stats)}`,
  );
  expect(outcomes.answers + [...outcomes.errors.values()].reduce((a, b) => a + b, 0)).toBe(ITERATIONS);
  expect(outcomes.answers).toBeGreaterThan(0); // some mutations leave a usable answer
  expect(
    [...outcomes.errors.keys()].every((code) =>
      ['DNS_ERR_TIMEOUT', 'DNS_ERR_MALFORMED_ANSWER', 'DNS_ERR_NETWORK', 'DNS_ERR_INVALID_RESULT'].includes(code),
    ),
  ).toBe(true);
  expect(
    system.stats.garbage + system.stats.malformed + system.stats.wrongQuestion + system.stats.wrongId,
  ).toBeGreaterThan(0);
  expect(unhandled).toEqual([]);
  // A dgram socket finishes closing on a later turn of the event loop: wait for them, boundedly.
  expect(await handlesSettle(before)).toBeLessThanOrEqual(before);
}, 120_000);

/** The number of active handles once it falls to `target`, or after two seconds of waiting. */
async function handlesSettle(target: number): Promise<number> {
  const count = (): number => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
  for (let i = 0; i < 100 && count() > target; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return count();
}
