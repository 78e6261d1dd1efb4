/**
 * The package's own libunbound addon (native/unbound_addon.c, built into build/unbound.node by
 * scripts/build-addon.mjs), loaded lazily so that this module imports fine without it. Loading
 * says why it failed: not built (with the compiler's reason), or libunbound itself missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One result (libunbound's struct ub_result). */
export interface UnboundResultRaw {
  readonly qname: string | null;
  readonly qtype: number;
  readonly qclass: number;
  /** RDATA of the answer's records; one TTL (`ttl`) for all of them. */
  readonly data: readonly Uint8Array[];
  /** libunbound's canonname: lossy (dname_str writes unusual octets as "?"), so unused. */
  readonly canonName: string | null;
  readonly rcode: number;
  readonly answerPacket: Uint8Array | null;
  readonly haveData: boolean;
  readonly nxDomain: boolean;
  readonly secure: boolean;
  readonly bogus: boolean;
  readonly whyBogus: string | null;
  readonly wasRateLimited: boolean;
  readonly ttl: number;
}

/**
 * Called on the JS thread for each result, as libunbound's event callback gives it: `token` as
 * given to resolve(), `err` libunbound's error (0: resolved), `rcode` the DNS rcode of a failed
 * resolution (0: `packet` holds the answer), `sec` 0 insecure, 1 bogus, 2 secure, `whyBogus`
 * libunbound's reason. Token 0 with an error: the context broke, every query in flight failed.
 */
export type NativeResultCallback = (
  token: number,
  err: number,
  rcode: number,
  packet: Uint8Array | null,
  sec: number,
  whyBogus: string | null,
  rateLimited: boolean,
) => void;

/**
 * An answer resolve() got inside its own call (libunbound's cache or local data, or libunbound's
 * error): [err, rcode, packet, sec, whyBogus, rateLimited], as NativeResultCallback has them.
 */
export type NativeAnswer = readonly [number, number, Uint8Array | null, number, string | null, boolean];

/**
 * A libunbound context (ub_ctx) of the addon, on libunbound's event API run by a thread of the
 * addon (never a forked process: ub_ctx_async(ctx, 1)).
 */
export interface NativeContext {
  setOption(option: string, value: string): void;
  setForward(address: string): void;
  setStub(zone: string, address: string, prime: boolean): void;
  setResolveConf(file: string): void;
  setHosts(file: string): void;
  addTrustAnchor(anchor: string): void;
  addTrustAnchorFile(file: string): void;
  removeZone(name: string): void;
  /**
   * Asks libunbound (ub_resolve_event): here when the addon's thread waits for events, else
   * through that thread. Returns the question's id, or the answer when it came inside the call
   * (then no callback runs for it). A name libunbound refuses comes back with libunbound's error.
   */
  resolve(name: string, type: number, rrclass: number, token: number): number | NativeAnswer;
  /** True when the question was in flight: no callback will run for it (ub_cancel when sent). */
  cancel(id: number): boolean;
  /** Starts the addon's thread, which makes libunbound's worker now rather than at the first question. */
  warm(): void;
  /** Stops the addon's thread and deletes the ub_ctx; queries in flight get no callback. */
  close(): void;
  readonly inFlight: number;
  readonly closed: boolean;
  /** The addon's thread has made libunbound's worker (after warm()). */
  readonly workerMade: boolean;
}

/** What build/unbound.node exports. */
export interface UnboundAddon {
  /**
   * A new context. The caller keeps `onResult` reachable as long as the context: the addon
   * holds it strongly only while questions are in flight, so an idle context dropped by JS is
   * garbage-collected (and its libunbound context deleted).
   */
  readonly Context: new (
    onResult: NativeResultCallback,
  ) => NativeContext;
  version(): string;
  strerror(code: number): string;
  /** libunbound contexts of the process not deleted yet (closed or collected ones are not counted). */
  openContexts(): number;
  /** Gives the OS back the pages freed memory holds (malloc_trim on glibc; nothing elsewhere). */
  returnFreedMemory(): void;
  /**
   * Claims the process-wide settings `key` for the whole process, every thread included
   * (native/process_wide.c): the claim, or the `payload` of a live claim (other than `except`)
   * whose key differs, when none was made.
   */
  claimProcessWide(key: string, payload: string, except?: NativeClaim): NativeClaim | string;
  /** A live claim's payload (all alike), null when there is none. */
  settingsInForce(): string | null;
}

/** A claim of the addon; released by release(), when collected, or when its thread ends. */
export interface NativeClaim {
  release(): void;
}

/** The outcome of loading the addon: the addon, or why there is none. */
export type UnboundBinding =
  | { readonly available: true; readonly addon: UnboundAddon; readonly version: string }
  | { readonly available: false; readonly reason: string };

/** Where the package's build writes the addon (one level above src/ and dist/). */
export const DEFAULT_BUILD_DIR = fileURLToPath(new URL('../build', import.meta.url));

/** Why the addon is unavailable when no build was attempted where it was looked for. */
export const NOT_BUILT =
  'the libunbound addon was not built (npm ci or npm run build builds it; it needs a C compiler and libunbound-dev)';

let loaded: UnboundBinding | undefined;

/**
 * Loads `unbound.node` from `buildDir` (default: the package's build/). Never throws: a
 * failure comes back as `{ available: false, reason }`. A directory where the addon was not
 * built is the test seam for "unavailable".
 */
export function loadUnboundBinding(buildDir?: string): UnboundBinding {
  if (buildDir === undefined && loaded) return loaded;
  const dir = buildDir ?? DEFAULT_BUILD_DIR;
  let binding: UnboundBinding;
  const file = join(dir, 'unbound.node');
  if (!existsSync(file)) {
    binding = { available: false, reason: notBuilt(dir) };
  } else {
    try {
      const addon = createRequire(import.meta.url)(file) as UnboundAddon;
      binding = { available: true, addon, version: addon.version() };
    } catch (error) {
      binding = { available: false, reason: explainLoadFailure(error) };
    }
  }
  if (buildDir === undefined) loaded = binding;
  return binding;
}

/** Whether the default addon loads, and why not: what the CLI shows for `--resolver unbound`. */
export function unboundAvailability(): {
  readonly available: boolean;
  readonly reason?: string;
  readonly version?: string;
} {
  const binding = loadUnboundBinding();
  return binding.available
    ? { available: true, version: binding.version }
    : { available: false, reason: binding.reason };
}

/** The build's own reason (build-error.txt), or how to build. */
function notBuilt(dir: string): string {
  try {
    const reason = readFileSync(join(dir, 'build-error.txt'), 'utf8').trim();
    if (reason) return `the libunbound addon was not built: ${reason}`;
  } catch {
    // no build was attempted there
  }
  return NOT_BUILT;
}

/** One sentence for each way the addon fails to load. */
export function explainLoadFailure(error: unknown): string {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  if (/libunbound[^:]*\.so|cannot open shared object|image not found|Library not loaded/i.test(message)) {
    return `libunbound is missing (install libunbound8, or libunbound-dev to build): ${message}`;
  }
  return `the libunbound addon did not load: ${message}`;
}
