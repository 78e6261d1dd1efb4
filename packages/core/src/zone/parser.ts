/**
 * Master-file parser (RFC 1035 section 5, $TTL from RFC 2308 section 4): $ORIGIN, $TTL,
 * $INCLUDE, "@", relative names, a blank owner for "same as before", TTL and class in either
 * order, BIND time units. Every error names the file, the line and what is wrong.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve as resolvePath } from 'node:path';
import { DnsError, ZoneFileError } from '../errors.js';
import type { Labels } from '../names.js';
import { RRClass, RRType, parseClass, parseType, typeName } from '../rr-types.js';
import { TokenError, entries, type Entry, type Token } from './lexer.js';
import { absoluteName, labelsAt, packetName, parseDuration, readRdata } from './rdata-text.js';
import { escapeText, quoteText } from '../untrusted-text.js';
import { decodeZoneText, readRegularFile } from './zone-text.js';

export interface ZoneRecord {
  /** Owner in the form dns-packet encodes (labels joined by dots). */
  readonly name: string;
  readonly labels: Labels;
  readonly type: number;
  readonly class: number;
  readonly ttl: number;
  /** RDATA in dns-packet's shape. */
  readonly data: unknown;
  readonly file: string;
  readonly line: number;
}

export interface ParseZoneOptions {
  /** Name shown in errors (default "<zone>"); also the base of relative $INCLUDE paths. */
  readonly file?: string;
  /** Origin before any $ORIGIN. */
  readonly origin?: string;
  /**
   * The directory $INCLUDE may read below (symbolic links resolved). Left out, $INCLUDE is
   * refused: zone text that did not come from a file (a page, a request) must not open files.
   * The zone resolver sets it to the zone file's own directory.
   */
  readonly includeRoot?: string;
  /** Reads an $INCLUDE file checked to be below `includeRoot` (default: the file system, regular files only). */
  readonly readFile?: (path: string, maxBytes: number) => string;
  /** Most $INCLUDE directives followed in all (default 64). */
  readonly maxIncludes?: number;
  /** Most bytes read through $INCLUDE in all (default 16 MiB). */
  readonly maxIncludeBytes?: number;
}

const MAX_INCLUDE_DEPTH = 8;
export const DEFAULT_MAX_INCLUDES = 64;
export const DEFAULT_MAX_INCLUDE_BYTES = 16 * 1024 * 1024;

/** What the $INCLUDE directives of one parse may still use. */
interface IncludeBudget {
  readonly root: string | undefined;
  readonly read: (path: string, maxBytes: number) => string;
  includes: number;
  bytes: number;
}

export function parseZone(text: string, options: ParseZoneOptions = {}): ZoneRecord[] {
  const file = options.file ?? '<zone>';
  const state: State = {
    origin:
      options.origin !== undefined ? safe(file, 0, () => absoluteName(ensureAbsolute(options.origin!), [])) : undefined,
    defaultTtl: undefined,
    lastTtl: undefined,
    lastOwner: undefined,
    lastClass: RRClass.IN,
  };
  const records: ZoneRecord[] = [];
  const budget: IncludeBudget = {
    root: options.includeRoot,
    read: options.readFile ?? readIncludedFile,
    includes: options.maxIncludes ?? DEFAULT_MAX_INCLUDES,
    bytes: options.maxIncludeBytes ?? DEFAULT_MAX_INCLUDE_BYTES,
  };
  parseInto(text, file, state, records, budget, 0);
  return records;
}

interface State {
  origin: Labels | undefined;
  defaultTtl: number | undefined;
  lastTtl: number | undefined;
  lastOwner: Labels | undefined;
  lastClass: number;
}

function parseInto(
  text: string,
  file: string,
  state: State,
  out: ZoneRecord[],
  budget: IncludeBudget,
  depth: number,
): void {
  for (const entry of entries(text, file)) {
    const first = entry.tokens[0]!;
    if (!entry.blankOwner && !first.quoted && first.text.startsWith('$')) {
      directive(entry, file, state, out, budget, depth);
    } else {
      out.push(record(entry, file, state));
    }
  }
}

