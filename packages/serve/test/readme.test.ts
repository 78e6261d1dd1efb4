/** The README's example is test/readme-example.ts, verbatim, and it runs. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { example } from './readme-example.js';
import { EXAMPLE_ZONE_FILE } from './support/zones.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('shows test/readme-example.ts verbatim', () => {
    const code = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${code}\`\`\``);
  });

  it('the example finds nothing to fix in the walk-through zone and serves on loopback', async () => {
    const { findings, url } = await example(EXAMPLE_ZONE_FILE);
    expect(findings).toEqual([]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });
});
