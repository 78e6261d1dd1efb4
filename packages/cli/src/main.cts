#!/usr/bin/env node
/**
 * The `dnscore` executable: a CommonJS entry that loads the ES module CLI. libuv's thread pool
 * needs no sizing: the libunbound backend resolves on libunbound's own thread.
 */
import('./cli.js').then(
  async ({ run }) => {
    process.exitCode = await run(process.argv.slice(2));
  },
  (error: unknown) => {
    process.stderr.write(`dnscore: cannot start: ${(error as Error).message}\n`);
    process.exitCode = 5;
  },
);
