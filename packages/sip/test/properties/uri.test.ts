/**
 * SIP URIs on arbitrary input (RFC 3261 section 25.1): parsed, formatted and parsed again alike,
 * or refused with a typed error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidSipUriError } from '../../src/errors.js';
import { formatSipUri, parseSipUri } from '../../src/uri.js';

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
// RFC 3261: the last label (toplabel) starts with a letter.
const toplabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
const hostname = fc.tuple(fc.array(label, { maxLength: 3 }), toplabel).map(([l, top]) => [...l, top].join('.'));
const ipv4 = fc.tuple(...Array.from({ length: 4 }, () => fc.integer({ min: 0, max: 255 }))).map((o) => o.join('.'));
const ipv6 = fc.ipV6().map((a) => `[${a}]`);
const user = fc.stringMatching(/^[A-Za-z0-9\-_.!~*'()&=+$,;?/]{1,16}$/);
const param = fc.tuple(
  fc.constantFrom('transport', 'maddr', 'lr', 'user', 'x-custom'),
  fc.option(fc.stringMatching(/^[a-z0-9.]{1,10}$/), { nil: undefined }),
);

const uri = fc
  .record({
    scheme: fc.constantFrom('sip', 'sips', 'SIP', 'Sips'),
    user: fc.option(user, { nil: undefined }),
    host: fc.oneof(hostname, ipv4, ipv6),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    params: fc.uniqueArray(param, { selector: ([name]) => name, maxLength: 3 }),
  })
  .map((u) => ({
    ...u,
    text:
      `${u.scheme}:${u.user !== undefined ? `${u.user}@` : ''}${u.host}` +
      (u.port !== undefined ? `:${u.port}` : '') +
      u.params.map(([name, value]) => (value === undefined ? `;${name}` : `;${name}=${value}`)).join(''),
  }));

describe('SIP URIs (property)', () => {
  it('a URI of the grammar parses into its parts, and its formatted form parses to the same', () => {
    fc.assert(
      fc.property(uri, (u) => {
        let parsed: ReturnType<typeof parseSipUri>;
        try {
          parsed = parseSipUri(u.text);
        } catch (error) {
          // maddr must itself be a host, and transport, user and maddr need values (RFC 3261 section 25.1).
          expect(error).toBeInstanceOf(InvalidSipUriError);
          expect(
            u.params.some(
              ([name, value]) => name === 'maddr' || ((name === 'transport' || name === 'user') && value === undefined),
            ),
          ).toBe(true);
          return;
        }
        expect(parsed.scheme).toBe(u.scheme.toLowerCase());
        expect(parsed.user).toBe(u.user);
        expect(parsed.port).toBe(u.port);
        const again = parseSipUri(formatSipUri(parsed));
        expect({ ...again, text: '' }).toEqual({ ...parsed, text: '' });
      }),
      { numRuns: 1500 },
    );
  });

  it('arbitrary text parses or is refused with InvalidSipUriError, never anything else', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc
        .string({ unit: fc.constantFrom(...'sip:@[]:;=?&%.0123456789abcdef-_ <>'.split('')), maxLength: 60 })
        .map((s) => `sip:${s}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        try {
          parseSipUri(t);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidSipUriError);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
