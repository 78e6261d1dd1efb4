/**
 * The optional `unbound` npm package (native bindings to libunbound), loaded lazily so that
 * this module imports fine without it. Loading says why it failed: not installed, not built,
 * or libunbound itself missing.
 */
import { createRequire } from 'node:module';

/** One result of the binding's resolve() (libunbound's struct ub_result). */
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

/** A libunbound context (ub_ctx) as the binding exposes it. */
export interface UnboundContext {
  setOption(option: string, value: string): this;
  setForward(address: string): this;
  setStub(zone: string, address: string, prime: boolean): this;
  setResolveConf(file: string): this;
  setHosts(file: string): this;
  addTrustAnchor(anchor: string): this;
  addTrustAnchorFile(file: string, autoUpdate?: boolean): this;
  removeZone(name: string): this;
  resolve(name: string, type: number, rrclass: number): Promise<UnboundResultRaw>;
}

export interface UnboundConstructor {
  new (): UnboundContext;
  version(): string;
}

/** The outcome of loading the binding: the constructor, or why there is none. */
export type UnboundBinding =
  | { readonly available: true; readonly Unbound: UnboundConstructor; readonly version: string }
  | { readonly available: false; readonly reason: string };

let loaded: UnboundBinding | undefined;

/**
 * Loads `unbound` as Node would from `from` (a file path or file: URL; default this module).
 * Never throws: a failure comes back as `{ available: false, reason }`. Loading from a folder
 * where the package is not installed is the test seam for "unavailable".
 */
export function loadUnboundBinding(from?: string | URL): UnboundBinding {
  if (from === undefined && loaded) return loaded;
  let binding: UnboundBinding;
  try {
    const require = createRequire(from ?? import.meta.url);
    const Unbound = require('unbound') as UnboundConstructor;
    binding = { available: true, Unbound, version: Unbound.version() };
  } catch (error) {
    binding = { available: false, reason: explainLoadFailure(error) };
  }
  if (from === undefined) loaded = binding;
  return binding;
}

/** Whether the default binding loads, and why not: what the CLI shows for `--resolver unbound`. */
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

/** One sentence for each way the binding fails to load. */
export function explainLoadFailure(error: unknown): string {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'MODULE_NOT_FOUND' && /['"]unbound['"]/.test(message)) {
    return 'the optional package "unbound" is not installed (npm install unbound; it builds against libunbound-dev)';
  }
  if (code === 'MODULE_NOT_FOUND' && message.includes('node_unbound')) {
    return 'the package "unbound" is installed but its native binding was not built (install libunbound-dev, then npm rebuild unbound)';
  }
  if (/libunbound[^:]*\.so|cannot open shared object|image not found|Library not loaded/i.test(message)) {
    return `libunbound is missing (install libunbound8, or libunbound-dev to build): ${message}`;
  }
  return `the "unbound" binding did not load: ${message}`;
}
