/** The HTTP server against what a hostile client sends, and its API against the walk-through zone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolverPlugin } from '@dnscore/core';
import { SECURITY_HEADERS, startServer, type RunningServer } from '@dnscore/serve';
import { call, exampleServer, parseRaw, postJson, raw, recordingPlugin, withContinue } from './support/http.js';
import { zoneText } from './support/zones.js';

let server: RunningServer;
let close: () => Promise<void>;
const recorder = recordingPlugin();

beforeAll(async () => {
  // The recording plugin is behind the zone (priority 10 < 50 would put it first: it is after).
  const started = await exampleServer({ headersTimeoutMs: 400, requestTimeoutMs: 800, rateBurst: 1000 }, []);
  server = started.server;
  close = async () => {
    await started.server.close();
    await started.backend.close();
  };
});
afterAll(async () => close());

const host = () => `127.0.0.1:${server.port}`;

describe('serve: nominal', () => {
  it('binds loopback and serves the page with the safe headers and no CORS', async () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.exposed).toBe(false);
    const page = await call(server, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<h1>Where does a SIP request go?</h1>');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(page.headers[name]).toBe(value);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(Object.keys(page.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const head = await call(server, 'HEAD', '/app.js');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(1000);
  });

  it("HEAD of an API path: the GET answer's status and headers, no body", async () => {
    for (const path of ['/api/info', '/api/sip?uri=sip:bob@biloxi.example&seed=1', '/api/sip?uri=sip:']) {
      const get = await call(server, 'GET', path);
      const head = await call(server, 'HEAD', path);
      expect(head.status).toBe(get.status);
      expect(head.body).toBe('');
      expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
    }
    const failover = await call(server, 'HEAD', '/api/failover');
    expect(failover.status).toBe(405);
    expect(failover.headers.allow).toBe('POST');
  });

  it('serves the walk-through zone byte for byte as examples/ has it', async () => {
    const zone = await call(server, 'GET', '/example.zone');
    expect(zone.body).toBe(zoneText('../../../../examples/zones/biloxi.example'));
  });

  it('GET /api/sip: targets in RFC 2782 order, seeded as dnscore sip --seed', async () => {
    const a = await call(server, 'GET', '/api/sip?uri=sip:bob@biloxi.example&transports=udp,tcp&seed=7&ipv6=0');
    expect(a.status).toBe(200);
    const json = a.json();
    expect(Object.keys(json)).toEqual(['uri', 'transport', 'targets', 'steps', 'warnings', 'naptr']);
    expect(json.transport).toBe('tcp');
    const tcp = {
      owner: 'biloxi.example',
      record: '90 50 "s" "SIP+D2T" "" _sip._tcp.biloxi.example.',
      transport: 'tcp',
    };
    expect(json.naptr).toEqual({ chosen: tcp, expires: json.targets[0].expires, candidates: [tcp], passed: [] });
    expect(
      json.targets
        .map((t: { host: string; port: number; priority: number; weight: number }) => [
          t.host,
          t.port,
          t.priority,
          t.weight,
        ])
        .at(-1),
    ).toEqual(['backup.biloxi.example', 5060, 20, 0]);
    expect(json.steps[1]).toMatchObject({ kind: 'query', round: 1, name: 'biloxi.example', type: 'NAPTR' });
    const again = await call(server, 'GET', '/api/sip?uri=sip:bob@biloxi.example&transports=udp,tcp&seed=7&ipv6=0');
    expect(again.json().targets.map((t: { host: string }) => t.host)).toEqual(
      json.targets.map((t: { host: string }) => t.host),
    );
  });

  it('POST /api/sip answers from the zone text alone, never from the backend', async () => {
    const text = zoneText('dot.example');
    const a = await postJson(server, '/api/sip', {
      uri: 'sip:dot.example',
      zone: text,
      transports: ['udp', 'tcp', 'tls'],
    });
    expect(a.status).toBe(200);
    expect(a.json().targets.map((t: { transport: string; address: string }) => `${t.transport} ${t.address}`)).toEqual(
      expect.arrayContaining(['tcp 192.0.2.1', 'tcp 2001:db8::2']),
    );
    // biloxi.example is the backend's, not the text's: the zone text answers NOT_AUTHORITATIVE.
    const outside = await postJson(server, '/api/sip', { uri: 'sip:bob@biloxi.example', zone: text });
    expect(outside.status).toBe(200);
    expect(outside.json().targets).toEqual([]);
    expect(outside.json().steps[1].error.code).toBe('DNS_ERR_NOT_AUTHORITATIVE');
  });

  it('/api/draws: N draws, and the exact chance of the RFC 2782 draw beside them (backup never first)', async () => {
    const a = await postJson(server, '/api/draws', { uri: 'sip:bob@biloxi.example', seed: 3, n: 1000 });
    const json = a.json();
    expect(json.n).toBe(1000);
    expect(Object.keys(json.first)).toEqual(['sip1.biloxi.example', 'sip2.biloxi.example']);
    expect(json.first['sip1.biloxi.example'] + json.first['sip2.biloxi.example']).toBe(1000);
    expect(json.first['sip1.biloxi.example'] / 1000).toBeGreaterThan(0.55);
    expect(json.first['sip1.biloxi.example'] / 1000).toBeLessThan(0.66);
    // Exact: weight / (sum + 1), and pick 0 (no weight is 0) half each: 2 * 101 outcomes.
    const exact = (host: string, priority: number, weight: number, numerator: number, pickZero: boolean) => ({
      host,
      priority,
      weight,
      numerator,
      denominator: 202,
      share: numerator / 202,
      pickZero,
    });
    expect(json.expected).toEqual([
      exact('sip1.biloxi.example', 10, 60, 121, true),
      exact('sip2.biloxi.example', 10, 40, 81, true),
      exact('backup.biloxi.example', 20, 0, 0, false),
    ]);
  });

  it('/api/check answers what runCheck reports', async () => {
    const a = await call(server, 'GET', `/api/check?target=${encodeURIComponent('sip:bob@biloxi.example:5060')}`);
    expect(a.status).toBe(200);
    expect(a.json().findings.map((f: { code: string }) => f.code)).toEqual(['uri-port']);
  });
});

describe('serve: the failover ladder', () => {
  it(
    'sip1 silent over UDP: retransmissions at T1 doubling, the timer, the penalty box, then sip2; the ' +
      'next request skips sip1',
    async () => {
      const a = await postJson(server, '/api/failover', {
        uri: 'sip:bob@biloxi.example',
        transports: ['udp'],
        ipv6: false,
        seed: 1,
        down: { '203.0.113.11': 'silent', '203.0.113.12': '503' },
        requests: 2,
      });
      expect(a.status).toBe(200);
      const ladder = a.json();
      expect(ladder.timerMs).toBe(6000);
      const lines = (ladder.text as string[]).map((l) => {
        const m = /^\s*([\d.]+) s {2}(.*)$/.exec(l);
        return m ? { t: Number(m[1]), line: m[2]!.trim() } : { t: -1, line: l };
      });
      const sip1 = lines.filter((l) => l.line.includes('(sip1.biloxi.example)') && l.t >= 0);
      const t0 = sip1[0]!.t;
      expect(sip1.map((l) => [Number((l.t - t0).toFixed(3)), l.line])).toEqual([
        [0, '-> UDP 203.0.113.11:5060 (sip1.biloxi.example): INVITE (sip1.biloxi.example)'],
        [0.5, '-> UDP 203.0.113.11:5060 (sip1.biloxi.example): INVITE retransmission 1 (Timer A 0.5 s)'],
        [1.5, '-> UDP 203.0.113.11:5060 (sip1.biloxi.example): INVITE retransmission 2 (Timer A 1 s)'],
        [3.5, '-> UDP 203.0.113.11:5060 (sip1.biloxi.example): INVITE retransmission 3 (Timer A 2 s)'],
        [6, 'UDP 203.0.113.11:5060 (sip1.biloxi.example): no response within 6 s: the per-target timer fires'],
        [6, `UDP 203.0.113.11:5060 (sip1.biloxi.example): to the penalty box until ${t0 + 66} s (timeout)`],
        // Request 2 starts with sip1 boxed: tried last.
        [
          sip1.at(-1)!.t - t0,
          `UDP 203.0.113.11:5060 (sip1.biloxi.example): in the penalty box until ${t0 + 66} s: tried last`,
        ],
      ]);
      // Request 1 ends at the backup after sip2 answered 503. A 503 without Retry-After boxes nothing
      // (@dnscore/sip's default policy): request 2 tries sip2 again, then the backup.
      expect(ladder.requests).toEqual([
        {
          request: 1,
          at: 0,
          answeredBy: 'udp 198.51.100.50 5060',
          attempts: expect.any(Array),
        },
        {
          request: 2,
          at: expect.any(Number),
          answeredBy: 'udp 198.51.100.50 5060',
          attempts: [
            { lane: 'udp 203.0.113.12 5060', outcome: '503', penalized: false },
            { lane: 'udp 198.51.100.50 5060', outcome: 'answered', penalized: false },
          ],
        },
      ]);
      const outcomes = ladder.requests[0].attempts.map(
        (t: { lane: string; outcome: string }) => `${t.lane} ${t.outcome}`,
      );
      expect(outcomes).toEqual(
        outcomes[0].startsWith('udp 203.0.113.11')
          ? ['udp 203.0.113.11 5060 timeout', 'udp 203.0.113.12 5060 503', 'udp 198.51.100.50 5060 answered']
          : ['udp 203.0.113.12 5060 503', 'udp 203.0.113.11 5060 timeout', 'udp 198.51.100.50 5060 answered'],
      );
      expect(ladder.penaltyBox.map((p: { lane: string; reason: string }) => `${p.lane} ${p.reason}`).sort()).toEqual([
        'udp 203.0.113.11 5060 timeout',
      ]);
    },
  );

  it('refusing TCP: a reset and the next target at once; UDP to the same server still answers', async () => {
    const tcp = (
      await postJson(server, '/api/failover', {
        uri: 'sip:bob@biloxi.example;transport=tcp',
        seed: 5,
        down: { '203.0.113.11': 'refuse-tcp', '203.0.113.12': 'refuse-tcp' },
        requests: 1,
      })
    ).json();
    expect(tcp.requests[0].attempts.map((t: { outcome: string }) => t.outcome)).toEqual([
      'transport-error',
      'transport-error',
      'answered',
    ]);
    expect(tcp.text.filter((l: string) => l.includes('TCP connection refused (RST)'))).toHaveLength(2);
    const udp = (
      await postJson(server, '/api/failover', {
        uri: 'sip:bob@biloxi.example;transport=udp',
        seed: 5,
        down: { '203.0.113.11': 'refuse-tcp', '203.0.113.12': 'refuse-tcp' },
        requests: 1,
      })
    ).json();
    expect(udp.requests[0].attempts).toHaveLength(1);
    expect(udp.requests[0].attempts[0].outcome).toBe('answered');
  });

  it.each([
    ['sip1.biloxi.example', 'down["sip1.biloxi.example"]: the key must be a target\'s IPv4 or IPv6 address'],
    ['203.0.113.011', 'down["203.0.113.011"]: the key must be a target\'s IPv4 or IPv6 address'],
    ['fe80::1%eth0', 'down["fe80::1%eth0"]: the key must be a target\'s IPv4 or IPv6 address'],
  ])(
    'a server taken down by %s, which no target can be: 400, not a ladder where nothing failed',
    async (key, message) => {
      const a = await postJson(server, '/api/failover', { uri: 'sip:bob@biloxi.example', down: { [key]: 'silent' } });
      expect(a.status).toBe(400);
      expect(a.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message });
    },
  );

  it('an IPv6 server taken down in another spelling is the target it names', async () => {
    const ask = (down: Record<string, string>) =>
      postJson(server, '/api/failover', {
        uri: 'sip:dot.example;transport=tcp',
        zone: zoneText('dot.example'),
        seed: 1,
        down,
        requests: 1,
      });
    const ladder = (await ask({ '2001:0DB8:0:0:0:0:0:2': '503', '192.0.2.1': '503' })).json();
    expect(ladder.lanes.map((l: { id: string; fault: string | null }) => `${l.id} ${l.fault}`).sort()).toEqual([
      'tcp 192.0.2.1 5060 503',
      'tcp 2001:db8::2 5060 503',
    ]);
    expect(ladder.requests[0].attempts.map((t: { outcome: string }) => t.outcome)).toEqual(['503', '503']);
    const twice = await ask({ '2001:db8::2': '503', '2001:DB8::2': 'silent' });
    expect(twice.status).toBe(400);
    expect(twice.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message: 'down names 2001:db8::2 twice' });
  });

  it('32 s per-target timer (Timer B): six retransmissions, then the transaction bound ends the request', async () => {
    const ladder = (
      await postJson(server, '/api/failover', {
        uri: 'sip:bob@biloxi.example;transport=udp',
        down: { '203.0.113.11': 'silent', '203.0.113.12': 'silent', '198.51.100.50': 'silent' },
        timerMs: 32000,
        requests: 1,
      })
    ).json();
    const first = ladder.text.filter((l: string) => l.includes('retransmission') && l.includes(ladder.lanes[0].label));
    expect(first.map((l: string) => /Timer A ([\d.]+ s)/.exec(l)![1])).toEqual([
      '0.5 s',
      '1 s',
      '2 s',
      '4 s',
      '8 s',
      '16 s',
    ]);
    expect(ladder.text.at(-1)).toBe('request 1: not answered');
    // One try fills the whole 32 s transaction bound: the other two servers are never tried.
    expect(ladder.requests[0].attempts).toHaveLength(1);
    expect(ladder.text).toContain(
      '      32 s  the transaction bound (32 s, Timer B) ran out: request 1 gets no answer',
    );
  });
});

describe('serve: hostile requests', () => {
  it.each([
    ['/../../etc/passwd'],
    ['/%2e%2e/%2e%2e/etc/passwd'],
    ['/page/../package.json'],
    ['/app.js/..%2f..%2fpackage.json'],
    ['/index.html'],
    ['/api/../app.js%00'],
  ])('path traversal %s is a 404, never a file', async (path) => {
    const a = await raw(server.port, [`GET ${path} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`]);
    expect(a).toMatch(/^HTTP\/1\.1 (404|400) /);
    expect(a).not.toContain('root:');
    expect(a).not.toContain('"name": "@dnscore/serve"');
  });

  it.each([
    ['/\\evil.example/api/info'],
    ['/\\evil.example'],
    ['/\\/evil.example/app.js'],
    ['/api\\info'],
    ['/..\\..\\package.json'],
  ])('a backslash in the path %s: 400, never the page or an API answer', async (path) => {
    const a = parseRaw(
      await raw(server.port, [`GET ${path} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`]),
    );
    expect(a.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(a.body)).toEqual({
      error: { code: 'SERVE_ERR_BAD_REQUEST', message: 'the request path holds a backslash (write it %5C)' },
    });
  });

  it.each(['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'])('%s is a 405 with Allow', async (method) => {
    const a = await raw(server.port, [`${method} /api/sip HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`]);
    expect(a).toMatch(/^HTTP\/1\.1 405 /);
    expect(a.toLowerCase()).toContain('allow: get, head, post');
    expect(a).toContain('"code":"SERVE_ERR_METHOD"');
  });

  // Answers node's parser or node itself would write (no handler runs) carry the safe headers and a JSON error too.
  it.each([
    [
      'CONNECT (a tunnel)',
      () => `CONNECT ${host()} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`,
      'HTTP/1.1 405 Method Not Allowed',
      { code: 'SERVE_ERR_METHOD', message: 'method CONNECT is not allowed here; use GET or HEAD or POST' },
    ],
    [
      'a request line that is not HTTP',
      () => 'GET / HTTP/1.1 x\r\n\r\n',
      'HTTP/1.1 400 Bad Request',
      { code: 'SERVE_ERR_BAD_REQUEST', message: 'the request is not valid HTTP/1.1' },
    ],
    [
      'Content-Length beside Transfer-Encoding (smuggling)',
      () =>
        `POST /api/sip HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'HTTP/1.1 400 Bad Request',
      { code: 'SERVE_ERR_BAD_REQUEST', message: 'the request is not valid HTTP/1.1' },
    ],
    [
      'two Content-Length headers that differ',
      () =>
        `POST /api/sip HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      'HTTP/1.1 400 Bad Request',
      { code: 'SERVE_ERR_BAD_REQUEST', message: 'the request is not valid HTTP/1.1' },
    ],
    [
      'oversized headers',
      () => `GET / HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'HTTP/1.1 431 Request Header Fields Too Large',
      { code: 'SERVE_ERR_HEADERS_TOO_LARGE', message: 'headers over 8192 bytes' },
    ],
    [
      'a header block that never ends',
      () => `GET / HTTP/1.1\r\nHost: ${host()}\r\n`,
      'HTTP/1.1 408 Request Timeout',
      { code: 'SERVE_ERR_REQUEST_TIMEOUT', message: 'the request took too long to arrive' },
    ],
    [
      'an Expect other than 100-continue',
      () => `GET / HTTP/1.1\r\nHost: ${host()}\r\nExpect: 200-ok\r\n\r\n`,
      'HTTP/1.1 417 Expectation Failed',
      { code: 'SERVE_ERR_EXPECTATION', message: 'Expect "200-ok" is not supported' },
    ],
  ])('%s: a JSON error with the safe headers on a closing connection', async (_what, request, statusLine, error) => {
    const a = parseRaw(await raw(server.port, [request()]));
    expect(a.statusLine).toBe(statusLine);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(a.headers[name]).toBe(value);
    expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(a.headers.connection).toBe('close');
    expect(JSON.parse(a.body)).toEqual({ error: error });
  });

  it('oversized headers: 431, and the server goes on', async () => {
    const a = await raw(server.port, [`GET / HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(a).toMatch(/^HTTP\/1\.1 431 /);
    expect(a).toContain('"code":"SERVE_ERR_HEADERS_TOO_LARGE"');
    expect((await call(server, 'GET', '/')).status).toBe(200);
  });

  it('an oversized body: 413 before it is all read', async () => {
    const declared = await call(
      server,
      'POST',
      '/api/sip',
      { 'content-type': 'application/json', 'content-length': '10000000' },
      '',
    );
    expect(declared.status).toBe(413);
    const big = JSON.stringify({ uri: 'sip:a@b.example', zone: 'x'.repeat(200_000) });
    const streamed = await call(server, 'POST', '/api/sip', { 'content-type': 'application/json' }, big);
    expect(streamed.status).toBe(413);
    expect(streamed.json().error.code).toBe('SERVE_ERR_TOO_LARGE');
  });

  it('Expect: 100-continue: a request that will be refused gets its final answer, never 100 Continue', async () => {
    const head = (headers: string) =>
      `POST /api/sip HTTP/1.1\r\n${headers}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    const json = 'Content-Type: application/json';
    for (const [headers, statusLine, code] of [
      [
        `Host: ${host()}\r\n${json}\r\nContent-Length: 10000000`,
        'HTTP/1.1 413 Payload Too Large',
        'SERVE_ERR_TOO_LARGE',
      ],
      [`Host: evil.example\r\n${json}\r\nContent-Length: 20`, 'HTTP/1.1 421 Misdirected Request', 'SERVE_ERR_HOST'],
      [
        `Host: ${host()}\r\nContent-Type: text/plain\r\nContent-Length: 20`,
        'HTTP/1.1 415 Unsupported Media Type',
        'SERVE_ERR_MEDIA_TYPE',
      ],
    ] as const) {
      const a = parseRaw(await withContinue(server.port, head(headers), 'x'.repeat(20)));
      expect(a.statusLine).toBe(statusLine);
      expect(a.headers.connection).toBe('close');
      expect(JSON.parse(a.body).error.code).toBe(code);
    }
    // A request that will be read: 100 Continue, then the answer to the body sent after it.
    const body = '{"uri":"sip:bob@biloxi.example","transports":"udp","ipv6":false}';
    const ok = await withContinue(
      server.port,
      head(`Host: ${host()}\r\n${json}\r\nContent-Length: ${body.length}`),
      body,
    );
    expect(ok.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    const answer = parseRaw(ok.slice('HTTP/1.1 100 Continue\r\n\r\n'.length));
    expect(answer.statusLine).toBe('HTTP/1.1 200 OK');
    expect(JSON.parse(answer.body).transport).toBe('udp');
  });

  it('102 requests pipelined on one connection: 100 answers, the last closing it, never a bare 503', async () => {
    const one = `GET /style.css HTTP/1.1\r\nHost: ${host()}\r\n\r\n`;
    const all = await raw(server.port, [one.repeat(102)]);
    const answers = all.split(/(?=HTTP\/1\.1 \d{3} )/).map(parseRaw);
    expect(answers.map((a) => a.statusLine)).toEqual(Array(100).fill('HTTP/1.1 200 OK'));
    expect(answers.map((a) => a.headers.connection)).toEqual([...Array(99).fill('keep-alive'), 'close']);
    expect(answers[99]!.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a request, then garbage on its connection: the answer to the request, not the 400 of the garbage', async () => {
    const request = `GET /api/sip?uri=sip:bob@biloxi.example&transports=udp HTTP/1.1\r\nHost: ${host()}\r\n\r\n`;
    const all = await raw(server.port, [`${request}NOT HTTP AT ALL\r\n\r\n`]);
    const first = parseRaw(all);
    expect(first.statusLine).toBe('HTTP/1.1 200 OK');
    expect(first.headers.connection).toBe('close');
    expect(JSON.parse(first.body.slice(0, Number(first.headers['content-length']))).transport).toBe('udp');
  });

  it('a body that stops coming: 408, and the connection is closed', async () => {
    const a = parseRaw(
      await raw(server.port, [
        `POST /api/sip HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\n`,
        'Content-Length: 100\r\n\r\n{"uri":',
      ]),
    );
    expect(a.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(a.body)).toEqual({
      error: { code: 'SERVE_ERR_REQUEST_TIMEOUT', message: 'the request took too long to arrive' },
    });
  });

  it('slowloris: a header block dribbled in is cut off', async () => {
    const pieces = [
      'GET / HTTP/1.1\r\n',
      `Host: ${host()}\r\n`,
      ...Array.from({ length: 40 }, (_, i) => `X-${i}: a\r\n`),
    ];
    const a = await raw(server.port, pieces, 50);
    expect(a).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(a).toContain('"code":"SERVE_ERR_REQUEST_TIMEOUT"');
  });

  it.each([
    ['{"uri": "sip:a@b.example",', 'the body is not JSON'],
    ['[1,2]', 'must be a JSON object'],
    ['"sip:a@b.example"', 'must be a JSON object'],
    ['{"uri": 42}', 'uri must be a string'],
    ['{"uri": "sip:a@b.example", "transports": ["udp", "carrier-pigeon"]}', 'transports must be a list'],
    ['{"uri": "sip:a@b.example", "ipv4": false, "ipv6": false}', 'cannot both be off'],
    ['{"uri": "sip:a@b.example", "seed": 1.5}', 'seed must be a whole number'],
  ])('malformed JSON %s: 400 with the reason', async (body, message) => {
    const a = await call(server, 'POST', '/api/sip', { 'content-type': 'application/json' }, body);
    expect(a.status).toBe(400);
    expect(a.json().error.code).toBe('SERVE_ERR_BAD_REQUEST');
    expect(a.json().error.message).toContain(message);
  });

  it('ipv4/ipv6 as the JSON numbers 1 and 0, which the error message offers, are true and false', async () => {
    const q = { uri: 'sip:bob@biloxi.example', transports: ['udp'] };
    const off = await postJson(server, '/api/sip', { ...q, ipv4: 1, ipv6: 0 });
    expect(off.status).toBe(200);
    expect(off.json().targets.map((t: { family: number }) => t.family)).toEqual([4, 4, 4]);
    const both = await postJson(server, '/api/sip', { ...q, ipv4: 0, ipv6: 0 });
    expect(both.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message: 'ipv4 and ipv6 cannot both be off' });
    const two = await postJson(server, '/api/sip', { ...q, ipv4: 2 });
    expect(two.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message: 'ipv4 must be true or false (1 or 0)' });
  });

  it('JSON nested 40,000 deep: 400, no stack overflow', async () => {
    const body = `{"uri": ${'['.repeat(40_000)}${']'.repeat(40_000)}}`;
    const a = await call(server, 'POST', '/api/sip', { 'content-type': 'application/json' }, body);
    expect(a.status).toBe(400);
    expect(a.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message: 'uri must be a string' });
  });

  it('a client that resets mid-body leaves the server answering', async () => {
    const { connect } = await import('node:net');
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(
          `POST /api/sip HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\n` +
            'Content-Length: 5000\r\n\r\n{"uri": "sip:',
        );
        setTimeout(() => {
          socket.resetAndDestroy();
          resolve();
        }, 50);
      });
    });
    expect((await call(server, 'GET', '/api/info')).status).toBe(200);
  });

  it('a body that is not UTF-8: 400', async () => {
    const a = await call(
      server,
      'POST',
      '/api/sip',
      { 'content-type': 'application/json' },
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    );
    expect(a.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message: 'the body is not UTF-8' });
  });

  it.each([
    ['/api/sip?uri=sip%3Abob%40', 'SIP_ERR_INVALID_URI'],
    ['/api/sip', 'SERVE_ERR_BAD_REQUEST'],
    ['/api/sip?uri=sip:a@b.example&uri=sip:c@d.example', 'SERVE_ERR_BAD_REQUEST'],
    [`/api/sip?uri=sip:${'a'.repeat(1100)}.example`, 'SERVE_ERR_BAD_REQUEST'],
    ['/api/draws?uri=sip:bob@biloxi.example&n=100000', 'SERVE_ERR_BAD_REQUEST'],
    ['/api/check?target=bad..name', 'DNS_ERR_INVALID_ARGUMENT'],
  ])('malformed question %s: 400 with a typed code', async (path, code) => {
    const a = await call(server, 'GET', path);
    expect(a.status).toBe(400);
    expect(a.json().error.code).toBe(code);
  });

  it.each([
    [
      'GET',
      '/api/sip?uri=sip:bob@biloxi.example&transport=tcp',
      undefined,
      '/api/sip takes no parameter "transport"; it takes uri, transports, ipv4, ipv6, seed, zone',
    ],
    [
      'POST',
      '/api/draws',
      { uri: 'sip:bob@biloxi.example', count: 10 },
      '/api/draws takes no parameter "count"; it takes uri, transports, ipv4, ipv6, seed, zone, n',
    ],
    [
      'POST',
      '/api/check',
      { target: 'biloxi.example', transports: ['tcp'] },
      '/api/check takes no parameter "transports"; it takes target, zone',
    ],
    ['GET', '/api/info?verbose=1', undefined, '/api/info takes no parameter "verbose"'],
  ])(
    '%s %s with a parameter the path does not read: 400, not an answer without it',
    async (method, path, body, message) => {
      const a = method === 'GET' ? await call(server, 'GET', path) : await postJson(server, path, body);
      expect(a.status).toBe(400);
      expect(a.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message });
    },
  );

  it.each([
    ['/api/sip?uri=%E0%A4%A', 'the query string has a "%" not followed by two hex digits: "uri=%E0%A4%A"'],
    ['/api/sip?uri=%', 'the query string has a "%" not followed by two hex digits: "uri=%"'],
    [
      '/api/sip?uri=sip:bob@biloxi.example;x=%zz',
      'the query string has a "%" not followed by two hex digits: "uri=sip:bob@biloxi.example;x=%zz"',
    ],
    [
      '/api/sip?uri=sip:b%FFob@biloxi.example',
      'the query string is not UTF-8 once decoded: "uri=sip:b%FFob@biloxi.example"',
    ],
    [
      '/api/check?target=biloxi.example%C0%AE',
      'the query string is not UTF-8 once decoded: "target=biloxi.example%C0%AE"',
    ],
    ['/api/sip?uri=sip:bob@biloxi.example&%ED%A0%80=1', 'the query string is not UTF-8 once decoded: "%ED%A0%80=1"'],
  ])('a query string that does not decode, %s: 400 saying so, not U+FFFD or a "%" passed on', async (path, message) => {
    const a = await call(server, 'GET', path);
    expect(a.status).toBe(400);
    expect(a.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message });
  });

  it('escapes that decode to UTF-8 are the text they stand for', async () => {
    const a = await call(server, 'GET', '/api/sip?uri=sip%3Abob%40biloxi%2Eexample&transports=%75dp&ipv6=0');
    expect(a.status).toBe(200);
    expect(a.json()).toMatchObject({ uri: 'sip:bob@biloxi.example', transport: 'udp' });
    const e = await call(server, 'GET', '/api/check?target=%C3%A9.example');
    expect(e.status).toBe(400);
    expect(e.json().error.message).toContain('"é.example" is not a domain');
  });

  it.each([5000, 9000, 70_000])('a request target of %i bytes: 414, also past the 8 KB of headers', async (n) => {
    const a = await call(server, 'GET', `/api/sip?uri=${'a'.repeat(n)}`);
    expect(a.status).toBe(414);
    expect(a.json().error).toEqual({
      code: 'SERVE_ERR_URI_TOO_LONG',
      message: 'the request target is longer than 4096 bytes',
    });
    expect(a.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a header over 8 KB that arrives in pieces is still a 431, not taken for a long target', async () => {
    const header = parseRaw(
      await raw(server.port, [`GET / HTTP/1.1\r\nHost: ${host()}\r\nX-Big: `, 'a'.repeat(6000), 'a'.repeat(6000)], 20),
    );
    expect(header.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
  });

  it('DNS rebinding: a Host that is not this server is refused (421); no Host at all too', async () => {
    for (const h of [
      'evil.example',
      `evil.example:${server.port}`,
      `127.0.0.1:${server.port + 1}`,
      'localhost.evil.example',
    ]) {
      const a = await call(server, 'GET', '/api/info', { host: h });
      expect(a.status).toBe(421);
      expect(a.json().error.code).toBe('SERVE_ERR_HOST');
    }
    expect((await call(server, 'GET', '/', { host: `localhost:${server.port}` })).status).toBe(200);
    const none = await raw(server.port, ['GET / HTTP/1.0\r\n\r\n']);
    expect(none).toMatch(/^HTTP\/1\.1 421 /);
  });

  it('HTTP/1.1 without Host, or with an empty one: 400 (RFC 9112 section 3.2); HTTP/1.0 without: 421', async () => {
    for (const request of ['GET /api/info HTTP/1.1\r\nConnection: close\r\n\r\n', 'GET / HTTP/1.1\r\nHost:\r\n\r\n']) {
      const a = parseRaw(await raw(server.port, [request]));
      expect(a.statusLine).toBe('HTTP/1.1 400 Bad Request');
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(JSON.parse(a.body)).toEqual({
        error: { code: 'SERVE_ERR_BAD_REQUEST', message: 'the Host header is missing or empty (HTTP/1.1 requires it)' },
      });
    }
    const old = parseRaw(await raw(server.port, ['GET / HTTP/1.0\r\n\r\n']));
    expect(old.statusLine).toBe('HTTP/1.1 421 Misdirected Request');
    expect(JSON.parse(old.body)).toEqual({ error: { code: 'SERVE_ERR_HOST', message: 'the Host header is missing' } });
  });

  it('two Host headers: 400, whichever comes first', async () => {
    for (const [first, second] of [
      [host(), 'evil.example'],
      ['evil.example', host()],
      [host(), host()],
    ]) {
      const a = parseRaw(
        await raw(server.port, [
          `GET /api/info HTTP/1.1\r\nHost: ${first}\r\nHost: ${second}\r\nConnection: close\r\n\r\n`,
        ]),
      );
      expect(a.statusLine).toBe('HTTP/1.1 400 Bad Request');
      expect(JSON.parse(a.body)).toEqual({
        error: { code: 'SERVE_ERR_BAD_REQUEST', message: 'the Host header is given 2 times' },
      });
    }
  });

  it('an absolute-form target (RFC 9112 section 3.2.2): its authority is checked in place of Host', async () => {
    const ask = (target: string, hostHeader: string) =>
      raw(server.port, [`GET ${target} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`]).then(parseRaw);
    const info = await ask(`http://${host()}/api/info`, 'evil.example');
    expect(info.statusLine).toBe('HTTP/1.1 200 OK');
    expect(JSON.parse(info.body).backend).toBe('zone');
    expect((await ask(`HTTP://localhost:${server.port}`, host())).statusLine).toBe('HTTP/1.1 200 OK');
    for (const target of [`http://evil.example:${server.port}/api/info`, `http://user@${host()}/api/info`]) {
      const refused = await ask(target, host());
      expect(refused.statusLine).toBe('HTTP/1.1 421 Misdirected Request');
      expect(JSON.parse(refused.body).error.code).toBe('SERVE_ERR_HOST');
    }
    const other = await ask(`https://${host()}/api/info`, host());
    expect(other.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(other.body).error).toEqual({
      code: 'SERVE_ERR_BAD_REQUEST',
      message: 'the request target must be a path, or http://host:port/ and a path',
    });
  });

  it('a cross-origin or non-JSON write is refused (403, 415)', async () => {
    const q = { uri: 'sip:bob@biloxi.example' };
    const other = await postJson(server, '/api/sip', q, { origin: 'http://evil.example' });
    expect(other.status).toBe(403);
    const site = await postJson(server, '/api/sip', q, { 'sec-fetch-site': 'cross-site' });
    expect(site.status).toBe(403);
    const form = await call(server, 'POST', '/api/sip', { 'content-type': 'text/plain' }, JSON.stringify(q));
    expect(form.status).toBe(415);
    expect((await postJson(server, '/api/sip', q, { origin: `http://${host()}` })).status).toBe(200);
  });

  it('a compressed body (Content-Encoding gzip): 415 naming the coding, not "the body is not UTF-8"', async () => {
    const { gzipSync } = await import('node:zlib');
    const body = gzipSync(JSON.stringify({ uri: 'sip:bob@biloxi.example' }));
    const a = await call(
      server,
      'POST',
      '/api/sip',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    );
    expect(a.status).toBe(415);
    expect(a.json().error).toEqual({
      code: 'SERVE_ERR_MEDIA_TYPE',
      message: 'the body must not be encoded (Content-Encoding gzip)',
    });
    const identity = await call(
      server,
      'POST',
      '/api/sip',
      { 'content-type': 'application/json', 'content-encoding': 'identity' },
      JSON.stringify({ uri: 'sip:bob@biloxi.example' }),
    );
    expect(identity.status).toBe(200);
  });

  it('a zone text cannot read a file ($INCLUDE) nor make the server ask anyone', async () => {
    const text = '$ORIGIN x.example.\n$TTL 60\n@ IN SOA ns h 1 2 3 4 5\n$INCLUDE /etc/passwd\n';
    const a = await postJson(server, '/api/sip', { uri: 'sip:x.example', zone: text });
    expect(a.status).toBe(400);
    expect(a.json().error).toMatchObject({ code: 'SERVE_ERR_ZONE', line: 4 });
    expect(a.body).not.toContain('root:');
  });

  it('a zone text over 64 KB is refused before it is parsed; GET /api/failover is a 405', async () => {
    const zone = `${zoneText('dot.example')}${';'.repeat(70_000)}\n`;
    const a = await postJson(server, '/api/sip', { uri: 'sip:dot.example', zone });
    expect(a.status).toBe(400);
    expect(a.json().error).toEqual({ code: 'SERVE_ERR_BAD_REQUEST', message: 'zone is longer than 65536 characters' });
    const get = await call(server, 'GET', '/api/failover?uri=sip:bob@biloxi.example');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('a zone text error names its line', async () => {
    const text = zoneText('dot.example').replace('a           IN  A     192.0.2.1', 'a IN A 300.1.2.3');
    const a = await postJson(server, '/api/sip', { uri: 'sip:dot.example', zone: text });
    expect(a.status).toBe(400);
    expect(a.json().error).toEqual({
      code: 'SERVE_ERR_ZONE',
      message: 'zone text line 11: "300.1.2.3" is not an IPv4 address',
      line: 11,
    });
  });
});

describe('serve: limits of its own', () => {
  it('over the request rate: 429 with Retry-After', async () => {
    const { server: s, backend } = await exampleServer({ ratePerSecond: 1, rateBurst: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(s, 'GET', '/api/info')).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const limited = await call(s, 'GET', '/api/info');
      expect(limited.headers['retry-after']).toBe('1');
      expect(limited.json().error.code).toBe('SERVE_ERR_RATE');
    } finally {
      await s.close();
      await backend.close();
    }
  });

  it('over its connections: a request on one more is a 503 with Retry-After, then served again', async () => {
    const { connect } = await import('node:net');
    const { server: s, backend } = await exampleServer({ maxConnections: 2 });
    const idle = await Promise.all(
      [1, 2].map(
        () =>
          new Promise<import('node:net').Socket>((resolve) => {
            const socket = connect(s.port, '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    try {
      const hostLine = `Host: 127.0.0.1:${s.port}`;
      const a = parseRaw(await raw(s.port, [`GET /api/info HTTP/1.1\r\n${hostLine}\r\n\r\n`]));
      expect(a.statusLine).toBe('HTTP/1.1 503 Service Unavailable');
      expect(a.headers['retry-after']).toBe('1');
      expect(a.headers.connection).toBe('close');
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(JSON.parse(a.body)).toEqual({
        error: { code: 'SERVE_ERR_BUSY', message: 'more than 2 connections at once: try again in a second' },
      });
      await Promise.all(idle.map((socket) => new Promise<void>((resolve) => socket.end(() => resolve()))));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await call(s, 'GET', '/api/info')).status).toBe(200);
    } finally {
      for (const socket of idle) socket.destroy();
      await s.close();
      await backend.close();
    }
  });

  it("a GET of the API from another site's page: 403, and it spends none of the user's rate", async () => {
    const { server: s, backend } = await exampleServer({ ratePerSecond: 1, rateBurst: 2 });
    try {
      for (const headers of [
        { 'sec-fetch-site': 'cross-site' } as Record<string, string>,
        { 'sec-fetch-site': 'same-site' },
        { origin: 'http://evil.example' },
        { 'sec-fetch-site': 'cross-site' },
      ]) {
        const a = await call(s, 'GET', '/api/check?target=biloxi.example', headers);
        expect(a.status).toBe(403);
        expect(a.json().error.code).toBe('SERVE_ERR_ORIGIN');
      }
      const own = { 'sec-fetch-site': 'same-origin' };
      expect((await call(s, 'GET', '/api/info', own)).status).toBe(200);
      expect((await call(s, 'GET', '/api/info')).status).toBe(200);
    } finally {
      await s.close();
      await backend.close();
    }
  });

  it('a client that goes away mid-resolution: every question is aborted, no unhandled rejection', async () => {
    const { connect } = await import('node:net');
    const log: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const hanging = {
      name: 'hanging',
      priority: 1,
      available: () => true,
      close: () => {},
      resolve: (q: { name: string; type: number }, signal: AbortSignal) =>
        new Promise((_resolve, reject) => {
          log.push(`ask ${q.name} ${q.type}`);
          signal.addEventListener('abort', () => {
            log.push(`abort ${q.name} ${q.type}`);
            reject(signal.reason);
          });
        }),
    } as unknown as ResolverPlugin;
    const { server: s, backend } = await exampleServer({}, [hanging]);
    try {
      const socket = connect(s.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`GET /api/check?target=slow.example HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n\r\n`);
      await expect.poll(() => log.filter((l) => l.startsWith('ask ')).length).toBeGreaterThan(5);
      socket.destroy();
      const asked = () => log.filter((l) => l.startsWith('ask ')).map((l) => l.slice(4));
      await expect.poll(() => log.filter((l) => l.startsWith('abort ')).length).toBe(asked().length);
      expect(
        log
          .filter((l) => l.startsWith('abort '))
          .map((l) => l.slice(6))
          .sort(),
      ).toEqual(asked().sort());
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect((await call(s, 'GET', '/api/info')).status).toBe(200);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await s.close();
      await backend.close();
    }
  });

  it('an answer that takes longer than apiTimeoutMs: 504, and the questions are aborted', async () => {
    const deaf = {
      name: 'deaf',
      priority: 1,
      available: () => true,
      close: () => {},
      resolve: () => new Promise(() => {}),
    } as unknown as ResolverPlugin;
    const { server: s, backend } = await exampleServer({ apiTimeoutMs: 200 }, [deaf]);
    try {
      const a = await call(s, 'GET', '/api/sip?uri=sip:bob@slow.example');
      expect(a.status).toBe(504);
      expect(a.json().error).toEqual({ code: 'SERVE_ERR_TIMEOUT', message: 'the DNS did not answer in time' });
      expect(a.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      await s.close();
      await backend.close();
    }
  });

  it('an internal error is a 500 that says nothing more, and is told to the logger with its stack', async () => {
    const warnings: string[] = [];
    const broken = {
      resolve: () => {
        throw new TypeError('a bug in the backend (test)');
      },
      close: async () => {},
    } as never;
    const s = await startServer({ backend: broken, port: 0, logger: { info() {}, warn: (m) => warnings.push(m) } });
    try {
      const a = await call(s, 'GET', '/api/sip?uri=sip:bob@biloxi.example');
      expect(a.status).toBe(500);
      expect(a.json()).toEqual({ error: { code: 'SERVE_ERR_INTERNAL', message: 'internal error' } });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(
        'dnscore serve: internal error answering GET /api/sip?uri=sip:bob@biloxi.example: ' +
          'TypeError: a bug in the backend (test)\n    at ',
      );
    } finally {
      await s.close();
    }
  });

  it('a zone text never reaches the backend, even one that is tried first', async () => {
    const { server: s, backend } = await exampleServer({}, [recorder]);
    try {
      const a = await postJson(s, '/api/sip', { uri: 'sip:bob@elsewhere.example', zone: zoneText('dot.example') });
      expect(a.status).toBe(200);
      expect(recorder.asked).toEqual([]);
      // Without zone text the backend is asked: the recorder is first, so it sees the questions.
      await call(s, 'GET', '/api/sip?uri=sip:bob@elsewhere.example&transports=udp&ipv6=0');
      expect(recorder.asked).toContain('elsewhere.example 35');
    } finally {
      await s.close();
      await backend.close();
    }
  });

  it('an exposed bind says so; a hostile Host is still refused there', async () => {
    const { server: s, backend } = await exampleServer({ host: '127.0.0.2' });
    try {
      expect(s.exposed).toBe(false);
      expect(s.url).toBe(`http://127.0.0.2:${s.port}/`);
    } finally {
      await s.close();
      await backend.close();
    }
  });
});
