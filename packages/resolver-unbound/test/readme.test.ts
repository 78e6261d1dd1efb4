import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readmeExample } from './readme-example.js';
import { startRig, type Rig } from './support/rig.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.stop();
});

it('the README example is this test file, and it runs against the signed rig', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const example = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8');
  expect(readme).toContain(example.trim());
  expect(await readmeExample(rig.server, rig.biloxi.ds)).toEqual([
    'sip1.biloxi.test: NOERROR secure 192.0.2.11',
    'nobody.biloxi.test: NXDOMAIN secure',
  ]);
});
