/**
 * The default trust anchors: both root KSKs (DESIGN's decisions table), from Debian's root.ds
 * when present, completed with the built-in DS records of any root KSK the file lacks.
 */
import { readFileSync } from 'node:fs';
import { BUILT_IN_ROOT_ANCHORS, DEFAULT_ROOT_DS_FILE } from './defaults.js';

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
