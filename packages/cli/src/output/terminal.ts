/**
 * The last step before a terminal or a pipe: everything the CLI prints may hold bytes from the
 * network or a file (record data, dropped-record reasons, step-through notes, error messages).
 * Control characters other than newline and tab (C0, DEL, C1 such as U+009B, the 8-bit CSI),
 * line separators and bidi overrides become \uXXXX, which reads the same in text and is a valid
 * escape inside a JSON string; and no line is longer than a bound.
 */

/** Longest error line printed; the rest is cut and counted. */
export const MAX_LINE_CHARS = 4096;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

export function terminalSafe(text: string, maxLine = MAX_LINE_CHARS): string {
  const escaped = text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (escaped.length <= maxLine) return escaped;
  return escaped
    .split('\n')
    .map((line) => (line.length > maxLine ? `${line.slice(0, maxLine)}...(${line.length} chars)` : line))
    .join('\n');
}
