/**
 * What this libunbound validates, found out by trying: on Debian (libunbound built against
 * nettle) every algorithm in use but Ed448, and the DS digests SHA-1, SHA-256 and SHA-384.
 * The cross-check with a zone that ldns signs with Ed448 is in test/dnssec-mitm.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeQuery } from '@dnscore/core/plugin';
import { probeDnssecSupport } from '../src/dnssec-support.js';
import { PROBED_ALGORITHMS } from '../src/probe-keys.js';
import { UnboundResolver, resolverOnBinding } from '../src/unbound-resolver.js';
import { UnboundUnavailableError } from '../src/errors.js';
import { loadUnboundBinding } from '../src/binding.js';
import { dnskeyText, dsText, probeKey } from '../src/probe-keys.js';

describe('dnssecSupport', () => {
  it('found out once per libunbound, the same answer for every resolver', async () => {
    const a = new UnboundResolver({ hosts: false, resolvConf: false, trustAnchors: [] });
    const b = new UnboundResolver({ hosts: false, resolvConf: false, trustAnchors: [] });
    const support = await a.dnssecSupport();
    expect(b.dnssecSupport()).toBe(a.dnssecSupport());
    expect(support.algorithms.map((x) => x.number)).toEqual(PROBED_ALGORITHMS.map((x) => x.number));
    const byNumber = Object.fromEntries(support.algorithms.map((x) => [x.number, x.validates]));
    // The mandatory ones (RFC 8624 section 3.1) validate on any build worth running.
    expect([byNumber[8], byNumber[13]]).toEqual([true, true]);
    expect(support.digests.find((d) => d.number === 2)?.validates).toBe(true);
    a.close();
    b.close();
  });

  it.runIf(existsSync('/etc/debian_version'))(
    "Debian's libunbound (nettle): Ed448 does not validate, Ed25519 does",
    async () => {
      const resolver = new UnboundResolver({ hosts: false, resolvConf: false, trustAnchors: [] });
      const support = await resolver.dnssecSupport();
      resolver.close();
      expect(support.algorithms.filter((a) => !a.validates).map((a) => a.name)).toEqual(['ED448']);
      expect(support.digests.map((d) => [d.name, d.validates])).toEqual([
        ['SHA-1', true],
        ['SHA-256', true],
        ['SHA-384', true],
      ]);
    },
  );

  it('without the binding: UnboundUnavailableError', async () => {
    const binding = loadUnboundBinding('/nonexistent/dir');
    await expect(resolverOnBinding(binding).dnssecSupport()).rejects.toBeInstanceOf(UnboundUnavailableError);
  });
});

describe('probe keys', () => {
  it('a DNSKEY, its key tag and DS in presentation form (RFC 4034)', () => {
    const key = probeKey('a13.dnscore-probe.', 13, Date.UTC(2026, 0, 1));
    expect(key.dnskey.length).toBe(4 + 64);
    expect(dnskeyText(key)).toMatch(/^a13\.dnscore-probe\. IN DNSKEY 257 3 13 [A-Za-z0-9+/]{86}==$/);
    expect(dsText(key, { number: 2, name: 'SHA-256', hash: 'sha256' })).toMatch(
      new RegExp(`^a13\\.dnscore-probe\\. IN DS ${key.keyTag} 13 2 [0-9a-f]{64}$`),
    );
    expect(() => probeKey('x.', 3)).toThrow('no probe key for DNSSEC algorithm 3');
  });
});

function loadedAddon() {
  const binding = loadUnboundBinding();
  if (!binding.available) throw new Error(binding.reason);
  return binding.addon;
}

describe("the probe and libunbound's log", () => {
  it("the probe's expected warnings stay out of it, and the live resolvers log there again afterwards", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dnscore-probe-log-'));
    const logfile = join(dir, 'unbound.log');
    const resolver = new UnboundResolver({
      hosts: false,
      resolvConf: false,
      trustAnchors: [],
      localData: ['goose.feathers 300 IN A 127.0.0.2'],
      localZones: [{ name: 'feathers', type: 'static' }],
      options: { logfile, verbosity: 4 },
    });
    // Not dnssecSupport(), which is found out once per process (another test may have).
    await probeDnssecSupport(loadedAddon());
    await resolver.resolve(makeQuery('goose.feathers', 'A'), new AbortController().signal);
    resolver.close();
    const log = readFileSync(logfile, 'utf8');
    // libunbound warns about each probe anchor of an algorithm it lacks (Ed448 on Debian).
    expect(log).not.toContain('dnscore-probe');
    // The answer from local data, at verbosity 4: the log is the resolver's again.
    expect(log).toContain('using localzone feathers. static');
    rmSync(dir, { recursive: true, force: true });
  });
});
