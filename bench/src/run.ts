/**
 * Entry point of `npm run bench` (`node bench/dist/run.js [--quick] [--only ids] [--out file]`).
 *
 * libuv sizes its thread pool once, at its first use, from UV_THREADPOOL_SIZE. In an ES module
 * that is too late to set it from the code: Node's ESM loader has already read this file through
 * the pool (measured: 12 parallel cold queries through the npm `unbound` binding at 50 ms took
 * 157 ms with the variable set here, 72 ms with it set in the environment). So when it is unset,
 * the bench runs itself again with it set to 16, for the binding's rows (a blocking ub_resolve
 * per pool thread); dnscore's own libunbound addon does not use the pool.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

if (process.env.UV_THREADPOOL_SIZE === undefined) {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: { ...process.env, UV_THREADPOOL_SIZE: '16' },
    },
  );
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward).on('SIGTERM', forward);
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
} else {
  // The npm `sip` stack captures node:dns's functions when it loads; it must first be loaded by
  // systems/sip-stack.ts (which routes them to the bench's servers), before anything imports it.
  (await import('./systems/sip-stack.js')).sipStack();
  await import('./main.js');
}
