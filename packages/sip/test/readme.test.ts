/** The README's example is test/readme-example.ts, verbatim, and it runs. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderStepThrough } from '../src/step-through.js';
import { example } from './readme-example.js';
import { BILOXI_ZONE, setup } from './support/fixtures.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('shows test/readme-example.ts verbatim', () => {
    const code = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${code}\`\`\``);
  });

  it('the example resolves the walk-through zone and fails over after a 503', async () => {
    let tries = 0;
    const lines = await example(BILOXI_ZONE, async () =>
      tries++ === 0 ? { type: 'response', status: 503, retryAfter: 30 } : { type: 'response', status: 200 },
    );
    expect(lines).toEqual([
      'tls 203.0.113.11:5061 priority 10 weight 60',
      'tls 203.0.113.12:5061 priority 10 weight 40',
      'tls 198.51.100.50:5061 priority 20 weight 0',
      'sip2.biloxi.example: failover',
      'sip1.biloxi.example: success',
    ]);
  });

  it('shows the targets table the step-through prints', async () => {
    const text = renderStepThrough(await setup({ seed: 1 }).locator.resolve('sip:bob@biloxi.example'));
    const excerpt = /On `examples[^\n]*\n[^\n]*\n\n```\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(text).toContain(excerpt);
  });
});
