/**
 * Master-file parser (RFC 1035 section 5, $TTL from RFC 2308 section 4): $ORIGIN, $TTL,
 * $INCLUDE, "@", relative names, a blank owner for "same as before", TTL and class in either
 * order, BIND time units. Every error names the file, the line and what is wrong.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { DnsError, ZoneFileError } from '../errors.js';
import type { Labels } from '../names.js';
import { RRClass, RRType, parseClass, parseType } from '../rr-types.js';
import { entries, type Entry, type Token } from './lexer.js';
import { absoluteName, packetName, parseDuration, readRdata } from './rdata-text.js';

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
  /** Reads an $INCLUDE file (default: the file system). */
  readonly readFile?: (path: string) => string;
}

const MAX_INCLUDE_DEPTH = 8;

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
  parseInto(text, file, state, records, options.readFile ?? ((path) => readFileSync(path, 'utf8')), 0);
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
  readFile: (path: string) => string,
  depth: number,
): void {
  for (const entry of entries(text, file)) {
    const first = entry.tokens[0]!;
    if (!entry.blankOwner && !first.quoted && first.text.startsWith('$')) {
      directive(entry, file, state, out, readFile, depth);
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
  readFile: (path: string) => string,
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
      if (ttl === undefined) fail(`$TTL "${args[0]!.text}" is not a TTL`);
      state.defaultTtl = ttl;
      return;
    }
    case '$INCLUDE': {
      if (args.length < 1 || args.length > 2) fail('$INCLUDE takes a file name and an optional origin');
      if (depth >= MAX_INCLUDE_DEPTH) fail(`$INCLUDE nested more than ${MAX_INCLUDE_DEPTH} deep`);
      const path = resolvePath(dirname(file), args[0]!.text);
      let text: string;
      try {
        text = readFile(path);
      } catch (error) {
        return fail(`$INCLUDE cannot read ${path}: ${(error as Error).message}`);
      }
      // RFC 1035: an $INCLUDE with an origin does not change the including file's origin.
      const inner: State = { ...state };
      if (args[1]) inner.origin = safe(file, entry.line, () => absoluteName(args[1]!.text, state.origin ?? []));
      parseInto(text, path, inner, out, readFile, depth + 1);
      state.lastTtl = inner.lastTtl;
      state.lastClass = inner.lastClass;
      return;
    }
    default:
      fail(`unknown directive ${keyword.text}`);
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
    const text = tokens[index++]!.text;
    if (!state.origin && text !== '@' && !text.endsWith('.')) fail(`relative name "${text}" but no $ORIGIN`);
    if (!state.origin && text === '@') fail('"@" but no $ORIGIN');
    owner = safe(file, line, () => absoluteName(text, state.origin ?? []));
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
  let type: number;
  try {
    type = parseType(typeToken!.text);
  } catch {
    return fail(`unknown type "${typeToken!.text}"`);
  }
  if (/^\d+$/.test(typeToken!.text)) fail(`"${typeToken!.text}" is not a type (a TTL in the wrong place?)`);

  const data = safe(file, line, () => readRdata(type, tokens.slice(index), { origin: state.origin ?? [] }));
  rrclass ??= state.lastClass;
  state.lastClass = rrclass;
  if (ttl !== undefined) state.lastTtl = ttl;
  else
    ttl =
      state.defaultTtl ?? state.lastTtl ?? (type === RRType.SOA ? (data as { minimum: number }).minimum : undefined);
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
    if (error instanceof SyntaxError || error instanceof DnsError) throw new ZoneFileError(file, line, error.message);
    throw error;
  }
}
