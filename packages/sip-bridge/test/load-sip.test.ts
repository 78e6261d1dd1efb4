/** The optional peer dependency `sip` is loaded only on demand, and is the module the tests import. */
import { describe, expect, it } from 'vitest';
import sip from 'sip';
import { loadSipStack } from '../src/load-sip.js';

describe('loadSipStack', () => {
  it('returns the `sip` module with the pieces the bridge uses', async () => {
    const stack = await loadSipStack();
    expect(stack).toBe(sip);
    for (const name of [
      'makeTransport',
      'makeTransactionLayer',
      'makeResponse',
      'makeStreamParser',
      'stringify',
      'stringifyUri',
      'parseUri',
      'parse',
    ]) {
      expect(typeof (stack as unknown as Record<string, unknown>)[name]).toBe('function');
    }
  });
});
