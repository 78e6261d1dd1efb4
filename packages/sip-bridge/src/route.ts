/**
 * Which URI decides where a request goes (RFC 3261 section 8.1.2): the first Route value when
 * it is a loose route (`;lr`; as sips: under a sips: Request-URI), else the Request-URI. A strict
 * first route is applied as section 12.2.1.1 says: it becomes the Request-URI (without parameters
 * a Request-URI may not carry), and the old Request-URI goes last in the Route set. Nothing else
 * rewrites the Request-URI.
 */
import { formatSipUri, parseSipUri, type SipUri } from '@dnscore/sip';
import { InvalidSipMessageError } from './errors.js';
import type { SipNameAddr, SipRequest, SipStack, SipUriObject } from './sip-stack.js';

export interface NextHop {
  /** The URI RFC 3263 resolves. */
  readonly uri: SipUri;
  /** Where it came from: the Request-URI, a loose first Route, or a strict first Route now in the Request-URI. */
  readonly from: 'request-uri' | 'loose-route' | 'strict-route';
}

/** URI parameters a Request-URI must not carry (RFC 3261 section 19.1.1, table 1). */
const NOT_IN_REQUEST_URI = new Set(['method']);

/** Splits a Route header value into its name-addr values ("<sip:a;lr>, <sip:b>"). */
export function parseRouteHeader(value: string): SipNameAddr[] {
  const routes: SipNameAddr[] = [];
  let rest = value.trim();
  while (rest !== '') {
    const open = rest.indexOf('<');
    const close = rest.indexOf('>', open + 1);
    if (open < 0 || close < 0)
      throw new InvalidSipMessageError(`a Route value must be a name-addr in angle brackets: "${value}"`);
    const uri = rest.slice(open + 1, close).trim();
    const after = rest.slice(close + 1);
    const comma = after.indexOf(',');
    const params = comma >= 0 ? after.slice(0, comma) : after;
    routes.push({ uri, params: Object.fromEntries(params.split(';').slice(1).map(routeParam)) });
    rest = comma >= 0 ? after.slice(comma + 1).trim() : '';
  }
  return routes;
}

function routeParam(text: string): [string, string | null] {
  const eq = text.indexOf('=');
  return eq < 0
    ? [text.trim().toLowerCase(), null]
    : [text.slice(0, eq).trim().toLowerCase(), text.slice(eq + 1).trim()];
}

/** The Route set of a request as a list (parsing a string value in place, as `sip` does). */
export function routeSet(request: SipRequest): SipNameAddr[] {
  const route = request.headers.route;
  if (route === undefined) return [];
  if (typeof route === 'string') {
    request.headers.route = parseRouteHeader(route);
    return request.headers.route;
  }
  if (!Array.isArray(route))
    throw new InvalidSipMessageError('the Route header must be a string or a list of name-addr values');
  return route;
}

/** Parses a URI the way the next-hop rules need it; InvalidSipMessageError when it is not SIP or SIPS. */
function sipUri(stack: SipStack, uri: string | SipUriObject, what: string): SipUri {
  const text = stack.stringifyUri(uri);
  try {
    return parseSipUri(text);
  } catch (error) {
    throw new InvalidSipMessageError(
      `${what} "${text}" is not a SIP or SIPS URI the bridge can route on: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * The next hop of `request`. A strict first route is applied to the request (its Request-URI
 * and Route header change, as RFC 3261 requires); otherwise the request is left as it is.
 */
export function nextHop(stack: SipStack, request: SipRequest): NextHop {
  const routes = routeSet(request);
  const first = routes[0];
  if (!first) return { uri: sipUri(stack, request.uri, 'the Request-URI'), from: 'request-uri' };
  const hop = sipUri(stack, first.uri, 'the first Route');
  if (hop.params.has('lr')) {
    // A sips: Request-URI asks for TLS on every hop up to its domain (RFC 3261 section 26.2.2):
    // a sip: loose route is resolved as sips:, never as a downgrade to UDP or TCP.
    const secure = hop.scheme === 'sip' && /^sips:/i.test(stack.stringifyUri(request.uri));
    return { uri: secure ? parseSipUri(formatSipUri({ ...hop, scheme: 'sips' })) : hop, from: 'loose-route' };
  }
  // Strict router (RFC 2543 style): it gets the request with itself as the Request-URI.
  const remoteTarget = request.uri;
  const params = new Map([...hop.params].filter(([name]) => !NOT_IN_REQUEST_URI.has(name)));
  const text = formatSipUri({ ...hop, params, headers: [] });
  request.uri = text;
  request.headers.route = [...routes.slice(1), { uri: remoteTarget }];
  return { uri: parseSipUri(text), from: 'strict-route' };
}
