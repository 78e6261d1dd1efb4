/** The README's example runs, against nsd, as written (only the nameserver address changes). */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { nsdInstalled, startNsd, type NsdServer } from '../../../test/support/nsd.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = /## Example\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
const file = new URL('./readme-example.generated.ts', import.meta.url);
let nsd: NsdServer;

describe.runIf(nsdInstalled())('README example', () => {
  beforeAll(async () => {
    const zone = readFileSync(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url), 'utf8');
    nsd = await startNsd([{ name: 'biloxi.example', text: zone }]);
  }, 30_000);
  afterAll(async () => {
    rmSync(file, { force: true });
    await nsd?.stop();
  });

  it('prints the A record of sip1.biloxi.example', async () => {
    expect(example).toContain("nameservers: ['127.0.0.1:5300']");
    writeFileSync(file, example!.replace('127.0.0.1:5300', nsd.endpoint));
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(/* @vite-ignore */ file.href);
      expect(log.mock.calls).toEqual([['NOERROR', ['203.0.113.11']]]);
    } finally {
      log.mockRestore();
    }
  });
});
