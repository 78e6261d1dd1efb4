/**
 * An RFC 3263 resolution through the validating backend on the signed example zone: every
 * link secure, and the SRV answers' signed additional addresses validated and used, so the
 * targets' A/AAAA are never asked on their own (one round of questions when cold).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DnsCore } from '@dnscore/core';
import { SipLocator } from '@dnscore/sip';
import { startDnsProxy, type DnsProxy } from '../../../test/support/dns-proxy.js';
import { signZone } from '../../../test/support/dnssec.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { ValidatingResolver } from '../src/index.js';

const ZONE_FILE = fileURLToPath(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url));
let nsd: NsdServer;
let proxy: DnsProxy;
let core: DnsCore;

beforeAll(async () => {
  const zone = await signZone('biloxi.example', readFileSync(ZONE_FILE, 'utf8'));
  nsd = await startNsd([{ name: 'biloxi.example', text: zone.text }]);
  proxy = await startDnsProxy(nsd);
  core = new DnsCore([new ValidatingResolver({ nameservers: [proxy.endpoint] }, { trustAnchors: [zone.ds] })]);
}, 30_000);
afterAll(async () => {
  await core?.close();
  await proxy?.close();
  await nsd?.stop();
});

it('every link is secure and the validated additional addresses stand in for their questions', async () => {
  const resolution = await new SipLocator(core, { transports: ['udp', 'tcp', 'tls'] }).resolve(
    'sip:bob@biloxi.example',
    { stepThrough: true },
  );
  expect(resolution.error).toBeUndefined();
  expect(resolution.targets.length).toBeGreaterThan(0);
  expect(resolution.targets.map((t) => t.dnssec)).toEqual(resolution.targets.map(() => 'secure'));
  const targets = new Set(resolution.targets.map((t) => t.host.toLowerCase()));
  const additional = resolution.steps.filter((s) => s.kind === 'additional' && targets.has(s.host.toLowerCase()));
  expect(additional.length).toBeGreaterThanOrEqual(targets.size);
  expect(additional.map((s) => s.kind === 'additional' && s.reason)).toEqual(
    additional.map(() => 'used instead of A/AAAA queries (a target of this answer, inside biloxi.example)'),
  );
  const addressQuestions = proxy.queries.filter((q) => (q.type === 1 || q.type === 28) && targets.has(q.name));
  expect(addressQuestions).toEqual([]);
});
