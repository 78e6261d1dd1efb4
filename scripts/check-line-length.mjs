#!/usr/bin/env node
// Fails when a tracked source line is longer than the formatter's width. Biome wraps code at
// 120 columns but leaves comments and long strings alone; this catches those.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX_COLUMNS = 120;
const SOURCE = /\.(ts|cts|mts|js|cjs|mjs|sh|cc|h|css|html)$/;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
  .split('\n')
  .filter((file) => SOURCE.test(file));
const long = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // listed by git but deleted in the work tree
  }
  text.split('\n').forEach((line, index) => {
    const columns = [...line].length;
    if (columns > MAX_COLUMNS) long.push(`${file}:${index + 1}: ${columns} columns`);
  });
}
if (long.length > 0) {
  process.stderr.write(`${long.join('\n')}\n${long.length} line(s) over ${MAX_COLUMNS} columns\n`);
  process.exit(1);
}
