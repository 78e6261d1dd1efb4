/** examples/node-sip-bridge runs: a 503 fails over at once, and the next request skips the boxed server. */
import { describe, expect, it } from 'vitest';
import { main } from '../node-sip-bridge/main.js';

describe('examples/node-sip-bridge', () => {
  it('sends through the bridge, fails over on 503, and shows the penalty box', async () => {
    const lines: string[] = [];
    await main((line) => lines.push(line));
    expect(lines.slice(0, -1)).toEqual(
      [
        'OPTIONS sip:bob@example.test #1:',
        'the application gets 200 OK',
        'try 1: sip1 -> failover 503',
        'try 2: sip2 -> response 200',
        'answered by sip2',
        'OPTIONS sip:bob@example.test #2:',
        'the application gets 200 OK',
        'try 1: sip2 -> response 200',
        'answered by sip2',
      ].map((l) => (l.startsWith('OPTIONS') ? l : `  ${l}`)),
    );
    // Retry-After 120 sets the time in the box (the exact seconds left depend on the clock).
    expect(lines.at(-1)).toMatch(
      /^penalty box: sip1 \(retry-after: 503 Service Unavailable, Retry-After 120 s\), 1(19|20) s or less$/,
    );
  });
});
