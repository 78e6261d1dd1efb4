/** Trust anchors as text and files, the root KSKs by default, negative anchors; options refused with their name. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_KSK_2017_DS, ROOT_KSK_2024_DS, defaultRootAnchors, parseName } from '@dnscore/core/plugin';
import { ValidatingOptionError, ValidatingResolver } from '../src/index.js';
import { closestAnchor, loadAnchors, negativeAnchorOf, parseAnchor } from '../src/trust-anchors.js';

const dir = mkdtempSync(join(tmpdir(), 'dnscore-anchors-'));
const DS = `biloxi.example. 3600 IN DS 12345 13 2 ${'ab'.repeat(32)}`;
const DNSKEY = `biloxi.example. IN DNSKEY 257 3 13 ${Buffer.alloc(64, 7).toString('base64')}`;

describe('parseAnchor', () => {
  it('reads a DS record into its RDATA', () => {
    const anchor = parseAnchor(DS, 'trustAnchors[0]');
    expect(anchor.type).toBe(43);
    expect([...anchor.rdata.subarray(0, 4)]).toEqual([0x30, 0x39, 13, 2]);
    expect(Buffer.from(anchor.rdata.subarray(4)).toString('hex')).toBe('ab'.repeat(32));
    expect(anchor.zone.map((l) => Buffer.from(l).toString())).toEqual(['biloxi', 'example']);
  });

  it('reads a DNSKEY record, parentheses and all', () => {
    const anchor = parseAnchor(`${DNSKEY.replace('257 3 13 ', '( 257 3 13\n ')} )`, 'x');
    expect(anchor.type).toBe(48);
    expect([...anchor.rdata.subarray(0, 4)]).toEqual([1, 1, 3, 13]);
    expect(anchor.rdata.length).toBe(68);
  });

  it.each([
    ['nonsense', 'trustAnchors[0]: "nonsense" is not a DS or DNSKEY record'],
    ['x. IN DS 1 13 2 zz', 'a DS anchor is "OWNER DS KEY-TAG ALGORITHM DIGEST-TYPE HEX-DIGEST"'],
    ['x. IN DS 70000 13 2 ab', 'a DS anchor is'],
    ['x. IN DNSKEY 257 2 13 AAAA', 'a DNSKEY anchor is "OWNER DNSKEY FLAGS 3 ALGORITHM BASE64-KEY"'],
    ['x. IN A 192.0.2.1', 'is not a DS or DNSKEY record'],
  ])('refuses %j', (text, message) => {
    expect(() => parseAnchor(text, 'trustAnchors[0]')).toThrow(ValidatingOptionError);
    expect(() => parseAnchor(text, 'trustAnchors[0]')).toThrow(message);
  });
});

describe('loadAnchors', () => {
  it('defaults to the root KSKs (root.ds or built-in), the same as the libunbound backend', () => {
    const set = loadAnchors(undefined, undefined);
    expect(set.source).toBe(defaultRootAnchors().source);
    expect([...set.byZone.keys()]).toEqual(['.']);
    expect(set.byZone.get('.')!.map((a) => a.text)).toEqual(defaultRootAnchors().anchors.map((a) => a.trim()));
    expect(defaultRootAnchors().anchors).toEqual(expect.arrayContaining([ROOT_KSK_2024_DS]));
    expect(ROOT_KSK_2017_DS).toMatch(/^\. IN DS 20326 8 2 /);
  });

  it('explicit anchors and files replace the defaults', () => {
    const file = join(dir, 'anchors.key');
    writeFileSync(file, `; a comment\n${DNSKEY}\n\nother.example. IN DS 1 8 2 ${'cd'.repeat(32)} ; trailing\n`);
    const set = loadAnchors([DS], [file]);
    expect(set.source).toBe('options');
    expect([...set.byZone.keys()].sort()).toEqual(['biloxi.example', 'other.example']);
    expect(set.byZone.get('biloxi.example')!.map((a) => a.type)).toEqual([43, 48]);
    expect(loadAnchors([], undefined).byZone.size).toBe(0);
  });

  it('a file that cannot be read, or holds no anchor, is refused with its option', () => {
    expect(() => loadAnchors(undefined, [join(dir, 'missing')])).toThrow(/trustAnchorFiles\[0\]: cannot read/);
    const empty = join(dir, 'empty');
    writeFileSync(empty, '; nothing\n');
    expect(() => loadAnchors(undefined, [empty])).toThrow(`trustAnchorFiles[0]: ${empty} holds no DS or DNSKEY record`);
  });

  it('finds the closest anchor and the negative anchor covering a name', () => {
    const set = loadAnchors([DS, ROOT_KSK_2024_DS], undefined, ['lab.biloxi.example']);
    const key = (labels: readonly Uint8Array[] | undefined) => labels?.map((l) => Buffer.from(l).toString()).join('.');
    expect(key(closestAnchor(set, parseName('sip1.biloxi.example')))).toBe('biloxi.example');
    expect(key(closestAnchor(set, parseName('atlanta.example')))).toBe('');
    expect(key(negativeAnchorOf(set, parseName('a.lab.BILOXI.example')))).toBe('lab.biloxi.example');
    expect(negativeAnchorOf(set, parseName('sip1.biloxi.example'))).toBeUndefined();
  });
});

describe('ValidatingResolver options', () => {
  it.each([
    [{ name: '' }, 'validating resolver option name: must be a non-empty string'],
    [{ priority: Number.NaN }, 'validating resolver option priority: must be a finite number'],
    [{ trustAnchors: 'x' as never }, 'validating resolver option trustAnchors: must be an array of strings'],
    [{ requireSecure: 'yes' as never }, 'validating resolver option requireSecure: must be true or false'],
    [
      { requireSecure: true, trustAnchors: [] },
      'validating resolver option requireSecure: no trust anchor is given, so no answer could be secure',
    ],
    [
      { maxChainLinks: 0 },
      'validating resolver option maxChainLinks: maxChainLinks must be an integer in 1..64, not 0',
    ],
    [{ clockSkewSeconds: -1 }, 'validating resolver option clockSkewSeconds:'],
    [{ clock: {} as never }, 'validating resolver option clock: must be an object with now()'],
    [
      { trustAnchors: ['nonsense'] },
      'validating resolver option trustAnchors[0]: "nonsense" is not a DS or DNSKEY record',
    ],
  ])('refuses %j', (options, message) => {
    expect(() => new ValidatingResolver({ nameservers: ['127.0.0.1'] }, { probe: false, ...options })).toThrow(message);
  });

  it('registers as "validating" with priority 1000 unless told otherwise', () => {
    const resolver = new ValidatingResolver({ nameservers: ['127.0.0.1'] }, { probe: false, trustAnchors: [DS] });
    expect([resolver.name, resolver.priority, resolver.trustAnchorSource]).toEqual(['validating', 1000, 'options']);
    expect(resolver.available()).toEqual({ available: true });
    resolver.close();
    expect(resolver.available()).toEqual({ available: false, reason: 'the validating resolver is closed' });
  });
});
