/**
 * Servers a test or the bench started in processes of their own (nsd, sipp, the unbound
 * daemon) are stopped even when the run never reaches their stop(): on SIGINT or SIGTERM (Ctrl-C,
 * a CI timeout, vitest ending a worker) and at exit (a failed run, an uncaught error). nsd
 * daemonizes, so nothing else would stop it. A starter registers the process when it is up and
 * releases it in its own stop().
 */
import { rmSync } from 'node:fs';

interface Tracked {
  readonly pid: number;
  /** A scratch directory removed with the process. */
  readonly dir?: string;
}

const tracked = new Set<Tracked>();
let installed = false;

/** Stops `pid` (SIGTERM) and removes `dir` if the run ends first; call the returned function once stopped. */
export function stopOnExit(pid: number, dir?: string): () => void {
  const entry: Tracked = dir === undefined ? { pid } : { pid, dir };
  tracked.add(entry);
  install();
  return () => void tracked.delete(entry);
}

/** Processes registered and not yet released (for tests of this helper). */
export function trackedPids(): number[] {
  return [...tracked].map((t) => t.pid);
}

/** SIGTERM to every registered process, scratch directories removed; synchronous, so it runs at exit too. */
export function stopAllNow(): void {
  for (const entry of [...tracked]) {
    tracked.delete(entry);
    try {
      process.kill(entry.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    // The server may still be writing its state files as it goes: retry, and never throw here.
    try {
      if (entry.dir) rmSync(entry.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    } catch {
      // a scratch directory in tmpdir left behind is harmless
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', stopAllNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = (): void => {
      stopAllNow();
      process.off(signal, onSignal);
      // Nobody else handles it: end the process as the signal would have.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