function directive(
  entry: Entry,
  file: string,
  state: State,
  out: ZoneRecord[],
  budget: IncludeBudget,
  depth: number,
): void {
  const [keyword, ...args] = entry.tokens as [Token, ...Token[]];
  const fail = (reason: string): never => {
    throw new ZoneFileError(file, entry.line, reason);
  };
  switch (keyword.text.toUpperCase()) {
    case '$ORIGIN': {
      if (args.length !== 1) fail('$ORIGIN takes one name');
      const name = args[0]!.text;
      state.origin = safe(file, entry.line, () =>
        absoluteName(name.endsWith('.') || !state.origin ? ensureAbsolute(name) : name, state.origin ?? []),
      );
      return;
    }
    case '$TTL': {
      if (args.length !== 1) fail('$TTL takes one TTL');
      const ttl = parseDuration(args[0]!.text);
      if (ttl === undefined) fail(`$TTL ${quoteText(args[0]!.text)} is not a TTL`);
      state.defaultTtl = ttl;
      return;
    }
    case '$INCLUDE': {
      if (args.length < 1 || args.length > 2) fail('$INCLUDE takes a file name and an optional origin');
      if (depth >= MAX_INCLUDE_DEPTH) fail(`$INCLUDE nested more than ${MAX_INCLUDE_DEPTH} deep`);
      const { path, text } = include(args[0]!.text, file, budget, fail);
      // RFC 1035: an $INCLUDE with an origin does not change the including file's origin.
      const inner: State = { ...state };
      if (args[1]) inner.origin = safe(file, entry.line, () => absoluteName(args[1]!.text, state.origin ?? []));
      parseInto(text, path, inner, out, budget, depth + 1);
      state.lastTtl = inner.lastTtl;
      state.lastClass = inner.lastClass;
      return;
    }
    default:
      fail(`unknown directive ${quoteText(keyword.text)}`);
  }
}

function record(entry: Entry, file: string, state: State): ZoneRecord {
  const tokens = entry.tokens;
  let line = entry.line;
  const fail = (reason: string): never => {
    throw new ZoneFileError(file, line, reason);
  };
  let index = 0;
  let owner: Labels;
  if (entry.blankOwner) {
    if (!state.lastOwner) fail('the first record has no owner name');
    owner = state.lastOwner!;
  } else {
    const token = tokens[index++]!;
    const text = token.text;
    if (!state.origin && text !== '@' && !text.endsWith('.')) fail(`relative name ${quoteText(text)} but no $ORIGIN`);
    if (!state.origin && text === '@') fail('"@" but no $ORIGIN');
    owner = safe(file, line, () => labelsAt(token, state.origin ?? []));
  }
  state.lastOwner = owner;

  let ttl: number | undefined;
  let rrclass: number | undefined;
  for (let k = 0; k < 2 && index < tokens.length; k++) {
    const text = tokens[index]!.text;
    if (rrclass === undefined && isClass(text)) rrclass = servableClass(text, fail);
    else if (ttl === undefined && parseDuration(text) !== undefined) ttl = parseDuration(text);
    else break;
    index++;
  }
  const typeToken = tokens[index++];
  if (!typeToken) fail('the record has no type');
  line = typeToken!.line;
  // A TTL the loop above did not take: too large, or a second one.
  if (/^(\d+|(\d+[wdhms])+)$/i.test(typeToken!.text) && parseDuration(typeToken!.text) === undefined) {
    fail(`TTL ${quoteText(typeToken!.text)} is over 2147483647 seconds (RFC 2181 section 8)`);
  }
  let type: number;
  try {
    type = parseType(typeToken!.text);
  } catch {
    return fail(`unknown type ${quoteText(typeToken!.text)}`);
  }
  if (/^\d+$/.test(typeToken!.text)) fail(`${quoteText(typeToken!.text)} is not a type (a TTL in the wrong place?)`);
  if (!isDataType(type)) fail(`type ${typeName(type)} is a query or meta type (RFC 6895 section 3.1), not data`);

  const data = safe(file, line, () => readRdata(type, tokens.slice(index), { origin: state.origin ?? [] }));
  rrclass ??= state.lastClass;
  state.lastClass = rrclass;
  if (ttl !== undefined) state.lastTtl = ttl;
  else ttl = state.defaultTtl ?? state.lastTtl;
  if (ttl === undefined && type === RRType.SOA) {
    // No TTL known yet: the SOA's MINIMUM is its TTL (BIND: "using SOA MINTTL instead") and, as
    // if stated, the TTL of the records after it until one states its own (RFC 1035 section 5.1).
    ttl = (data as { minimum: number }).minimum;
    state.lastTtl = ttl;
  }
  if (ttl === undefined) fail('the record has no TTL and there is no $TTL before it');
  return {
    name: safe(file, line, () => packetName(owner)),
    labels: owner,
    type,
    class: rrclass,
    ttl: ttl!,
    data,
    file,
    line: entry.line,
  };
}

