import { expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript example without declarations
import { main } from '../resolve-with-fallback/main.mjs';

it('examples/resolve-with-fallback: the first available plugin answers, an error falls through', async () => {
  const lines: string[] = [];
  await main((line: string) => lines.push(line));
  expect(lines).toEqual([
    'registered: upstream (10), fallback-zone (100)',
    'upstream unavailable: 203.0.113.11 from fallback-zone',
    'upstream available: 203.0.113.11 from upstream',
    'upstream failing: 203.0.113.11 from fallback-zone',
    'NXDOMAIN is an answer, not a failure: NXDOMAIN from upstream',
  ]);
});
