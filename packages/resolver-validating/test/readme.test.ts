/** The README's example runs as written against nsd (only the nameserver and the anchor change). */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ldnsInstalled, signZone, type SignedZone } from '../../../test/support/dnssec.js';
import { nsdInstalled, startNsd, type NsdServer } from '../../../test/support/nsd.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = /## Example\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
const file = new URL('./readme-example.generated.ts', import.meta.url);
const ANCHOR = /const anchor = '([^']+)';/;
let nsd: NsdServer;
let zone: SignedZone;

describe.runIf(nsdInstalled() && ldnsInstalled())('README example', () => {
  beforeAll(async () => {
    const text = readFileSync(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url), 'utf8');
    zone = await signZone('biloxi.example', text);
    nsd = await startNsd([{ name: 'biloxi.example', text: zone.text }]);
  }, 30_000);
  afterAll(async () => {
    rmSync(file, { force: true });
    await nsd?.stop();
  });

  it('prints a secure A record of sip1.biloxi.example', async () => {
    expect(example).toContain("nameservers: ['127.0.0.1:5300']");
    expect(example).toMatch(ANCHOR);
    const code = example!.replace('127.0.0.1:5300', nsd.endpoint).replace(ANCHOR, `const anchor = '${zone.ds}';`);
    writeFileSync(file, code);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(/* @vite-ignore */ file.href);
      expect(log.mock.calls).toEqual([['secure', ['203.0.113.11']]]);
    } finally {
      log.mockRestore();
    }
  });
});
