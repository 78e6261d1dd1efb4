/** Issue 21 item 8 at its root: what is printed from the network or a file is escaped and bounded. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeText, quoteText } from '@dnscore/core';

describe('escapeText', () => {
  it('escapes C0, DEL, C1 (U+009B, the 8-bit CSI), separators, bidi overrides and the backslash', () => {
    expect(escapeText('a\u001b[2Jb\u0007c\u009b31md\u007f\u2028\u202e\\')).toBe(
      'a\\x1b[2Jb\\x07c\\x9b31md\\x7f\\u{2028}\\u{202e}\\\\',
    );
  });

  it('keeps printable text, including non-ASCII letters, as it is', () => {
    expect(escapeText('sip1.bílóxi.example _sip._udp')).toBe('sip1.bílóxi.example _sip._udp');
  });

  it('cuts a long text and says how long it was', () => {
    expect(escapeText('x'.repeat(50_000_000), 8)).toBe('xxxxxxxx...(50000000 chars)');
    expect(escapeText('y'.repeat(8), 8)).toBe('yyyyyyyy');
  });

  it('quoteText escapes the quote too', () => {
    expect(quoteText('say "hi"\n')).toBe('"say \\"hi\\"\\x0a"');
  });

  it('never lets a control character through, and stays bounded (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 1, max: 100 }), (text, max) => {
        const out = escapeText(text, max);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
        expect(out.length).toBeLessThanOrEqual(max * 12 + 32);
      }),
      { numRuns: 2000, seed: 21 },
    );
  });
});