/**
 * The text of an $INCLUDE: only below the include root, only a regular file, within the
 * parse's budget of inclusions and bytes. Errors quote the file name short and escaped, and
 * never the file's content.
 */
function include(
  name: string,
  file: string,
  budget: IncludeBudget,
  fail: (reason: string) => never,
): { path: string; text: string } {
  if (budget.root === undefined) {
    return fail(`$INCLUDE ${quoteText(name)} refused: $INCLUDE is off for zone text not read from a file`);
  }
  if (budget.includes <= 0) fail(`$INCLUDE ${quoteText(name)} refused: more than the allowed inclusions in one zone`);
  budget.includes--;
  const path = resolvePath(dirname(file), name);
  let real = path;
  let root = resolvePath(budget.root);
  if (budget.read === readIncludedFile) {
    // Symbolic links resolved, so a link below the root cannot lead out of it.
    try {
      root = realpathSync(root);
      real = realpathSync(path);
    } catch (error) {
      return fail(`$INCLUDE cannot read ${quoteText(path)}: ${errorCode(error)}`);
    }
  }
  const fromRoot = relative(root, real);
  if (fromRoot === '' || fromRoot.startsWith('..') || isAbsolute(fromRoot)) {
    fail(`$INCLUDE ${quoteText(path)} refused: it is not below ${quoteText(budget.root)}`);
  }
  let text: string;
  try {
    text = budget.read(real, budget.bytes);
  } catch (error) {
    if (error instanceof ZoneFileError) throw error;
    return fail(`$INCLUDE cannot read ${quoteText(path)}: ${errorCode(error)}`);
  }
  budget.bytes -= Buffer.byteLength(text);
  if (budget.bytes < 0) fail(`$INCLUDE ${quoteText(path)} refused: the zone's included files exceed the byte limit`);
  return { path, text };
}

/** A regular file's text below the include root: never a device, a pipe or a symbolic link; strict UTF-8. */
function readIncludedFile(path: string, maxBytes: number): string {
  return decodeZoneText(readRegularFile(path, maxBytes, false), path);
}

/** A short, fixed reason from a file-system error (ENOENT, EACCES...), never its whole message. */
function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? escapeText(code, 32) : 'unreadable';
}

/** IN, CH and HS: the classes dns-packet, which encodes the zone resolver's answers, can write. */
function servableClass(text: string, fail: (reason: string) => never): number {
  const rrclass = safeClass(text);
  if (rrclass !== 1 && rrclass !== 3 && rrclass !== 4)
    fail(`class ${text} is not supported in zone files (IN, CH, HS)`);
  return rrclass!;
}

function safeClass(text: string): number | undefined {
  try {
    return parseClass(text);
  } catch {
    return undefined;
  }
}

/**
 * Types that may be held as data: not 0, OPT (41) nor the query and meta range 128..255 (TSIG,
 * AXFR, ANY...), which BIND refuses too; an ANY record would be served for every ANY question.
 */
function isDataType(type: number): boolean {
  return type !== 0 && type !== 41 && (type < 128 || type > 255);
}

function isClass(text: string): boolean {
  return /^(IN|CH|HS|CS|CLASS\d+)$/i.test(text);
}

function ensureAbsolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

/** Runs `read`, turning its SyntaxError or InvalidQueryError into a ZoneFileError at this line. */
function safe<T>(file: string, line: number, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ZoneFileError) throw error;
    if (error instanceof TokenError) {
      throw new ZoneFileError(file, error.token.line, `column ${error.token.column}: ${error.message}`);
    }
    if (error instanceof SyntaxError || error instanceof DnsError) throw new ZoneFileError(file, line, error.message);
    throw error;
  }
}
