/**
 * libuv's thread pool, where the `unbound` binding runs each blocking ub_resolve: only as many
 * queries as threads run at once, and while they run, fs, crypto and zlib work waits.
 */
import { LIBUV_DEFAULT_THREADPOOL_SIZE, LIBUV_MAX_THREADPOOL_SIZE, RESERVED_POOL_THREADS } from './defaults.js';

/**
 * The pool size libuv uses for UV_THREADPOOL_SIZE in `env` (libuv reads it once, at the first
 * piece of pool work): 4 when unset or invalid, clamped to 1..1024.
 */
export function threadPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number.parseInt(env.UV_THREADPOOL_SIZE ?? '', 10);
  if (!Number.isFinite(value) || value <= 0) return LIBUV_DEFAULT_THREADPOOL_SIZE;
  return Math.min(value, LIBUV_MAX_THREADPOOL_SIZE);
}

/** Queries let into the pool at once by default: all threads but RESERVED_POOL_THREADS, at least 1. */
export function defaultMaxInFlight(poolSize: number = threadPoolSize()): number {
  return Math.max(1, poolSize - RESERVED_POOL_THREADS);
}
