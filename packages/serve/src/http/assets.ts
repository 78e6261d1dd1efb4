/**
 * The page's files, read once at start into memory and served by exact path: no path from a
 * request ever reaches the file system, so there is nothing to traverse.
 */
import { readFileSync } from 'node:fs';

const FILES: readonly (readonly [path: string, file: string, type: string])[] = [
  ['/', 'index.html', 'text/html; charset=utf-8'],
  ['/app.js', 'app.js', 'text/javascript; charset=utf-8'],
  ['/style.css', 'style.css', 'text/css; charset=utf-8'],
  ['/example.zone', 'biloxi.example.zone', 'text/plain; charset=utf-8'],
];

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** The page folder beside src/ and dist/. */
export const PAGE_DIR = new URL('../../page/', import.meta.url);

export function loadAssets(dir: URL = PAGE_DIR): ReadonlyMap<string, Asset> {
  return new Map(FILES.map(([path, file, type]) => [path, { type, body: readFileSync(new URL(file, dir)) }]));
}
