#!/usr/bin/env node
/**
 * The `dnscore` executable. A CommonJS file on purpose: it runs before any ES module is
 * loaded, so UV_THREADPOOL_SIZE is set before libuv starts its thread pool. libunbound's
 * binding blocks one pool thread per query in flight, and the default of 4 would also
 * starve file and crypto work.
 */
process.env.UV_THREADPOOL_SIZE ??= '16';

import('./cli.js').then(
  async ({ run }) => {
    process.exitCode = await run(process.argv.slice(2));
  },
  (error: unknown) => {
    process.stderr.write(`dnscore: cannot start: ${(error as Error).message}\n`);
    process.exitCode = 5;
  },
);
