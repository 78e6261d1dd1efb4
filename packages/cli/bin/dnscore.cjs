#!/usr/bin/env node
// The committed launcher behind `npx dnscore`: npm links a workspace's bin only when the file
// exists at install time, and dist/ is built after `npm ci`. This file loads the built command.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const built = join(__dirname, '..', 'dist', 'main.cjs');
if (!existsSync(built)) {
  process.stderr.write('dnscore: not built yet; run `npm run build` first\n');
  process.exit(5);
}
require(built);
