/**
 * The hosts file, where the backend reads it (SystemResolver's `useHosts`): a name the file has
 * is answered from it, ahead of what nsd says for the same name, and a name only the file has
 * connects; the memo keeps a file answer only for the TTL the backend gives it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { V4MAPPED } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DnsCore } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { createLookup, type LookupCallback } from '../src/index.js';
import { testZones } from './support/zone.js';

const HOSTS = `# a test hosts file
127.0.0.9   both.node.example      # nsd says 127.0.0.1 and ::1
fd00::9     both.node.example
127.0.0.1   app.hosts.test app-alias.hosts.test
127.0.0.8   signed.node.example    # nsd says 127.0.0.1 and ::1
not-an-address skipped.hosts.test
`;

let nsd: NsdServer;
let dir: string;
let server: http.Server;
let port: number;

beforeAll(async () => {
  nsd = await startNsd(testZones());
  dir = mkdtempSync(path.join(tmpdir(), 'node-dns-hosts-'));
  writeFileSync(path.join(dir, 'hosts'), HOSTS);
  server = http.createServer((req, res) => res.end(`${req.socket.localAddress} ${req.headers.host}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await nsd?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A core over the system backend asking nsd, reading the test hosts file. */
function hostsBackend(hostsTtl?: number): SystemResolver {
  return new SystemResolver(
    { nameservers: [nsd.endpoint], search: [], resolvConf: '/dev/null', hosts: path.join(dir, 'hosts') },
    { useHosts: true, timeoutMs: 1000, attempts: 1, ...(hostsTtl === undefined ? {} : { hostsTtl }) },
  );
}

function all(lookup: ReturnType<typeof createLookup>, hostname: string, options: object = {}): Promise<unknown> {
  return new Promise((resolve) => {
    const cb: LookupCallback = (error, addresses) => resolve(error ? { code: error.code } : addresses);
    lookup(hostname, { all: true, order: 'ipv4first', ...options }, cb);
  });
}

describe('createLookup over a backend that reads the hosts file', () => {
  test("the file's addresses come first, ahead of DNS, for both families and in any case", async () => {
    const backend = hostsBackend();
    const lookup = createLookup(new DnsCore([backend]));
    expect(await all(lookup, 'both.node.example')).toEqual([
      { address: '127.0.0.9', family: 4 },
      { address: 'fd00::9', family: 6 },
    ]);
    expect(await all(lookup, 'BOTH.Node.Example', { family: 6 })).toEqual([{ address: 'fd00::9', family: 6 }]);
    expect(await all(lookup, 'app-alias.hosts.test', { family: 4 })).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(backend.stats.hostsAnswers).toBe(4);
    // a name the file does not have is asked of nsd
    expect(await all(lookup, 'v4.node.example')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '127.0.0.2', family: 4 },
    ]);
    expect(backend.hostsSkipped).toEqual(['line 6: "not-an-address" is not an IP address (zones are not supported)']);
    expect(await all(lookup, 'skipped.hosts.test')).toEqual({ code: 'EAI_AGAIN' }); // nsd refuses the zone
  });

  test('a name the file has for one family only is not asked of DNS for the other (glibc, family 0)', async () => {
    const backend = hostsBackend();
    const lookup = createLookup(new DnsCore([backend]));
    expect(await all(lookup, 'signed.node.example')).toEqual([{ address: '127.0.0.8', family: 4 }]);
    expect(await all(lookup, 'Signed.Node.Example', { family: 6 })).toEqual({ code: 'ENOTFOUND' });
    expect(await all(lookup, 'signed.node.example', { family: 6, hints: V4MAPPED })).toEqual([
      { address: '::ffff:127.0.0.8', family: 6 },
    ]);
    expect(backend.stats.hostsAnswers).toBe(5);
    expect(backend.stats.udpSent).toBe(0);
  });

  test('a name only the file has connects: http.get by that name reaches the server', async () => {
    const lookup = createLookup(new DnsCore([hostsBackend()]));
    const body = await new Promise<string>((resolve, reject) => {
      http
        .get(`http://app.hosts.test:${port}/`, { agent: false, lookup }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(`${res.statusCode} ${text}`));
        })
        .on('error', reject);
    });
    expect(body).toBe(`200 127.0.0.1 app.hosts.test:${port}`);
  });

  test("a file answer is kept for the backend's hostsTtl only (0 by default: read again on every call)", async () => {
    const uncached = hostsBackend();
    const lookupUncached = createLookup(new DnsCore([uncached]));
    await all(lookupUncached, 'app.hosts.test', { family: 4 });
    await all(lookupUncached, 'app.hosts.test', { family: 4 });
    expect(uncached.stats.hostsAnswers).toBe(2);
    const kept = hostsBackend(60);
    const lookupKept = createLookup(new DnsCore([kept]));
    expect(await lookupKept.addresses('app.hosts.test', { family: 4 })).toEqual([
      { address: '127.0.0.1', family: 4, ttl: 60 },
    ]);
    await all(lookupKept, 'app.hosts.test', { family: 4 });
    expect(kept.stats.hostsAnswers).toBe(1);
  });
});
