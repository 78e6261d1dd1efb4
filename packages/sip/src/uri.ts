/**
 * SIP and SIPS URIs (RFC 3261 sections 19.1 and 25.1). The scheme, the host and parameter
 * names are case-insensitive and kept lowercase; the user part is case-sensitive and kept as
 * written. Anything outside the grammar is an InvalidSipUriError that says where and why.
 */
import { InvalidSipUriError } from './errors.js';
import { formatHost, parseHost, type HostKind, type SipHost } from './host.js';
import type { SipScheme } from './transport.js';

export interface SipUri {
  /** The text as given. */
  readonly text: string;
  readonly scheme: SipScheme;
  /** The user part as written (escapes kept), or undefined. */
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** Lowercase host name, dotted-quad IPv4, or RFC 5952 IPv6 without brackets. */
  readonly host: string;
  readonly hostKind: HostKind;
  readonly port: number | undefined;
  /** URI parameters by lowercase name; undefined for a parameter without a value ("lr"). */
  readonly params: ReadonlyMap<string, string | undefined>;
  /** The transport parameter, unescaped and lowercased ("udp", "tcp", "tls", "sctp", "ws", ...). */
  readonly transport: string | undefined;
  /** The maddr parameter: when present it is the TARGET of RFC 3263 section 4. */
  readonly maddr: SipHost | undefined;
  /** Headers after "?", as written. */
  readonly headers: readonly (readonly [string, string])[];
}

/** Longest URI accepted: far above any real one, low enough to keep hostile input cheap. */
export const MAX_URI_LENGTH = 8_192;

