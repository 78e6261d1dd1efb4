/**
 * A full collection between measurements, so that one system's garbage is not collected during
 * the next one's: V8's gc(), exposed at run time when Node was not started with --expose-gc.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

function exposedGc(): () => void {
  const own = (globalThis as { gc?: () => void }).gc;
  if (own) return own;
  setFlagsFromString('--expose-gc');
  // The flag takes effect in contexts made after it: a new one holds gc.
  return runInNewContext('gc') as () => void;
}

/** Found at the first use: a bench that never asks for a collection leaves V8's flags alone. */
let gc: (() => void) | undefined;

/**
 * Two full collections (the second frees what the first's finalizers let go), then
 * `quietMs` with nothing to do, so the collector's helper threads (concurrent sweeping) and the
 * sockets the last system closed are done before the next clock starts. Returns how long it took.
 * Two in a row also drop optimized code (V8 keeps a map that no live object uses for two
 * old-space collections) and set the old generation's limit from a nearly empty heap: see the
 * libunbound part's BurstMethod.
 */
export async function fullCollection(quietMs: number): Promise<number> {
  gc ??= exposedGc();
  const start = performance.now();
  gc();
  gc();
  await new Promise((resolve) => setTimeout(resolve, quietMs));
  return performance.now() - start;
}
