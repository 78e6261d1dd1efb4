import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readmeExample } from './readme-example.js';

it('the README example is this test file, and it runs', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const example = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8');
  expect(readme).toContain(example.trim());
  const lines = await readmeExample(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url).pathname);
  expect(lines.slice(0, 2).sort()).toEqual([
    '10 40 sip2.biloxi.example:5060 ttl=3600',
    '10 60 sip1.biloxi.example:5060 ttl=3600',
  ]);
  expect(lines.slice(2)).toEqual(['20 0 backup.biloxi.example:5060 ttl=3600', 'NXDOMAIN, cached negatively for 300 s']);
});
