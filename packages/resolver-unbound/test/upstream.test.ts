/**
 * What the unbound backend says it asked, in the query trace: libunbound does not name the
 * server, so the trace says the stub zone covering the name, else the forwarders (options,
 * then resolv.conf's), else recursion. Through the real addon for local data, as a unit for
 * the rules.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DnsCore, makeQuery } from '@dnscore/core';
import { recordQueryTraces } from '../../../test/support/query-trace.js';
import { InsecureAnswerError } from '../src/errors.js';
import { UnboundResolver } from '../src/unbound-resolver.js';
import { Upstream } from '../src/upstream.js';

const dir = mkdtempSync(join(tmpdir(), 'dnscore-upstream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const q = (name: string) => makeQuery(name, 'A');

describe('Upstream', () => {
  it('names the deepest stub zone that covers the name, with its addresses', () => {
    const upstream = new Upstream({
      stubZones: [
        { zone: 'example.', addresses: ['192.0.2.1'] },
        { zone: 'biloxi.example.', addresses: ['127.0.0.1@5300', '::1@5300'] },
      ],
      forwarders: ['192.0.2.53'],
      resolvConf: undefined,
    });
    expect(upstream.describe(q('sip1.biloxi.example'))).toBe('stub zone biloxi.example.: 127.0.0.1@5300, ::1@5300');
    expect(upstream.describe(q('atlanta.example'))).toBe('stub zone example.: 192.0.2.1');
    expect(upstream.describe(q('example.org'))).toBe('forwarders 192.0.2.53');
  });

  it("lists the forwarders given, then resolv.conf's nameservers; none at all is recursion", () => {
    const resolvConf = join(dir, 'resolv.conf');
    writeFileSync(resolvConf, '# comment\nsearch lan\nnameserver 192.0.2.7\n  nameserver 2001:db8::7\n');
    const forwarded = new Upstream({ stubZones: [], forwarders: ['192.0.2.53@5353'], resolvConf });
    expect(forwarded.describe(q('example.org'))).toBe('forwarders 192.0.2.53@5353, 192.0.2.7, 2001:db8::7');
    const empty = join(dir, 'empty.conf');
    writeFileSync(empty, 'search lan\n');
    expect(new Upstream({ stubZones: [], forwarders: [], resolvConf: empty }).describe(q('example.org'))).toBe(
      'recursion',
    );
    const missing = new Upstream({ stubZones: [], forwarders: [], resolvConf: join(dir, 'none') });
    expect(missing.describe(q('example.org'))).toBe('recursion');
  });
});

describe('the unbound backend in the query trace', () => {
  it('reports what it was set to ask, transport libunbound, with the rcode; nothing while untraced', async () => {
    const unbound = new UnboundResolver({
      hosts: false,
      resolvConf: false,
      trustAnchors: [],
      stubZones: [{ name: '.', addresses: ['127.0.0.1@9'] }],
      localZones: [{ name: 'feathers', type: 'static' }],
      localData: ['goose.feathers 300 IN A 127.0.0.2'],
    });
    try {
      const untraced = await unbound.resolve(q('goose.feathers'), new AbortController().signal);
      expect('servers' in untraced).toBe(false);
      const ended = recordQueryTraces();
      const core = new DnsCore([unbound]);
      await core.resolve('goose.feathers');
      await core.resolve('fox.feathers');
      expect(ended.map((c) => c.attempts)).toEqual([
        [
          {
            backend: 'unbound',
            servers: [{ server: 'stub zone .: 127.0.0.1@9', transport: 'libunbound', outcome: 'answer', rcode: 0 }],
          },
        ],
        [
          {
            backend: 'unbound',
            servers: [{ server: 'stub zone .: 127.0.0.1@9', transport: 'libunbound', outcome: 'answer', rcode: 3 }],
          },
        ],
      ]);
    } finally {
      unbound.close();
    }
  });

  it('reports them for an answer refused as insecure under requireSecure, with the error', async () => {
    const unbound = new UnboundResolver({
      hosts: false,
      resolvConf: false,
      // The root anchors (requireSecure needs one), and feathers outside them: its answers are insecure.
      insecureDomains: ['feathers'],
      requireSecure: true,
      stubZones: [{ name: '.', addresses: ['127.0.0.1@9'] }],
      localZones: [{ name: 'feathers', type: 'static' }],
      localData: ['goose.feathers 300 IN A 127.0.0.2'],
    });
    try {
      const ended = recordQueryTraces();
      const error = await new DnsCore([unbound]).resolve('goose.feathers').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InsecureAnswerError);
      expect(ended.map((c) => c.attempts)).toEqual([
        [
          {
            backend: 'unbound',
            error,
            servers: [{ server: 'stub zone .: 127.0.0.1@9', transport: 'libunbound', outcome: 'answer', rcode: 0 }],
          },
        ],
      ]);
    } finally {
      unbound.close();
    }
  });
});
