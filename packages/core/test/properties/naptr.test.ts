/** NAPTR validation against an independent statement of the rules, on arbitrary input. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RdataError } from '../../src/records/rdata-error.js';
import { parseNaptrRegexp, validateFlags, validateServices } from '../../src/records/naptr.js';

/** Does `check` accept `value`, throwing only RdataError otherwise? */
function accepts(check: (value: string) => unknown, value: string): boolean {
  try {
    check(value);
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(RdataError);
    return false;
  }
}

const flagChars = fc.string({ unit: fc.constantFrom(...'sSaAuUpPxX019!+ '.split('')), maxLength: 5 });
const serviceChars = fc.string({ unit: fc.constantFrom(...'SIPD2UTabz19+:!'.split('')), maxLength: 40 });

describe('NAPTR rules (property)', () => {
  it('flags: alphanumeric, at most one of S/A/U/P in any case (RFC 3404 section 4.3)', () => {
    fc.assert(
      fc.property(flagChars, (flags) => {
        const oracle = /^[A-Za-z0-9]*$/.test(flags) && (flags.match(/[sapu]/gi) ?? []).length <= 1;
        expect(accepts(validateFlags, flags)).toBe(oracle);
      }),
      { numRuns: 2000 },
    );
  });

  it('services: "+"-separated segments of 1..32 alphanumerics starting with a letter (RFC 3403 section 4.1)', () => {
    fc.assert(
      fc.property(serviceChars, (services) => {
        const oracle = services === '' || services.split('+').every((s) => /^[A-Za-z][A-Za-z0-9]{0,31}$/.test(s));
        expect(accepts(validateServices, services)).toBe(oracle);
      }),
      { numRuns: 2000 },
    );
  });

  it('regexp: arbitrary text is accepted or refused with an RdataError, never anything else', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (regexp) => void accepts(parseNaptrRegexp, regexp)),
      { numRuns: 3000 },
    );
  });

  it('regexp: a well-formed substitution expression with any allowed delimiter is accepted', () => {
    const delimiter = fc.constantFrom('!', '#', '0', '/', '@', '%', '~');
    const literal = fc.stringMatching(/^[a-z:@]{0,12}$/); // no ERE metacharacters
    const replacementText = fc.stringMatching(/^[a-z.:@+]{0,12}$/);
    fc.assert(
      fc.property(
        delimiter,
        literal,
        replacementText,
        fc.boolean(),
        fc.integer({ min: 1, max: 3 }),
        (d, before, after, caseless, groups) => {
          const safe = (s: string) => s.split(d).join('');
          const pattern = `^${safe(before)}${'(.)'.repeat(groups)}.*$`;
          const replacement = `${safe(after)}\\${groups}`;
          const parsed = parseNaptrRegexp(`${d}${pattern}${d}${replacement}${d}${caseless ? 'i' : ''}`);
          expect(parsed.delimiter).toBe(d);
          expect(parsed.pattern.flags).toBe(caseless ? 'i' : '');
        },
      ),
      { numRuns: 500 },
    );
  });
});
