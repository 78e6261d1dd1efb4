/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per file,
 * largest first. Usage: node bench/dist/tools/cpuprofile-top.js FILE.cpuprofile [N]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topText = '25'] = process.argv.slice(2);
if (!file) {
  console.error('usage: cpuprofile-top FILE.cpuprofile [N]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const shortUrl = (url: string): string =>
  url
    .replace(/^file:\/\/\/work\/main\//, '')
    .replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, 'node_modules/')
    .replace(/^packages\/([^/]+)\/dist\//, '@dnscore/$1 ');
const functions = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, micros] of self) {
  const frame = byId.get(id)!.callFrame;
  const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '(native)';
  const key = `${frame.functionName || '(anonymous)'}  ${where}`;
  functions.set(key, (functions.get(key) ?? 0) + micros);
  const fileKey = frame.url ? shortUrl(frame.url) : `(${frame.functionName || 'native'})`;
  files.set(fileKey, (files.get(fileKey) ?? 0) + micros);
}
// Inclusive time: a sample counts once for every distinct function on its stack.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (id: number): string => {
  const frame = byId.get(id)!.callFrame;
  return (
    `${frame.functionName || '(anonymous)'}  ` +
    `${frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '(native)'}`
  );
};
const inclusive = new Map<string, number>();
profile.samples.forEach((id, i) => {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(keyOf(at));
  for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const top = Number(topText);
const show = (title: string, map: Map<string, number>): void => {
  console.log(`\n${title} (total ${(total / 1000).toFixed(0)} ms)`);
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((micros / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
  }
};
show('self time by function', functions);
show('self time by file', files);
show('inclusive time by function', inclusive);
