/**
 * Names compared as text (formatName()'s form) against the same comparisons on labels, on
 * arbitrary label bytes: escaped dots and backslashes, \DDD, upper case, underscores.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inAdditionalBailiwick, inAdditionalBailiwickText, isAtOrBelow, serviceBase } from '../../src/bailiwick.js';
import { serviceBaseText } from '../../src/bailiwick.js';
import {
  formatName,
  isAtOrBelowText,
  labelsEqual,
  nextLabelText,
  parseName,
  presentationForm,
  sameNameText,
  type Labels,
} from '../../src/names.js';
import { WireReader } from '../../src/wire/reader.js';

const enc = new TextEncoder();
/** Label bytes that make escapes likely: dots, backslashes, digits, letters of both cases, '_', binary. */
const byte = fc.constantFrom(0x2e, 0x5c, 0x5f, 0x41, 0x61, 0x5a, 0x7a, 0x30, 0x39, 0x20, 0x00, 0xff, 0x7f, 0x22, 0x24);
const label = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 6 }),
  fc.array(byte, { minLength: 1, maxLength: 5 }).map((bytes) => Uint8Array.from(bytes)),
  fc.constantFrom('_sip', '_udp', 'a', 'A', 'example', 'EXAMPLE').map((t) => enc.encode(t)),
);
const labels = fc.array(label, { minLength: 0, maxLength: 5 });

/** Flips the case of every ASCII letter: the same name (RFC 4343). */
function flipCase(name: Labels): Labels {
  return name.map((l) => l.map((c) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c >= 0x61 && c <= 0x7a ? c - 0x20 : c)));
}

/** The name in wire form, read back with WireReader.nameText(). */
function readText(name: Labels): string {
  const bytes: number[] = [];
  for (const l of name) bytes.push(l.length, ...l);
  bytes.push(0);
  return new WireReader(Uint8Array.from(bytes), 0).nameText();
}

describe('names as text', () => {
  it('WireReader.nameText() writes what formatName() writes', () => {
    fc.assert(
      fc.property(labels, (name) => {
        expect(readText(name)).toBe(formatName(name));
      }),
      { numRuns: 2000 },
    );
  });

  it('sameNameText is labelsEqual', () => {
    fc.assert(
      fc.property(labels, labels, fc.boolean(), (a, b, sameCaseFlipped) => {
        const other = sameCaseFlipped ? flipCase(a) : b;
        expect(sameNameText(formatName(a), formatName(other))).toBe(labelsEqual(a, other));
      }),
      { numRuns: 2000 },
    );
  });

  it('isAtOrBelowText is isAtOrBelow', () => {
    fc.assert(
      fc.property(labels, labels, fc.boolean(), (a, b, below) => {
        // Half the time a real descendant (with its case flipped), else two arbitrary names.
        const name = below ? [...b, ...flipCase(a)] : b;
        expect(isAtOrBelowText(formatName(name), formatName(a))).toBe(isAtOrBelow(name, a));
      }),
      { numRuns: 3000 },
    );
  });

  it('serviceBaseText and inAdditionalBailiwickText are their label forms', () => {
    fc.assert(
      fc.property(labels, labels, (question, owner) => {
        expect(serviceBaseText(formatName(question))).toBe(formatName(serviceBase(question)));
        expect(inAdditionalBailiwickText(formatName(owner), formatName(question))).toBe(
          inAdditionalBailiwick(owner, question),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('nextLabelText steps over escaped dots and \\DDD', () => {
    const name = formatName([enc.encode('a.b'), Uint8Array.of(0x2e, 0x00), enc.encode('c')]);
    expect(name).toBe('a\\.b.\\.\\000.c');
    expect(nextLabelText(name, 0)).toBe(5);
    expect(nextLabelText(name, 5)).toBe(12);
    expect(nextLabelText(name, 12)).toBe(-1);
  });

  it('presentationForm is formatName(parseName()) and keeps a plain name as it is', () => {
    const plain = 'sip1.Biloxi.example';
    expect(presentationForm(plain)).toBe(plain);
    expect(presentationForm('sip1.biloxi.example.')).toBe('sip1.biloxi.example');
    expect(presentationForm('.')).toBe('.');
    expect(presentationForm('a\\046b.example')).toBe('a\\.b.example');
    fc.assert(
      fc.property(labels, (name) => {
        const text = formatName(name);
        expect(presentationForm(text)).toBe(formatName(parseName(text)));
      }),
    );
  });

  it('sameNameText and isAtOrBelowText on examples', () => {
    expect(sameNameText('Sip1.Biloxi.EXAMPLE', 'sip1.biloxi.example')).toBe(true);
    expect(sameNameText('a\\.b.example', 'a.b.example')).toBe(false);
    expect(isAtOrBelowText('sip1.biloxi.example', 'BILOXI.example')).toBe(true);
    expect(isAtOrBelowText('xbiloxi.example', 'biloxi.example')).toBe(false);
    // "a\.biloxi.example" is one label "a.biloxi" in example: not below biloxi.example.
    expect(isAtOrBelowText('a\\.biloxi.example', 'biloxi.example')).toBe(false);
    // "a\\.biloxi.example": the label "a\" then biloxi.example.
    expect(isAtOrBelowText('a\\\\.biloxi.example', 'biloxi.example')).toBe(true);
    expect(isAtOrBelowText('example', '.')).toBe(true);
    expect(isAtOrBelowText('.', 'example')).toBe(false);
  });
});
