/**
 * Text from the network or a file, made safe to print: control characters (C0, DEL, C1 such as
 * U+009B, the 8-bit CSI), line and paragraph separators and bidirectional overrides become
 * escapes, so no terminal sequence gets through; and it is cut to a bound, so one 50 MB token
 * is not one 50 MB line. Every error message that quotes untrusted input goes through here.
 */

/** Characters quoted in error messages at most (the rest is counted, not shown). */
export const MAX_QUOTED_CHARS = 64;

// C0, DEL, C1, U+2028/U+2029, bidi embeddings/overrides/isolates, BOM.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\\]/g;

/** `text` with unsafe characters escaped (\xHH, \u{HHHH}, \\), cut after `max` characters. */
export function escapeText(text: string, max = MAX_QUOTED_CHARS): string {
  const chars = Array.from(text.length > max * 2 ? text.slice(0, max * 2) : text);
  const cut = chars.length > max || text.length > max * 2;
  const shown = (cut ? chars.slice(0, max) : chars).join('');
  const escaped = shown.replace(UNSAFE, (c) => {
    if (c === '\\') return '\\\\';
    const code = c.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
  return cut ? `${escaped}...(${text.length} chars)` : escaped;
}

/** `escapeText` in double quotes, with the quote escaped too: for a token inside an error message. */
export function quoteText(text: string, max = MAX_QUOTED_CHARS): string {
  return `"${escapeText(text, max).replace(/"/g, '\\"')}"`;
}
