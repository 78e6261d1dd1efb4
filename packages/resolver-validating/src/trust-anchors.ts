/**
 * Trust anchors (RFC 4033 section 2, RFC 7958): DS or DNSKEY records taken on trust, one zone
 * each, given as text or files; by default both root KSKs from dns-root-data's root.ds (the
 * core's defaultRootAnchors, as the libunbound backend). Negative trust anchors (RFC 7646):
 * zones whose answers are treated as insecure, whatever their signatures say.
 */
import { readFileSync } from 'node:fs';
import { defaultRootAnchors, parseName, type Labels } from '@dnscore/core/plugin';
import { DnssecType } from './validate/index.js';
import { ValidatingOptionError } from './errors.js';
import { isAtOrBelow, keyOf } from './names.js';

export interface TrustAnchor {
  /** The anchored zone, as wire labels. */
  readonly zone: Labels;
  /** DnssecType.DS or DnssecType.DNSKEY. */
  readonly type: number;
  /** The record's RDATA in wire form. */
  readonly rdata: Uint8Array;
  /** The text it was read from, for messages. */
  readonly text: string;
}

export interface AnchorSet {
  /** Every anchor, grouped by zone key. */
  readonly byZone: ReadonlyMap<string, readonly TrustAnchor[]>;
  /** Where they come from: "options", a root.ds path or "built-in". */
  readonly source: string;
  /** Negative trust anchors: names whose subtree is insecure. */
  readonly negative: readonly Labels[];
}

/** What the options say; the root KSKs when neither anchors nor files are given. */
export function loadAnchors(
  anchors: readonly string[] | undefined,
  files: readonly string[] | undefined,
  negative: readonly string[] = [],
): AnchorSet {
  const list: TrustAnchor[] = [];
  let source = 'options';
  if (anchors === undefined && files === undefined) {
    const defaults = defaultRootAnchors();
    source = defaults.source;
    defaults.anchors.forEach((text, i) => {
      list.push(parseAnchor(text, `default root anchor ${i}`));
    });
  } else {
    (anchors ?? []).forEach((text, i) => {
      list.push(parseAnchor(text, `trustAnchors[${i}]`));
    });
    (files ?? []).forEach((file, i) => {
      list.push(...readAnchorFile(file, `trustAnchorFiles[${i}]`));
    });
  }
  const byZone = new Map<string, TrustAnchor[]>();
  for (const anchor of list) {
    const key = keyOf(anchor.zone);
    byZone.set(key, [...(byZone.get(key) ?? []), anchor]);
  }
  return {
    byZone,
    source,
    negative: negative.map((name, i) => zoneName(name, `negativeTrustAnchors[${i}]`)),
  };
}

/** The closest anchored zone at or above `name`, or undefined when no anchor covers it. */
export function closestAnchor(set: AnchorSet, name: Labels): Labels | undefined {
  for (let count = name.length; count >= 0; count--) {
    const zone = name.slice(name.length - count);
    if (set.byZone.has(keyOf(zone))) return zone;
  }
  return undefined;
}

/** The negative trust anchor covering `name`, if any. */
export function negativeAnchorOf(set: AnchorSet, name: Labels): Labels | undefined {
  return set.negative.find((zone) => isAtOrBelow(name, zone));
}

/**
 * Anchors already parsed, by their text: a backend made per question (a cold start) parses the
 * same anchor text every time. Frozen and shared; failures are not kept (their message names
 * the option).
 */
const parsedAnchors = new Map<string, TrustAnchor>();
const PARSED_ANCHORS_SIZE = 64;

/** "zone. [TTL] [IN] DS tag alg digest-type hex" or "zone. [TTL] [IN] DNSKEY flags 3 alg base64". */
export function parseAnchor(text: string, option: string): TrustAnchor {
  if (typeof text !== 'string') throw new ValidatingOptionError(option, 'must be a string');
  const known = parsedAnchors.get(text);
  if (known) return known;
  const anchor = Object.freeze(parseAnchorText(text, option));
  if (parsedAnchors.size >= PARSED_ANCHORS_SIZE) parsedAnchors.delete(parsedAnchors.keys().next().value as string);
  parsedAnchors.set(text, anchor);
  return anchor;
}

