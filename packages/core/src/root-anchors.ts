/**
 * The default DNSSEC trust anchors of every validating backend: both root KSKs (ARCHITECTURE.md's
 * decisions table), from Debian's root.ds (package dns-root-data) when present, completed with
 * the built-in DS records of any root KSK the file lacks.
 */
import { readFileSync } from 'node:fs';

/**
 * Debian's copy of the root trust anchors (package dns-root-data), read when present.
 * Debian 12's file (2024071801~deb12u1) holds both DS records below.
 */
export const DEFAULT_ROOT_DS_FILE = '/usr/share/dns/root.ds';

/**
 * Root KSK-2017 (key tag 20326), from IANA's root-anchors.xml
 * (https://data.iana.org/root-anchors/root-anchors.xml), identical to Debian's root.ds.
 */
export const ROOT_KSK_2017_DS = '. IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D';

/**
 * Root KSK-2024 (key tag 38696), from the same sources. It signs the root DNSKEY set since
 * 2026-10-11: an anchor of KSK-2017 alone makes every answer under the root bogus now.
 */
export const ROOT_KSK_2024_DS = '. IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16';

/** Both root anchors, used when the root.ds file is absent or lacks one of them. */
export const BUILT_IN_ROOT_ANCHORS: readonly string[] = Object.freeze([ROOT_KSK_2017_DS, ROOT_KSK_2024_DS]);

export interface RootAnchors {
  /** DS records of ".", in presentation form. */
  readonly anchors: readonly string[];
  /** Where they came from: the file, "built-in", or the file plus built-in ones. */
  readonly source: string;
}

/** ". 172800 IN DS 20326 8 2 ..." -> 20326; undefined for anything that is not a root DS. */
export function rootDsKeyTag(line: string): number | undefined {
  const match = /^\.\s+(?:\d+\s+)?(?:IN\s+)?(?:\d+\s+)?DS\s+(\d+)\s+\d+\s+\d+\s+[0-9a-f]+\s*$/i.exec(line.trim());
  return match ? Number(match[1]) : undefined;
}

/** Root DS records from `file` (comments and other records skipped), plus built-in ones it lacks. */
export function defaultRootAnchors(file: string = DEFAULT_ROOT_DS_FILE): RootAnchors {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { anchors: BUILT_IN_ROOT_ANCHORS, source: 'built-in' };
  }
  const fromFile = text
    .split('\n')
    .map((line) => line.replace(/;.*$/, '').trim())
    .filter((line) => rootDsKeyTag(line) !== undefined);
  if (fromFile.length === 0) return { anchors: BUILT_IN_ROOT_ANCHORS, source: 'built-in' };
  const tags = new Set(fromFile.map((line) => rootDsKeyTag(line)));
  const missing = BUILT_IN_ROOT_ANCHORS.filter((anchor) => !tags.has(rootDsKeyTag(anchor)));
  return {
    anchors: Object.freeze([...fromFile, ...missing]),
    source: missing.length === 0 ? file : `${file} + built-in key tag ${missing.map(rootDsKeyTag).join(', ')}`,
  };
}
