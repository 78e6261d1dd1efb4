/** RFC 3261 section 8.1.2: which URI decides the next hop, and strict routes as section 12.2.1.1 says. */
import { describe, expect, it } from 'vitest';
import sip from 'sip';
import { InvalidSipMessageError } from '../src/errors.js';
import { nextHop, parseRouteHeader, routeSet } from '../src/route.js';
import type { SipRequest } from '../src/sip-stack.js';

function request(uri: string, route?: SipRequest['headers']['route']): SipRequest {
  return {
    method: 'OPTIONS',
    uri,
    headers: {
      ...(route === undefined ? {} : { route }),
      'call-id': 'c',
      cseq: { seq: 1, method: 'OPTIONS' },
      from: { uri: 'sip:a@x.example' },
      to: { uri },
    },
  };
}

describe('nextHop: nominal', () => {
  it('without a Route, the Request-URI', () => {
    const rq = request('sip:bob@biloxi.example');
    expect(nextHop(sip, rq)).toMatchObject({ from: 'request-uri', uri: { host: 'biloxi.example', user: 'bob' } });
    expect(rq.uri).toBe('sip:bob@biloxi.example');
  });

  it('a loose first Route (;lr) decides; the request is left as it is', () => {
    const rq = request('sip:bob@biloxi.example', [
      { uri: 'sip:proxy.atlanta.example;lr' },
      { uri: 'sip:p2.example;lr' },
    ]);
    expect(nextHop(sip, rq)).toMatchObject({ from: 'loose-route', uri: { host: 'proxy.atlanta.example' } });
    expect(rq.uri).toBe('sip:bob@biloxi.example');
    expect(rq.headers.route).toHaveLength(2);
  });

  it('a sips: Request-URI makes a sip: loose Route a sips: hop (RFC 3261 26.2.2); the Route is left as given', () => {
    const rq = request('sips:bob@biloxi.example', [{ uri: 'sip:proxy.atlanta.example:5070;lr' }]);
    expect(nextHop(sip, rq)).toMatchObject({
      from: 'loose-route',
      uri: { scheme: 'sips', host: 'proxy.atlanta.example', port: 5070, text: 'sips:proxy.atlanta.example:5070;lr' },
    });
    expect(rq.headers.route).toEqual([{ uri: 'sip:proxy.atlanta.example:5070;lr' }]);
    // A sip: Request-URI leaves a sip: Route as it is.
    const plain = request('sip:bob@biloxi.example', [{ uri: 'sip:proxy.atlanta.example;lr' }]);
    expect(nextHop(sip, plain).uri.scheme).toBe('sip');
  });

  it('a Route header given as text is parsed in place, as `sip` does', () => {
    const rq = request('sip:bob@biloxi.example', '<sip:proxy.atlanta.example;lr>;foo=bar, <sip:p2.example;lr>');
    expect(nextHop(sip, rq).uri.host).toBe('proxy.atlanta.example');
    expect(rq.headers.route).toEqual([
      { uri: 'sip:proxy.atlanta.example;lr', params: { foo: 'bar' } },
      { uri: 'sip:p2.example;lr', params: {} },
    ]);
  });

  it('a Route parsed by `sip` (URI objects) works the same', () => {
    const parsed = sip.parse(
      'OPTIONS sip:bob@biloxi.example SIP/2.0\r\nRoute: <sip:proxy.atlanta.example;lr>\r\nCall-ID: c\r\nCSeq: 1 ' +
        'OPTIONS\r\n\r\n',
    ) as SipRequest;
    expect(nextHop(sip, parsed)).toMatchObject({ from: 'loose-route', uri: { host: 'proxy.atlanta.example' } });
  });

  it('a strict first Route becomes the Request-URI (without method=), the remote target goes last', () => {
    const rq = request('sip:bob@192.0.2.4', [
      { uri: 'sip:strict.example;method=INVITE;transport=tcp' },
      { uri: 'sip:p2.example;lr' },
    ]);
    const hop = nextHop(sip, rq);
    expect(hop.from).toBe('strict-route');
    expect(hop.uri.text).toBe('sip:strict.example;transport=tcp');
    expect(rq.uri).toBe('sip:strict.example;transport=tcp');
    expect(rq.headers.route).toEqual([{ uri: 'sip:p2.example;lr' }, { uri: 'sip:bob@192.0.2.4' }]);
  });

  it('routeSet of a request without Route is empty', () => {
    expect(routeSet(request('sip:a@b.example'))).toEqual([]);
  });
});

describe('nextHop: off-nominal', () => {
  it('a tel: Request-URI without a route set cannot be routed', () => {
    expect(() => nextHop(sip, request('tel:+15551234'))).toThrow(InvalidSipMessageError);
  });

  it('a Route that is not a SIP URI, or not a name-addr, is refused', () => {
    expect(() => nextHop(sip, request('sip:a@b.example', [{ uri: 'http://example.com' }]))).toThrow(/first Route/);
    expect(() => parseRouteHeader('sip:proxy.example;lr')).toThrow(/angle brackets/);
    expect(() => routeSet(request('sip:a@b.example', 42 as never))).toThrow(/Route header/);
  });
});
