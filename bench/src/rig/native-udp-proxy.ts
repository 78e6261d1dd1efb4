/**
 * Builds the delaying proxy's UDP path in C (bench/native/delay-proxy-udp.c) with the machine's
 * `cc` into dist/native, once per bench process and only when the source is newer. Without a
 * compiler (or with BENCH_UDP_PROXY=node, to measure the Node path) the proxy relays UDP in
 * Node too, and the reason is returned for the bench's output.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type NativeUdpProxy = { readonly path: string } | { readonly path: undefined; readonly reason: string };

const SOURCE = fileURLToPath(new URL('../../native/delay-proxy-udp.c', import.meta.url));
const OUT_DIR = fileURLToPath(new URL('../native/', import.meta.url));
const BINARY = `${OUT_DIR}delay-proxy-udp`;

let built: NativeUdpProxy | undefined;

export function nativeUdpProxy(): NativeUdpProxy {
  built ??= build();
  return built;
}

function build(): NativeUdpProxy {
  if (process.env.BENCH_UDP_PROXY === 'node') return { path: undefined, reason: 'BENCH_UDP_PROXY=node' };
  try {
    if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(SOURCE).mtimeMs) return { path: BINARY };
    mkdirSync(OUT_DIR, { recursive: true });
    const partial = `${BINARY}.${process.pid}`;
    execFileSync('cc', ['-O2', '-Wall', '-o', partial, SOURCE], { stdio: ['ignore', 'ignore', 'pipe'] });
    renameSync(partial, BINARY);
    return { path: BINARY };
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { path: undefined, reason: `cc failed: ${stderr || (error as Error).message}` };
  }
}