function parseAnchorText(text: string, option: string): TrustAnchor {
  const fields = text.replace(/[()]/g, ' ').trim().split(/\s+/);
  const owner = fields.shift() ?? '';
  while (fields.length > 0 && (/^\d+$/.test(fields[0]!) || /^IN$/i.test(fields[0]!))) fields.shift();
  const type = (fields.shift() ?? '').toUpperCase();
  const zone = zoneName(owner, option);
  if (type === 'DS') return { zone, type: DnssecType.DS, rdata: dsRdata(fields, option), text: text.trim() };
  if (type === 'DNSKEY')
    return { zone, type: DnssecType.DNSKEY, rdata: dnskeyRdata(fields, option), text: text.trim() };
  throw new ValidatingOptionError(option, `"${text.trim()}" is not a DS or DNSKEY record`);
}

/** A file of DS or DNSKEY records (";" comments, parentheses across lines), e.g. root.ds or root.key. */
function readAnchorFile(file: string, option: string): TrustAnchor[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ValidatingOptionError(option, `cannot read ${file}: ${(error as Error).message}`);
  }
  const records: string[] = [];
  let pending = '';
  let depth = 0;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/;.*$/, '');
    depth += (line.match(/\(/g)?.length ?? 0) - (line.match(/\)/g)?.length ?? 0);
    pending = `${pending} ${line}`;
    if (depth <= 0) {
      if (pending.trim() !== '') records.push(pending.trim());
      pending = '';
      depth = 0;
    }
  }
  const anchors = records
    .filter((record) => /\s(DS|DNSKEY)\s/i.test(` ${record} `))
    .map((record, i) => parseAnchor(record, `${option} (${file}, record ${i + 1})`));
  if (anchors.length === 0) throw new ValidatingOptionError(option, `${file} holds no DS or DNSKEY record`);
  return anchors;
}

function dsRdata(fields: readonly string[], option: string): Uint8Array {
  const [tag, algorithm, digestType, ...hex] = fields;
  const digest = hex.join('');
  if (!byte16(tag) || !byte8(algorithm) || !byte8(digestType) || !/^([0-9a-f]{2})+$/i.test(digest)) {
    throw new ValidatingOptionError(option, 'a DS anchor is "OWNER DS KEY-TAG ALGORITHM DIGEST-TYPE HEX-DIGEST"');
  }
  return Uint8Array.from([
    Number(tag) >> 8,
    Number(tag) & 0xff,
    Number(algorithm),
    Number(digestType),
    ...Buffer.from(digest, 'hex'),
  ]);
}

function dnskeyRdata(fields: readonly string[], option: string): Uint8Array {
  const [flags, protocol, algorithm, ...key] = fields;
  const base64 = key.join('');
  if (!byte16(flags) || protocol !== '3' || !byte8(algorithm) || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) {
    throw new ValidatingOptionError(option, 'a DNSKEY anchor is "OWNER DNSKEY FLAGS 3 ALGORITHM BASE64-KEY"');
  }
  return Uint8Array.from([
    Number(flags) >> 8,
    Number(flags) & 0xff,
    3,
    Number(algorithm),
    ...Buffer.from(base64, 'base64'),
  ]);
}

function zoneName(text: unknown, option: string): Labels {
  if (typeof text !== 'string' || text.trim() === '') throw new ValidatingOptionError(option, 'needs a domain name');
  try {
    return parseName(text.trim());
  } catch (error) {
    throw new ValidatingOptionError(option, (error as Error).message);
  }
}

function byte8(text: string | undefined): boolean {
  return text !== undefined && /^\d{1,3}$/.test(text) && Number(text) <= 255;
}

function byte16(text: string | undefined): boolean {
  return text !== undefined && /^\d{1,5}$/.test(text) && Number(text) <= 65535;
}
