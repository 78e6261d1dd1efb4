/**
 * Real clients on loopback, resolving through createLookup: http.get, https.get (a TLS server
 * with a test certificate), net.connect, tls.connect, undici's fetch with an Agent whose
 * connect.lookup is ours, undici's DNS interceptor, and install() for the global agents and
 * fetch. Names come from the zone backend and from nsd; both families; the error paths.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { DnsCore, ZoneResolver, withCache } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeCertificate } from '../../../test/support/certs.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { hasIpv6Loopback } from '../../../test/support/ports.js';
import { createLookup, install, uninstall, type LookupCallback, type NodeDnsLookup } from '../src/index.js';
import { listenDual, type DualServer } from './support/loopback-servers.js';
import { scriptedCore } from './support/scripted-plugin.js';
import { testZones } from './support/zone.js';

const ipv6 = hasIpv6Loopback();
const NAMES = ['v4.node.example', 'v6.node.example', 'both.node.example'];
const certificate = makeCertificate({ dns: NAMES });

let nsd: NsdServer;
let httpServer: DualServer;
let httpsServer: DualServer;
let netServer: DualServer;
let tlsServer: DualServer;

const reply = (req: http.IncomingMessage, res: http.ServerResponse) =>
  res.end(`${req.socket.localAddress} ${req.headers.host}`);

beforeAll(async () => {
  nsd = await startNsd(testZones());
  httpServer = await listenDual(() => http.createServer(reply), ipv6);
  httpsServer = await listenDual(
    () => https.createServer({ key: certificate.key, cert: certificate.cert }, reply),
    ipv6,
  );
  netServer = await listenDual(() => net.createServer((s) => s.end(String(s.localAddress))), ipv6);
  tlsServer = await listenDual(
    () => tls.createServer({ key: certificate.key, cert: certificate.cert }, (s) => s.end(String(s.localAddress))),
    ipv6,
  );
});

afterAll(async () => {
  await uninstall();
  await Promise.all([httpServer, httpsServer, netServer, tlsServer].map((s) => s?.close()));
  await nsd?.stop();
});

function httpGet(url: string, options: https.RequestOptions = {}): Promise<string> {
  const get = url.startsWith('https:') ? https.get : http.get;
  return new Promise((resolve, reject) => {
    get(url, { agent: false, ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    }).on('error', reject);
  });
}

function readAll(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data)).on('error', reject);
  });
}

const BACKENDS: [string, () => DnsCore][] = [
  [
    'the zone backend',
    () => new DnsCore([withCache(new ZoneResolver({ zones: testZones().map((z) => ({ text: z.text })) }))]),
  ],
  [
    'nsd through the system backend',
    () =>
      new DnsCore([
        withCache(
          new SystemResolver({ nameservers: [nsd.endpoint], search: [], resolvConf: '/dev/null' }, { timeoutMs: 1000 }),
        ),
      ]),
  ],
];

describe.each(BACKENDS)('clients with names from %s', (_backend, makeCore) => {
  let lookup: NodeDnsLookup;
  beforeAll(() => {
    lookup = createLookup(makeCore());
  });

  test('http.get reaches the server by name over IPv4', async () => {
    expect(await httpGet(`http://v4.node.example:${httpServer.port}/`, { lookup })).toBe(
      `200 127.0.0.1 v4.node.example:${httpServer.port}`,
    );
  });

  test.skipIf(!ipv6)('http.get over IPv6, by an IPv6-only name and by family 6', async () => {
    expect(await httpGet(`http://v6.node.example:${httpServer.port}/`, { lookup })).toBe(
      `200 ::1 v6.node.example:${httpServer.port}`,
    );
    expect(await httpGet(`http://both.node.example:${httpServer.port}/`, { lookup, family: 6 })).toBe(
      `200 ::1 both.node.example:${httpServer.port}`,
    );
    expect(await httpGet(`http://both.node.example:${httpServer.port}/`, { lookup, family: 4 })).toBe(
      `200 127.0.0.1 both.node.example:${httpServer.port}`,
    );
  });

  test('https.get checks the certificate against the name and connects', async () => {
    expect(
      await httpGet(`https://both.node.example:${httpsServer.port}/`, { lookup, ca: certificate.cert, family: 4 }),
    ).toBe(`200 127.0.0.1 both.node.example:${httpsServer.port}`);
  });

  test('net.connect and tls.connect by name (autoSelectFamily tries every address)', async () => {
    const plain = net.connect({ host: 'v4.node.example', port: netServer.port, lookup });
    expect(await readAll(plain)).toBe('127.0.0.1');
    const both = net.connect({ host: 'both.node.example', port: netServer.port, lookup, autoSelectFamily: true });
    expect(['127.0.0.1', '::1']).toContain(await readAll(both));
    const secure = tls.connect({
      host: 'both.node.example',
      port: tlsServer.port,
      lookup,
      ca: certificate.cert,
      family: 4, // passed on to net.connect; tls's types leave it out
    } as tls.ConnectionOptions);
    expect(await readAll(secure)).toBe('127.0.0.1');
    expect(secure.authorized).toBe(true);
  });

  test.skipIf(!ipv6)('net.connect and tls.connect over IPv6', async () => {
    expect(await readAll(net.connect({ host: 'v6.node.example', port: netServer.port, lookup }))).toBe('::1');
    const secure = tls.connect({ host: 'v6.node.example', port: tlsServer.port, lookup, ca: certificate.cert });
    expect(await readAll(secure)).toBe('::1');
  });

  test("undici's fetch with an Agent whose connect.lookup is ours", async () => {
    const agent = new undici.Agent({ connect: { lookup } });
    try {
      const response = await undici.fetch(`http://v4.node.example:${httpServer.port}/x`, { dispatcher: agent });
      expect(`${response.status} ${await response.text()}`).toBe(`200 127.0.0.1 v4.node.example:${httpServer.port}`);
      if (ipv6) {
        const six = await undici.fetch(`http://v6.node.example:${httpServer.port}/`, { dispatcher: agent });
        expect(await six.text()).toBe(`::1 v6.node.example:${httpServer.port}`);
      }
      const failed = await undici
        .fetch(`http://nx.node.example:${httpServer.port}/`, { dispatcher: agent })
        .catch((e) => e);
      expect(failed).toBeInstanceOf(TypeError);
      expect((failed as Error).cause).toMatchObject({
        code: 'ENOTFOUND',
        syscall: 'getaddrinfo',
        hostname: 'nx.node.example',
      });
    } finally {
      await agent.close();
    }
  });

  test("undici's DNS interceptor with our lookup: the Host header keeps the name", async () => {
    const agent = new undici.Agent().compose(undici.interceptors.dns({ lookup, dualStack: false, affinity: 4 }));
    try {
      const response = await undici.fetch(`http://both.node.example:${httpServer.port}/`, { dispatcher: agent });
      expect(await response.text()).toBe(`127.0.0.1 both.node.example:${httpServer.port}`);
      const failed = await undici
        .fetch(`http://nx.node.example:${httpServer.port}/`, { dispatcher: agent })
        .catch((e) => e);
      expect((failed as Error).cause).toMatchObject({ code: 'ENOTFOUND', hostname: 'nx.node.example' });
    } finally {
      await agent.close();
    }
  });

  test('no address: http.get fails with ENOTFOUND for NXDOMAIN and NODATA, never a crash', async () => {
    for (const name of ['nx.node.example', 'text.node.example']) {
      await expect(httpGet(`http://${name}:${httpServer.port}/`, { lookup })).rejects.toMatchObject({
        code: 'ENOTFOUND',
        errno: -3008,
        syscall: 'getaddrinfo',
        hostname: name,
      });
    }
    // net's default lookup options (ADDRCONFIG, all: true with autoSelectFamily)
    const socket = net.connect({ host: 'nx.node.example', port: netServer.port, lookup, autoSelectFamily: true });
    await expect(readAll(socket)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('clients on the error paths a backend cannot serve from a zone', () => {
  const { core } = scriptedCore({
    'dead.node.example': { silent: true },
    'bogus.node.example': { bogus: 'RRSIG expired' },
    'signed.node.example': { secure: true },
  });

  test('requireSecure: bogus fails with EBOGUS, insecure with EINSECURE, a secure name connects', async () => {
    const lookup = createLookup(core, { requireSecure: true });
    await expect(httpGet(`http://bogus.node.example:${httpServer.port}/`, { lookup })).rejects.toMatchObject({
      code: 'EBOGUS',
      hostname: 'bogus.node.example',
    });
    await expect(httpGet(`http://v4.node.example:${httpServer.port}/`, { lookup })).rejects.toMatchObject({
      code: 'EINSECURE',
      hostname: 'v4.node.example',
    });
    expect(await httpGet(`http://signed.node.example:${httpServer.port}/`, { lookup, family: 4 })).toBe(
      `200 127.0.0.1 signed.node.example:${httpServer.port}`,
    );
  });

  test('a timeout ends the connection attempt with EAI_AGAIN', async () => {
    const lookup = createLookup(core, { timeoutMs: 100 });
    await expect(httpGet(`http://dead.node.example:${httpServer.port}/`, { lookup })).rejects.toMatchObject({
      code: 'EAI_AGAIN',
      syscall: 'getaddrinfo',
      hostname: 'dead.node.example',
    });
  });

  test('a cancelled lookup ends the connection attempt with ECANCELLED', async () => {
    const controller = new AbortController();
    const lookup = createLookup(core);
    // net passes no signal: the caller binds one, and cancels once the lookup is under way
    const cancellable = ((hostname: string, options: object, callback: LookupCallback) => {
      lookup(hostname, { ...options, signal: controller.signal }, callback);
      queueMicrotask(() => controller.abort());
    }) as NodeDnsLookup;
    const socket = net.connect({ host: 'dead.node.example', port: netServer.port, lookup: cancellable });
    const error = await new Promise((resolve) => socket.on('error', resolve));
    expect(error).toMatchObject({ code: 'ECANCELLED', syscall: 'getaddrinfo', hostname: 'dead.node.example' });
    expect(socket.destroyed).toBe(true);
  });
});

describe('install()', () => {
  test('sets the lookup of both global agents and of the global fetch; uninstall() restores them', async () => {
    const lookup = createLookup(scriptedCore().core);
    const before = undici.getGlobalDispatcher();
    install(lookup, { undici });
    try {
      expect(() => install(lookup)).toThrow(expect.objectContaining({ code: 'ERR_DNSCORE_INSTALLED' }));
      expect(await httpGet(`http://v4.node.example:${httpServer.port}/`, { agent: undefined })).toBe(
        `200 127.0.0.1 v4.node.example:${httpServer.port}`,
      );
      expect(
        await httpGet(`https://v4.node.example:${httpsServer.port}/`, { agent: undefined, ca: certificate.cert }),
      ).toBe(`200 127.0.0.1 v4.node.example:${httpsServer.port}`);
      const viaUndici = await undici.fetch(`http://v4.node.example:${httpServer.port}/`);
      expect(await viaUndici.text()).toBe(`127.0.0.1 v4.node.example:${httpServer.port}`);
      const viaGlobalFetch = await fetch(`http://v4.node.example:${httpServer.port}/`);
      expect(await viaGlobalFetch.text()).toBe(`127.0.0.1 v4.node.example:${httpServer.port}`);
    } finally {
      await uninstall();
    }
    expect((http.globalAgent as unknown as { options: object }).options).not.toHaveProperty('lookup');
    expect((https.globalAgent as unknown as { options: object }).options).not.toHaveProperty('lookup');
    expect(undici.getGlobalDispatcher()).toBe(before);
  });
});
