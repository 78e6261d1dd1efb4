/**
 * `dnscore ping` against sipp servers on loopback (and a node TLS peer: this sipp has no TLS),
 * with the targets from a zone file: every try printed, the penalty box visible on the next
 * request (the skipped target and its reason), --json in the issue's shape, the failover set
 * and the transaction bound flags, and the exit codes. No timing is asserted.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificate } from '../../../test/support/certs.js';
import { failoverHosts, failoverZone, freePortOnAll } from '../../../test/support/failover-zone.js';
import { startNsd } from '../../../test/support/nsd.js';
import { answer, startSipPeer, type SipPeer } from '../../../test/support/sip-peer.js';
import { answeringScenario, startSippServer, type SippProcess } from '../../../test/support/sipp.js';
import { dnscore } from './support.js';

const ORIGIN = 'ping.test';
const hosts = failoverHosts('127.0.6', 50);
let port: number;
let zoneFile: string;
let caFile: string;
const servers: SippProcess[] = [];
let tls: SipPeer;

beforeAll(async () => {
  port = await freePortOnAll(hosts);
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-ping-'));
  zoneFile = join(dir, `${ORIGIN}.zone`);
  writeFileSync(zoneFile, failoverZone(ORIGIN, hosts, port));
  const cert = makeCertificate({ dns: [`tls.${ORIGIN}`] });
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, cert.cert);
  servers.push(
    await startSippServer({ scenario: answeringScenario(200, 'OK'), address: hosts.live, port, transport: 'udp' }),
    await startSippServer({
      scenario: answeringScenario(503, 'Service Unavailable', 30),
      address: hosts.busy,
      port,
      transport: 'udp',
    }),
    await startSippServer({
      scenario: answeringScenario(500, 'Server Internal Error'),
      address: hosts.error,
      port,
      transport: 'udp',
    }),
  );
  tls = await startSipPeer({ transport: 'tls', address: hosts.tlsRight, port, behaviour: answer(200), tls: cert });
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await tls?.close();
});

const ping = (...args: string[]) =>
  dnscore('ping', ...args, '--zone', zoneFile, '--bind', '127.0.0.1', '--per-target-timeout', '300');

/** The try and skip lines without the milliseconds. */
const tryLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => /^ {2}(try|skip) /.test(l))
    .map((l) =>
      l
        .replace(/\s+\d+ ms/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );

describe('dnscore ping: nominal', () => {
  it('prints every try; after a 503 with Retry-After the next request skips that server, saying why', async () => {
    const { code, stdout, stderr } = await ping(`sip:svc@busy.${ORIGIN}`, '--count', '2');
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout.split('\n')[0]).toBe(`PING sip:svc@busy.${ORIGIN}: 2 OPTIONS requests, per-target timer 300 ms`);
    const lines = tryLines(stdout);
    expect(lines.slice(0, 2)).toEqual([
      `try 1 udp ${hosts.busy}:${port} (busy-server.${ORIGIN}) failover 503`,
      `try 2 udp ${hosts.live}:${port} (live-server.${ORIGIN}) response 200`,
    ]);
    const busy = `${hosts.busy.replaceAll('.', '\\.')}:${port}`;
    const why = 'retry-after \\(503 Service Unavailable, Retry-After 30 s\\)';
    expect(lines[2]).toMatch(new RegExp(`^skip udp ${busy} in the penalty box: ${why}, (29|30) s left$`));
    expect(lines.slice(3)).toEqual([`try 1 udp ${hosts.live}:${port} (live-server.${ORIGIN}) response 200`]);
    expect(stdout.match(/answered by .*/g)).toEqual([
      `answered by udp ${hosts.live}:${port}`,
      `answered by udp ${hosts.live}:${port}`,
    ]);
    expect(stdout).toContain('2 of 2 requests answered\n');
  });

  it('a dead first server: an OPTIONS met by silence is not boxed, so the next request tries it again', async () => {
    const { code, stdout } = await ping(`sip:svc@dead.${ORIGIN}`, '--count', '2');
    expect(code).toBe(0);
    const twice = [
      `try 1 udp ${hosts.dead}:${port} (dead-server.${ORIGIN}) timeout -`,
      `try 2 udp ${hosts.live}:${port} (live-server.${ORIGIN}) response 200`,
    ];
    expect(tryLines(stdout)).toEqual([...twice, ...twice]);
  });

  it('--failover-on 500,503: the 500 moves on to the live server; without it the 500 is the answer', async () => {
    const moved = await ping(`sip:svc@err500.${ORIGIN}`, '--failover-on', '500,503');
    expect(moved.code).toBe(0);
    expect(tryLines(moved.stdout)).toEqual([
      `try 1 udp ${hosts.error}:${port} (error-server.${ORIGIN}) failover 500`,
      `try 2 udp ${hosts.live}:${port} (live-server.${ORIGIN}) response 200`,
    ]);
    const plain = await ping(`sip:svc@err500.${ORIGIN}`);
    expect(tryLines(plain.stdout)).toEqual([`try 1 udp ${hosts.error}:${port} (error-server.${ORIGIN}) response 500`]);
  });

  it('--transaction-timeout: four silent servers, a 500 ms bound: the walk stops there (exit 3)', async () => {
    const { code, stdout, stderr } = await ping(`sip:svc@silent.${ORIGIN}`, '--transaction-timeout', '500', '--json');
    expect(code).toBe(3);
    const [request] = JSON.parse(stdout).requests;
    expect(request.answeredBy).toBeNull();
    expect(request.attempts.length).toBeGreaterThan(0);
    expect(request.attempts.length).toBeLessThan(4);
    expect(request.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(request.attempts.map(() => 'timeout'));
    expect(stderr).toBe(`dnscore: 1 of 1 request to sip:svc@silent.${ORIGIN} got no answer\n`);
    const text = await ping(`sip:svc@silent.${ORIGIN}`, '--transaction-timeout', '500');
    const lines = tryLines(text.stdout);
    // Only the last try's timer was cut by the bound, and the line says so.
    expect(lines.at(-1)).toMatch(/ timeout - \[timer cut to \d+ ms by the transaction bound\]$/);
    expect(lines.slice(0, -1).every((l) => l.endsWith(' timeout -'))).toBe(true);
    expect(text.stdout).toMatch(
      new RegExp(
        'no answer: no answer from sip:svc@silent\\.ping\\.test within the transaction bound of 500 ms ' +
          '\\(\\d tried\\) \\[SIP_ERR_TRANSACTION_TIMEOUT\\]',
      ),
    );
  });

  it('--json prints one document in the shape of the issue', async () => {
    const { code, stdout } = await ping(`sip:svc@busy.${ORIGIN}`, '--count', '2', '--json');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const json = JSON.parse(stdout);
    const live = { transport: 'udp', address: hosts.live, port };
    expect(json).toEqual({
      requests: [
        {
          attempts: [
            {
              transport: 'udp',
              address: hosts.busy,
              port,
              outcome: 'failover',
              status: 503,
              ms: expect.any(Number),
              skipped: [],
              skippedNaptrs: [],
            },
            { ...live, outcome: 'response', status: 200, ms: expect.any(Number), skipped: [], skippedNaptrs: [] },
          ],
          answeredBy: live,
        },
        {
          attempts: [
            {
              ...live,
              outcome: 'response',
              status: 200,
              ms: expect.any(Number),
              skipped: [
                {
                  transport: 'udp',
                  address: hosts.busy,
                  port,
                  reason: 'retry-after',
                  detail: '503 Service Unavailable, Retry-After 30 s',
                  until: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
                },
              ],
              skippedNaptrs: [],
            },
          ],
          answeredBy: live,
        },
      ],
      penaltyBox: [
        {
          transport: 'udp',
          address: hosts.busy,
          port,
          reason: 'retry-after',
          detail: '503 Service Unavailable, Retry-After 30 s',
          until: json.requests[1].attempts[0].skipped[0].until,
        },
      ],
      naptrMemory: [],
    });
    const until = Date.parse(json.requests[1].attempts[0].skipped[0].until);
    expect(until - Date.now()).toBeGreaterThan(20_000);
    expect(until - Date.now()).toBeLessThanOrEqual(30_000);
  });

  it('TLS with --ca, and --method: the certificate is checked against the SIP domain', async () => {
    const { code, stdout } = await ping(`sips:svc@tls.${ORIGIN}`, '--ca', caFile, '--method', 'message', '--json');
    expect(code).toBe(0);
    // tls-wrong (first by priority) has no server here: refused, then tls-right answers.
    expect(JSON.parse(stdout).requests[0]).toEqual({
      attempts: [
        {
          transport: 'tls',
          address: hosts.tlsWrong,
          port,
          outcome: 'transport-error',
          status: null,
          ms: expect.any(Number),
          skipped: [],
          skippedNaptrs: [],
        },
        {
          transport: 'tls',
          address: hosts.tlsRight,
          port,
          outcome: 'response',
          status: 200,
          ms: expect.any(Number),
          skipped: [],
          skippedNaptrs: [],
        },
      ],
      answeredBy: { transport: 'tls', address: hosts.tlsRight, port },
    });
    expect(tls.serverNames).toEqual([`tls.${ORIGIN}`]);
    expect(tls.requests.map((r) => [r.method, r.uri, (r.headers.cseq as { method: string }).method])).toEqual([
      ['MESSAGE', `sips:svc@tls.${ORIGIN}`, 'MESSAGE'],
    ]);
  });
});

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('dnscore ping: NAPTR memory', () => {
  it('the TLS NAPTR refuses: its UDP NAPTR of the same order answers; --naptr-memory ttl remembers it', async () => {
    const record = `10 10 "s" "SIPS+D2T" "" _sips._tcp.downgrade.${ORIGIN}.`;
    const text = await ping(`sip:svc@downgrade.${ORIGIN}`, '--count', '2', '--naptr-memory', 'ttl');
    expect(text.code).toBe(0);
    expect(tryLines(text.stdout)).toEqual([
      `try 1 tls ${hosts.dead}:${port} (dead-server.${ORIGIN}) transport-error -`,
      `try 2 tls ${hosts.error}:${port} (error-server.${ORIGIN}) transport-error -`,
      expect.stringMatching(
        new RegExp(
          `^${escapeRegExp(`skip NAPTR ${record} of downgrade.${ORIGIN}: every target failed in this request`)} ` +
            `${escapeRegExp(`(tls ${hosts.dead}:${port} (transport error), `)}` +
            `${escapeRegExp(`tls ${hosts.error}:${port} (transport error));`)} ` +
            `remembered for \\d+ s$`,
        ),
      ),
      `try 3 udp ${hosts.live}:${port} (live-server.${ORIGIN}) response 200`,
      // The memory passes the TLS NAPTR over at once: its boxed servers are not even listed.
      expect.stringMatching(/^skip NAPTR .* remembered as failed \(every target failed: .*\), \d+ s left$/),
      `try 1 udp ${hosts.live}:${port} (live-server.${ORIGIN}) response 200`,
    ]);
    expect(text.stdout).toMatch(/^NAPTR memory: downgrade\.ping\.test NAPTR 10 10 "s" "SIPS\+D2T" .* left$/m);
    expect(text.stdout.match(/^penalty box: tls /gm)).toHaveLength(2);

    const json = JSON.parse((await ping(`sip:svc@downgrade.${ORIGIN}`, '--json')).stdout);
    const [tls1, tls2, udp] = json.requests[0].attempts;
    expect([tls1.skippedNaptrs, tls2.skippedNaptrs]).toEqual([[], []]);
    expect(udp.skippedNaptrs).toEqual([
      {
        owner: `downgrade.${ORIGIN}`,
        record,
        transport: 'tls',
        reason: 'failed',
        detail: expect.stringMatching(/^every target failed: tls /),
        until: null,
      },
    ]);
    // Memory across requests is off by default: nothing remembered.
    expect(json.naptrMemory).toEqual([]);
    expect(json.penaltyBox.map((e: { address: string; reason: string }) => `${e.address} ${e.reason}`)).toEqual([
      `${hosts.dead} transport-error`,
      `${hosts.error} transport-error`,
    ]);
  });
});

describe('dnscore ping: backend flags', () => {
  it('--resolver system --server: the targets come from nsd, as in dnscore resolve', async () => {
    const nsd = await startNsd([{ name: ORIGIN, text: readFileSync(zoneFile, 'utf8') }]);
    try {
      const { code, stdout } = await dnscore(
        'ping',
        `sip:svc@busy.${ORIGIN}`,
        '--resolver',
        'system',
        '--server',
        nsd.endpoint,
        '--bind',
        '127.0.0.1',
        '--json',
      );
      expect(code).toBe(0);
      expect(
        JSON.parse(stdout).requests[0].attempts.map(
          (a: { address: string; outcome: string }) => `${a.address} ${a.outcome}`,
        ),
      ).toEqual([`${hosts.busy} failover`, `${hosts.live} response`]);
    } finally {
      await nsd.stop();
    }
  });
});

describe('dnscore ping: off-nominal', () => {
  it('a request no target answered: exit 3, answeredBy null', async () => {
    const text = await ping(`sip:svc@refuse.${ORIGIN};transport=tcp`, '--transports', 'tcp');
    expect(text.code).toBe(3);
    expect(tryLines(text.stdout)).toEqual([
      `try 1 tcp ${hosts.dead}:${port} (dead-server.${ORIGIN}) transport-error -`,
      `try 2 tcp ${hosts.live}:${port} (live-server.${ORIGIN}) transport-error -`,
    ]);
    expect(text.stdout).toContain('no answer: every target of');
    expect(text.stderr).toBe(`dnscore: 1 of 1 request to sip:svc@refuse.${ORIGIN};transport=tcp got no answer\n`);
    const json = await ping(`sip:svc@nowhere.${ORIGIN}`, '--json');
    expect([json.code, JSON.parse(json.stdout)]).toEqual([
      3,
      { requests: [{ attempts: [], answeredBy: null }], penaltyBox: [], naptrMemory: [] },
    ]);
  });

  it('bad input exits 2 before anything is sent', async () => {
    for (const args of [
      [],
      ['not a uri'],
      ['sip:a@b.example', '--method', 'INVITE'],
      ['sip:a@b.example', '--method', 'BAD METHOD'],
      ['sip:a@b.example', '--count', '0'],
      ['sip:a@b.example', '--bind', 'localhost'],
      ['sip:a@b.example', '--transports', 'sctp'],
      ['sip:a@b.example', '--per-target-timeout', 'soon'],
      ['sip:a@b.example', '--transaction-timeout', '0'],
      ['sip:a@b.example', '--transaction-timeout', '32s'],
      ['sip:a@b.example', '--failover-on', '200'],
      ['sip:a@b.example', '--failover-on', '503,abc'],
      ['sip:a@b.example', '--failover-on', ''],
      ['sip:a@b.example', '--naptr-memory', 'always'],
      ['sip:a@b.example', '--ca', '/nonexistent/ca.pem'],
      ['sip:a@b.example', '--bogus'],
    ]) {
      const { code, stderr } = await dnscore('ping', ...args);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(stderr).toMatch(/^dnscore: /);
    }
  });
});