const UNRESERVED = "A-Za-z0-9\\-_.!~*'()";
const ESCAPED = '%[0-9A-Fa-f]{2}';
const USER_CHAR = new RegExp(`^(?:[${UNRESERVED}&=+$,;?/]|${ESCAPED})`);
const PASSWORD_CHAR = new RegExp(`^(?:[${UNRESERVED}&=+$,]|${ESCAPED})`);
const PARAM_CHAR = new RegExp(`^(?:[${UNRESERVED}\\[\\]/:&+$]|${ESCAPED})`);
const HEADER_CHAR = new RegExp(`^(?:[${UNRESERVED}\\[\\]/?:+$]|${ESCAPED})`);
const TOKEN = /^[A-Za-z0-9\-.!%*_+`'~]+$/;

/** RFC 3261 section 25.1 `token`: a method, a transport or a parameter name. */
export function isSipToken(text: string): boolean {
  return TOKEN.test(text);
}

/** Parses a sip: or sips: URI; throws InvalidSipUriError for anything else. */
export function parseSipUri(text: string): SipUri {
  if (typeof text !== 'string') throw new InvalidSipUriError(String(text), 'a URI must be a string');
  const fail = (reason: string, position?: number): never => {
    throw new InvalidSipUriError(text.length > 200 ? `${text.slice(0, 200)}...` : text, reason, position);
  };
  if (text.length > MAX_URI_LENGTH) fail(`longer than ${MAX_URI_LENGTH} characters`);
  const scheme = /^(sips?):/i.exec(text);
  if (!scheme) {
    if (/^\s|\s$/.test(text)) fail('it has leading or trailing white space');
    if (text.startsWith('<')) fail('angle brackets belong to a name-addr, not to the URI: remove "<" and ">"');
    const other = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text);
    fail(other ? `the scheme "${other[1]}" is not sip or sips` : 'it does not start with "sip:" or "sips:"', 0);
  }
  let pos = scheme![0].length;

  // userinfo: "@" cannot appear anywhere else in the grammar, so the first one ends it.
  const at = text.indexOf('@', pos);
  let user: string | undefined;
  let password: string | undefined;
  if (at >= 0) {
    if (text.indexOf('@', at + 1) >= 0) fail('it has more than one "@"', text.indexOf('@', at + 1));
    const userinfo = text.slice(pos, at);
    const colon = userinfo.indexOf(':');
    user = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
    if (user === '') fail('the user part before "@" is empty', pos);
    checkChars(user, USER_CHAR, pos, 'the user part', fail);
    if (colon >= 0) {
      password = userinfo.slice(colon + 1);
      checkChars(password, PASSWORD_CHAR, pos + colon + 1, 'the password', fail);
    }
    pos = at + 1;
  }

  // host
  let hostEnd: number;
  if (text[pos] === '[') {
    const close = text.indexOf(']', pos);
    if (close < 0) fail('the IPv6 reference has no closing "]"', pos);
    hostEnd = close + 1;
  } else {
    const hostport = text.slice(pos, findEnd(text, pos, ';?'));
    if (hostport.split(':').length > 2)
      fail(`"${hostport}" looks like an IPv6 address: write it in brackets, [${hostport}]`, pos);
    hostEnd = findEnd(text, pos, ':;?');
  }
  const parsedHost = parseHost(text.slice(pos, hostEnd));
  if (!parsedHost.ok) fail(parsedHost.reason, pos);
  const host = (parsedHost as { host: SipHost }).host;
  pos = hostEnd;

  // port
  let port: number | undefined;
  if (text[pos] === ':') {
    const end = findEnd(text, pos + 1, ';?');
    const digits = text.slice(pos + 1, end);
    if (!/^[0-9]+$/.test(digits))
      fail(digits === '' ? 'the port after ":" is empty' : `the port "${digits}" is not a number`, pos + 1);
    port = Number(digits);
    if (port < 1 || port > 65535) fail(`the port ${digits} is outside 1..65535`, pos + 1);
    pos = end;
  }

  // uri-parameters, and where each one's value starts (for the checks below)
  const params = new Map<string, string | undefined>();
  const valueAt = new Map<string, number>();
  while (text[pos] === ';') {
    const end = findEnd(text, pos + 1, ';?');
    const param = text.slice(pos + 1, end);
    const eq = param.indexOf('=');
    const name = eq >= 0 ? param.slice(0, eq) : param;
    const value = eq >= 0 ? param.slice(eq + 1) : undefined;
    if (name === '') fail('a parameter has no name', pos + 1);
    checkChars(name, PARAM_CHAR, pos + 1, 'a parameter name', fail);
    if (value !== undefined) {
      if (value === '') fail(`the parameter "${name}" has "=" but no value`, pos + 1);
      checkChars(value, PARAM_CHAR, pos + 2 + name.length, `the value of parameter "${name}"`, fail);
    }
    const key = name.toLowerCase();
    if (params.has(key)) fail(`the parameter "${key}" appears twice`, pos + 1);
    params.set(key, value);
    valueAt.set(key, value === undefined ? pos + 1 : pos + 2 + name.length);
    pos = end;
  }

  // headers
  const headers: [string, string][] = [];
  if (text[pos] === '?') {
    for (const header of text.slice(pos + 1).split('&')) {
      const eq = header.indexOf('=');
      if (eq <= 0) fail(`the header "${header}" is not name=value`, pos + 1);
      checkChars(header.slice(0, eq), HEADER_CHAR, pos + 1, 'a header name', fail);
      checkChars(header.slice(eq + 1), HEADER_CHAR, pos + 2 + eq, 'a header value', fail);
      headers.push([header.slice(0, eq), header.slice(eq + 1)]);
      pos += header.length + 1;
    }
    pos = text.length;
  }
  if (pos !== text.length) fail(`unexpected "${text[pos]}"`, pos);

  return Object.freeze({
    text,
    scheme: scheme![1]!.toLowerCase() as SipScheme,
    user,
    password,
    host: host.host,
    hostKind: host.kind,
    port,
    params,
    transport: checkParams(params, valueAt, fail),
    maddr: maddrOf(params, valueAt, fail),
    headers: Object.freeze(headers.map((h) => Object.freeze(h))),
  });
}

/** The TARGET of RFC 3263 section 4: the maddr parameter when present, else the host. */
export function uriTarget(uri: SipUri): SipHost & { readonly from: 'host' | 'maddr' } {
  return uri.maddr ? { ...uri.maddr, from: 'maddr' } : { host: uri.host, kind: uri.hostKind, from: 'host' };
}

/** The URI in normal form: lowercase scheme, host and parameter names; user, values and headers as written. */
export function formatSipUri(uri: SipUri): string {
  let out = `${uri.scheme}:`;
  if (uri.user !== undefined) out += `${uri.user}${uri.password !== undefined ? `:${uri.password}` : ''}@`;
  out += formatHost({ host: uri.host, kind: uri.hostKind });
  if (uri.port !== undefined) out += `:${uri.port}`;
  for (const [name, value] of uri.params) out += value === undefined ? `;${name}` : `;${name}=${value}`;
  if (uri.headers.length > 0) out += `?${uri.headers.map(([n, v]) => `${n}=${v}`).join('&')}`;
  return out;
}

type Fail = (reason: string, position?: number) => never;

/** Index of the first of `stops` at or after `from`, or the end. */
function findEnd(text: string, from: number, stops: string): number {
  for (let i = from; i < text.length; i++) if (stops.includes(text[i]!)) return i;
  return text.length;
}

function checkChars(part: string, allowed: RegExp, offset: number, what: string, fail: Fail): void {
  for (let i = 0; i < part.length; ) {
    const match = allowed.exec(part.slice(i, i + 3));
    if (!match) {
      const c = part[i]!;
      const shown = c === '%' ? `"%" not followed by two hex digits` : /\s/.test(c) ? 'white space' : `"${c}"`;
      fail(`${what} holds ${shown}`, offset + i);
    }
    i += match![0].length;
  }
}

function percentDecode(value: string, name: string, at: number | undefined, fail: Fail): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return fail(`the value of parameter "${name}" has an escape that is not UTF-8`, at);
  }
}

/** Checks ttl, user and method; returns the transport parameter, unescaped and lowercased. */
function checkParams(
  params: ReadonlyMap<string, string | undefined>,
  valueAt: ReadonlyMap<string, number>,
  fail: Fail,
): string | undefined {
  const ttl = params.get('ttl');
  if (params.has('ttl') && (ttl === undefined || !/^[0-9]{1,3}$/.test(ttl) || Number(ttl) > 255)) {
    fail(`the ttl parameter "${ttl ?? ''}" is not 0..255`, valueAt.get('ttl'));
  }
  for (const name of ['user', 'method', 'transport']) {
    if (!params.has(name)) continue;
    const raw = params.get(name);
    if (raw === undefined) fail(`the ${name} parameter needs a value`, valueAt.get(name));
    const value = percentDecode(raw!, name, valueAt.get(name), fail);
    if (!isSipToken(value)) fail(`the ${name} parameter "${value}" is not a token`, valueAt.get(name));
  }
  const transport = params.get('transport');
  return transport === undefined
    ? undefined
    : percentDecode(transport, 'transport', valueAt.get('transport'), fail).toLowerCase();
}

function maddrOf(
  params: ReadonlyMap<string, string | undefined>,
  valueAt: ReadonlyMap<string, number>,
  fail: Fail,
): SipHost | undefined {
  if (!params.has('maddr')) return undefined;
  const raw = params.get('maddr');
  const at = valueAt.get('maddr');
  if (raw === undefined) return fail('the maddr parameter needs a value', at);
  const value = percentDecode(raw, 'maddr', at, fail);
  // maddr is a host (RFC 3261 section 19.1.1): a port goes after the URI's host, not here.
  if (/^[^:[\]]+:[0-9]*$/.test(value)) return fail(`maddr "${value}" has a port: maddr takes a host only`, at);
  const parsed = parseHost(value);
  if (!parsed.ok) return fail(`maddr: ${parsed.reason}`, at);
  return parsed.host;
}
