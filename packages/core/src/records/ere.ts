/**
 * POSIX extended regular expressions (the syntax of NAPTR regexps, RFC 3402 section 3.2),
 * translated to JavaScript RegExp. What differs is handled: a backslash inside a bracket
 * expression is a literal, [:class:] names, and JavaScript-only syntax such as (?...) is
 * refused.
 */
const POSIX_CLASSES: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '\\x21-\\x7e',
  lower: 'a-z',
  print: '\\x20-\\x7e',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  xdigit: '0-9A-Fa-f',
};

const SPECIAL = new Set(['.', '[', ']', '\\', '(', ')', '*', '+', '?', '{', '}', '|', '^', '$']);

/** Compiles an ERE; throws SyntaxError with the reason when it is not valid. */
export function compileEre(pattern: string, ignoreCase = false): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) throw new SyntaxError('pattern ends with a lone backslash');
      if (SPECIAL.has(next)) out += `\\${next}`;
      else if (next >= '1' && next <= '9')
        out += `\\${next}`; // back-reference
      else throw new SyntaxError(`undefined escape \\${next}`);
      i++;
    } else if (c === '[') {
      const end = readBracket(pattern, i);
      out += translateBracket(pattern.slice(i + 1, end));
      i = end;
    } else if (c === '(' && pattern[i + 1] === '?') {
      throw new SyntaxError('(? is not ERE syntax');
    } else {
      out += c;
    }
  }
  return new RegExp(out, ignoreCase ? 'i' : '');
}

/** Number of capturing groups in a compiled pattern. */
export function groupCount(regexp: RegExp): number {
  return new RegExp(`${regexp.source}|`, regexp.flags).exec('')!.length - 1;
}

/** Index of the "]" closing the bracket expression that opens at `start`. */
function readBracket(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++; // a leading "]" is a literal
  for (; i < pattern.length; i++) {
    if (pattern[i] === '[' && (pattern[i + 1] === ':' || pattern[i + 1] === '=' || pattern[i + 1] === '.')) {
      const close = pattern.indexOf(`${pattern[i + 1]!}]`, i + 2);
      if (close < 0) throw new SyntaxError(`unterminated [${pattern[i + 1]} in bracket expression`);
      i = close + 1;
    } else if (pattern[i] === ']') {
      return i;
    }
  }
  throw new SyntaxError('unterminated bracket expression');
}

function translateBracket(body: string): string {
  let out = '[';
  let i = 0;
  if (body[0] === '^') {
    out += '^';
    i++;
  }
  for (; i < body.length; i++) {
    const c = body[i]!;
    if (c === '[' && body[i + 1] === ':') {
      const close = body.indexOf(':]', i + 2);
      const name = body.slice(i + 2, close);
      const range = POSIX_CLASSES[name];
      if (range === undefined) throw new SyntaxError(`unknown character class [:${name}:]`);
      out += range;
      i = close + 1;
    } else if (c === '[' && (body[i + 1] === '=' || body[i + 1] === '.')) {
      throw new SyntaxError('collating elements and equivalence classes are not supported');
    } else if (c === '\\' || c === '[' || c === ']') {
      out += `\\${c}`;
    } else {
      out += c;
    }
  }
  return `${out}]`;
}
